"""Red-team round: fresh attacks at every door (charter rules 4 and 5), each a class with variants.

Each test is an attack; it passes when the attack is refused. docs/reliability.md lists them
with whether they worked before their fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.world import World, write_files

MEMORY = {
    "MEMORY.md": "- [Build](build.md) — how to build\n",
    "build.md": "---\nname: build\ndescription: how\ntype: project\n---\nRun make.\n",
    "team/MEMORY.md": "- [Deploy](deploy.md) — how we deploy\n",
    "team/deploy.md": "---\nname: deploy\ndescription: how\ntype: project\n---\nTuesdays.\n",
}


def _program(path: Path, marker: Path, what: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "{what} $*" >> "{marker}"\ncat >/dev/null 2>&1\nexit 0\n')
    path.chmod(0o755)
    return path


HOOKS = (
    "reference-transaction",
    "post-index-change",
    "pre-push",
    "pre-auto-gc",
    "post-checkout",
    "post-merge",
    "pre-commit",
    "fsmonitor-watchman",
)


@pytest.mark.parametrize("where", ["hooks", "hooksPath", "fsmonitor", "includeIf"])
def test_the_repositorys_own_hooks_and_fsmonitor_never_run_for_gitmem(
    world: World, where: str
) -> None:
    """A clone whose .git/config came with the folder (an unpacked archive, a shared disk):
    core.fsmonitor names a program (git runs it on any index read: gitmem's tracked-folder
    listing, the fetch), hooks sit in .git/hooks or core.hooksPath (reference-transaction runs
    on every ref update), or an includeIf pulls such a config in. The SessionStart hook runs
    gitmem in every folder Claude Code opens: none of them may run. Worked before: fsmonitor
    ran on every command (status, the hook), reference-transaction on every ref update."""
    a = world.clone("a")
    marker = world.root / "ran"
    hooks = a / ".git" / "hooks"
    if where == "hooksPath":
        hooks = world.root / "elsewhere-hooks"
        world.git("config", "core.hooksPath", str(hooks), cwd=a)
    if where in ("hooks", "hooksPath"):
        for name in HOOKS:
            _program(hooks / name, marker, name)
    else:
        monitor = _program(world.root / "monitor.sh", marker, "fsmonitor")
        included = world.root / "included.config"
        included.write_text(f"[core]\n\tfsmonitor = {monitor}\n")
        if where == "fsmonitor":
            world.git("config", "core.fsmonitor", str(monitor), cwd=a)
        else:
            world.git("config", f"includeIf.gitdir:{a}/.git.path", str(included), cwd=a)
    write_files(world.scope_path(a), MEMORY)
    write_files(a / ".claude" / "agent-memory" / "x", {"MEMORY.md": "- [A](a.md) — a\n"})

    for args in (
        ["sync"],
        ["status"],
        ["pull", "--hook"],
        ["push"],
        ["log"],
        ["diff"],
        ["validate"],
        ["query", "--search", "build"],
        ["doctor"],
    ):
        run = world.gitmem("-C", str(a), *args)
        assert run.code in (0, 1), (args, run.err)
        assert not marker.exists(), (args, marker.read_text())
    # and git itself, asked directly, does run them: the attack is real
    if where in ("fsmonitor", "includeIf"):
        world.git("ls-files", cwd=a)
        assert marker.exists()
