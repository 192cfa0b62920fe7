"""Use cases: what one command does, composed of the layers below (project, policy, privacy,
sync, claude, recall) and called by the front ends (`gitmem.cli`, the MCP server's tools).

doctor, status, orphans (adopting a checkout's old folder), unpublish, validate, promote, and
the MCP server. Nothing below imports this package (tests/test_layers.py).
"""
