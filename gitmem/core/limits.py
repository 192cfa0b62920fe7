"""The policy's size limits that code outside the policy's checks bounds its own work by: a file
read into a snapshot, a tree walked for its changes. Plain numbers in a module of their own, so
a reader of one limit (every sync's snapshot) does not import the rules (`policy/rules.py`,
`policy/treecheck.py`: loaded where a file or tree is checked)."""

MAX_BLOB_BYTES = 4 * 1024 * 1024
# the most parents a commit of memory history has: gitmem writes merges of two (a fold of writer
# refs: merges of two, one after another). Red team 23: an octopus of 20,000 parents on the team
# ref cost the first sync 17-24 s and every later one 2 s (git's walks of it grow with the
# square of its parents): refused at the gate before gitmem asks git to walk it (sync/gate.py)
MAX_PARENTS = 2
MAX_DEPTH = 12  # path components, the top-level folder included
MAX_TREE_BYTES = 64 * 1024 * 1024  # tree objects read in a shape check
MAX_PAYLOAD = 1 << 20  # a hook's JSON on stdin (every hook: SessionStart/End, the prompt's)
# a time a memory's frontmatter (`updated: 2999-01-01`) or a teammate's commit (its dates are
# its writer's) puts more than this many seconds from now is not believed where recency ranks
# memories (recall's `--recent`, curate): a day, for any time zone (red team 16). The merge's
# ranking bounds a frontmatter date by its own commit's time with the same figure (red team 17:
# `merge_drivers.rank.FUTURE_SLACK`, kept equal by a test; not imported, so a no-op sync does not
# load the merge).
FUTURE_SLACK = 86_400.0
