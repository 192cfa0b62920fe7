"""merge: see docs/design.md §9."""
