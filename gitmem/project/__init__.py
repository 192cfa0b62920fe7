"""Memory beyond one project folder and one agent: orphaned folders of this project
(orphans.py), other coding agents as adapters (adapters.py), the user scope (userscope.py)."""
