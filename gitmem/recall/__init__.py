"""Recall: find, record and show the synced memory (docs/design.md §7, docs/recall.md).

`index` keeps a full-text index (SQLite FTS5) of every scope's files beside the sync state; it is
a cache, never a source of truth: the files on disk and the refs are. `query` answers the
memory-query options over it, `record` writes a memory as Claude Code does, `mcpserver` offers
both to an agent over MCP, `prompt` picks the memories relevant to a prompt, `view` draws the
graph as one self-contained HTML page. Nothing here writes outside a scope folder and the index.
"""
