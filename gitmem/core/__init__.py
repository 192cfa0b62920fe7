"""Small building blocks every door shares (text from outside, and later files, locks, clock)."""
