"""policy: see docs/design.md §9."""
