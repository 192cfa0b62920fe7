"""One module per family of scenarios; each `run(ctx)` returns its rows of the table."""
