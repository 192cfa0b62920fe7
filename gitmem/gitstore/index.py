"""Reserved for a gitmem-owned index file per scope folder (GIT_INDEX_FILE + --work-tree): git's
own stat cache, for `add -A` / `write-tree` snapshots and `read-tree -m -u` write-back.

Not used yet: the snapshot keeps its stat cache in the scope's state file (gitmem/state.py), and
write-back needs its own compare-and-swap rules (docs/sync.md, step 6) that `read-tree -m -u`
does not give for files edited between its check and its write."""
