"""privacy: see docs/design.md §9."""
