"""gitmem: git-native sync for AI-agent memory."""

__version__ = "0.1.0"
