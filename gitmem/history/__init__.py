"""A memory's past, read from its ref: where a path lives (`locate`), its log, versions,
`show` and `restore` (versions.py), and the edits merges resolved against (lost.py: the
`lost:` lines a sync tells, `gitmem lost`, `restore --lost`). Below the sync, which tells
the losses of its merges; above project, policy and privacy (sealed notes are opened here).
"""
