"""Fixtures of the red-team rounds: alice and bob sharing a team memory, built once a module."""

from tests.support.teammates import _shared_pushed, _shared_synced, pushed, synced

__all__ = ["_shared_pushed", "_shared_synced", "pushed", "synced"]
