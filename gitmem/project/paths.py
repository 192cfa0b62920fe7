"""Where Claude Code keeps memory inside a project's work tree: the names the scopes use and that
a command asks git about while it opens the repository (imports nothing: the start-up reads
them before the rest of gitmem is imported)."""

LOCAL_FILE = "CLAUDE.local.md"
AGENTS_FOLDER = ".claude/agent-memory"
LOCAL_AGENTS_FOLDER = ".claude/agent-memory-local"
# the scopes of subagents' memory: one folder per agent (`<folder>/<agent>/`), each its own index
SUBAGENT_SCOPES = frozenset({"agents", "local"})
# what open_project asks the branch's index about: pass to Repository(..., tracked=) so that
# git answers while the repository is being found
TRACKED_BY_BRANCH = (AGENTS_FOLDER, LOCAL_FILE, LOCAL_AGENTS_FOLDER)
