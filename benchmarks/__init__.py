"""gitmem against raw git, measured side by side (`python -m benchmarks`, see README.md here)."""
