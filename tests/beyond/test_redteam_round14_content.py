"""Red team, round 14: content, recall and adapter doors (charter 2, 4, 5).

Each test is an attack that passes when it is refused; "worked" ones were closed at their one
door (docs/reliability.md, "Red team, round 14 (content and recall)").
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.beyond.test_redteam_trees import TEAM
from tests.support.world import World, teammates_sharing, write_files

# -- an index line linking a spelling the merge renamed (round 13's `-2`) ----------------------


def test_links_to_a_spelling_the_merge_renamed_follow_it_in_every_file(world: World) -> None:
    """Alice adds `Runbook.md`, Bob (before pulling) `runbook.md`, each with an index line and
    Bob with a topic file linking his: the merge renames Bob's `runbook-2.md`, and every link
    to `runbook.md` (index, topic file, reference definition, `./`, an anchor) follows it —
    left as it was, it dangled on Linux and opened Alice's file on macOS and Windows."""
    alice, bob, _team = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    write_files(
        world.scope_path(alice, "team"),
        {"Runbook.md": "alice's runbook\n", "MEMORY.md": "- [Runbook](Runbook.md) — alice's\n"},
    )
    write_files(
        world.scope_path(bob, "team"),
        {
            "runbook.md": "bob's runbook\n",
            "MEMORY.md": "- [runbook](runbook.md) — bob's\n",
            "deploy.md": "See [the runbook](./runbook.md#steps) and [Ali][r].\n\n"
            "[r]: Runbook.md\n[b]: runbook.md\n",
        },
    )
    world.ok("-C", str(alice), "push")

    run = world.gitmem("-C", str(bob), "sync")

    assert run.code == 0, run.out + run.err

    def show(name: str) -> str:
        return world.plumb(world.remote, "show", f"{TEAM}:team/{name}")

    assert show("runbook-2.md").strip() == "bob's runbook"
    index = show("MEMORY.md")
    assert "[runbook](runbook-2.md) — bob's" in index, index
    assert "[Runbook](Runbook.md) — alice's" in index, index
    deploy = show("deploy.md")
    assert "(./runbook-2.md#steps)" not in deploy  # relative to its folder, anchor kept
    assert "(runbook-2.md#steps)" in deploy, deploy
    assert "[r]: Runbook.md\n[b]: runbook-2.md" in deploy, deploy
    world.ok("-C", str(alice), "sync")
    assert "runbook-2.md" in (world.scope_path(alice, "team") / "MEMORY.md").read_text()


def test_the_relink_after_a_fold_clash_is_symmetric_and_idempotent(tmp_path: Path) -> None:
    """The same trees merged either way give the same bytes; merged again, nothing moves; a
    folder spelling moved (`notes/` into `Notes/`) carries its links too; links out of the
    tree, web links and other names are left alone."""
    from gitmem.gitstore import Repository
    from gitmem.merge.tree import merge_trees

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    repo = Repository(tmp_path)

    def tree(files: dict[str, str]) -> dict[str, str]:
        return {f"team/{p}": repo.write_blob(d.encode()) for p, d in files.items()}

    base = tree({"MEMORY.md": "# Team\n"})
    ours = tree(
        {
            "MEMORY.md": "# Team\n- [A](A.md)\n- [x](Notes/x.md)\n",
            "A.md": "ours\n",
            "Notes/x.md": "x\n",
        }
    )
    theirs = tree(
        {
            "MEMORY.md": "# Team\n- [a](a.md)\n- [y](notes/y.md)\n",
            "a.md": "theirs [web](https://h/a.md) [up](../a.md) [me](a.md)\n",
            "notes/y.md": "[back](../a.md) [x](x.md)\n",
        }
    )
    one = merge_trees(repo, base, ours, theirs)
    two = merge_trees(repo, base, theirs, ours)
    assert one.files == two.files
    text = {p: repo.read_blob(o).decode() for p, o in one.files.items()}
    assert sorted(text) == [
        "team/A.md",
        "team/MEMORY.md",
        "team/Notes/x.md",
        "team/Notes/y.md",
        "team/a-2.md",
    ], sorted(text)
    assert "- [a](a-2.md)" in text["team/MEMORY.md"], text
    assert "- [y](Notes/y.md)" in text["team/MEMORY.md"], text
    assert "- [A](A.md)" in text["team/MEMORY.md"], text
    assert text["team/a-2.md"] == "theirs [web](https://h/a.md) [up](../a.md) [me](a-2.md)\n"
    assert text["team/Notes/y.md"] == "[back](../a-2.md) [x](x.md)\n"
    again = merge_trees(repo, one.files, one.files, one.files)
    assert again.files == one.files
