"""claude: see docs/design.md §9."""
