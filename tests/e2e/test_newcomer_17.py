"""A newcomer's month, seventeenth round: a developer on a new laptop (granted, then the key
rotated before the laptop's first sync), a clone moved to another folder, two people sharing a
machine's name and git name, recall, remotes renamed, a memory folder with files Claude Code
never wrote, and a network that drops mid-sync. Each failed before its fix (docs/testing.md
"Newcomer walk, round 17")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.gitstore import Repository
from gitmem.privacy.crypto import ScopeKey, lock_scope_key, seal_json
from gitmem.privacy.layout import RECIPIENTS_FILE, SCOPE_KEY_FILE
from tests.support.personal import USER_REF
from tests.support.world import World, write_files


def _laptop(world: World) -> World:
    """The person's new laptop: its own HOME (and machine key), the same remote."""
    other = World(world.root / "laptop")
    other.remote = world.remote
    return other


def _asked_then_granted(world: World) -> tuple[Path, World, Path, str]:
    """The desk syncs personal memory; the laptop's first sync asks to be granted (as the
    guide says) and the desk grants it, not synced yet."""
    desk = world.clone("desk")
    write_files(world.scope_path(desk), {"MEMORY.md": "- [Build](build.md) — b\n"})
    write_files(world.scope_path(desk), {"build.md": "make build-fast\n"})
    world.ok("-C", str(desk), "sync")
    laptop = _laptop(world)
    clone = laptop.clone("lap")
    run = laptop.gitmem("-C", str(clone), "sync")
    assert "gitmem key grant '" in run.out, run
    recipient = laptop.ok("key", "show").strip()
    world.ok("-C", str(desk), "key", "grant", recipient)
    return desk, laptop, clone, recipient


@pytest.mark.slow
def test_a_key_rotated_after_the_grant_is_taken_at_the_new_machines_first_sync(
    world: World,
) -> None:
    """Granted, then `gitmem key rotate` on the first machine before the new one synced: the
    new machine's first sync refused its own memory as "may have been planted" (`key trust`
    got through). The rotated key is endorsed by the key it asked for, which only that key's
    holders can do: taken, the memory is there."""
    desk, laptop, clone, _ = _asked_then_granted(world)
    world.ok("-C", str(desk), "key", "rotate")
    world.ok("-C", str(desk), "sync")
    run = laptop.gitmem("-C", str(clone), "sync")
    assert run.code == 0, run
    assert "may have been planted" not in run.err, run
    assert (laptop.scope_path(clone) / "build.md").read_text() == "make build-fast\n"


@pytest.mark.slow
def test_a_key_planted_after_the_grant_is_still_refused(world: World) -> None:
    """The other side of the rule above: after the honest grant, someone who can push (and
    never held the key) puts a ring of their own on top, sealed to the laptop and to
    themselves, with no endorsement by the key asked about: refused, nothing pushed."""
    from pyrage import x25519

    desk, laptop, clone, recipient = _asked_then_granted(world)
    world.ok("-C", str(desk), "sync")
    planter = str(x25519.Identity.generate().to_public())
    remote = Repository(world.remote)
    granted = remote.resolve(USER_REF)
    assert granted is not None
    key = ScopeKey.generate()
    meta = remote.list_tree(granted)["gitmem.toml"]
    tree = remote.write_tree(
        {
            "gitmem.toml": ("100644", meta.oid),
            SCOPE_KEY_FILE: (
                "100644",
                remote.write_blob(lock_scope_key(key, [recipient, planter])),
            ),
            RECIPIENTS_FILE: (
                "100644",
                remote.write_blob(seal_json(key, RECIPIENTS_FILE, [recipient, planter])),
            ),
        }
    )
    planted = remote.write_commit(tree, [granted], "gitmem: rotate the personal scope key", when=1)
    remote.publish(planted)
    world.plumb(world.remote, "update-ref", USER_REF, planted)
    run = laptop.gitmem("-C", str(clone), "sync")
    assert run.code == 3 and "may have been planted" in run.err, run
    assert world.plumb(world.remote, "rev-parse", USER_REF) == planted, "pushed nothing"
    assert not (laptop.scope_path(clone) / "build.md").exists()


def test_a_moved_clone_names_the_folder_it_left_and_the_edits_there(world: World) -> None:
    """`mv ~/src ~/code`: Claude Code keys the memory folder by the checkout's path, so the
    next sync wrote the memory into a new folder as a first sync and said nothing of the old
    one — an edit made there since the last sync was in no ref and nobody loads that folder
    (only `doctor` named it). Now the sync names the folder left, counts its unsynced edits
    and gives the command that merges them in; following it, the edit is here."""
    clone = world.clone("src/shop")
    old = world.scope_path(clone)
    write_files(old, {"MEMORY.md": "- [Build](build.md) — b\n", "build.md": "make build\n"})
    write_files(old / "team", {"MEMORY.md": "- [Deploy](deploy.md) — d\n", "deploy.md": "ship\n"})
    world.ok("sync", cwd=clone)
    (old / "build.md").write_text("make build-fast\n")  # edited, not synced, then moved
    (world.root / "src").rename(world.root / "code")
    clone = world.root / "code" / "shop"
    new = world.scope_path(clone)
    run = world.gitmem("sync", cwd=clone)
    assert run.code == 0, run
    shown = "~/" + str(old.relative_to(world.home))
    line = [n for n in run.out.splitlines() if "no longer its memory folder" in n]
    assert len(line) == 1, run.out  # once, the team folder inside it counted with it
    assert f"auto: this clone last synced {shown}," in line[0], line
    assert "1 file there changed since that sync (build.md)" in line[0], line
    assert f"gitmem adopt --folder {shown} merges it in" in line[0], line
    assert (new / "build.md").read_text() == "make build\n"
    assert (new / "team" / "deploy.md").read_text() == "ship\n"
    world.ok("adopt", "--folder", str(old), cwd=clone)
    # adopt merges as a first sync does (no base: the old line is kept too, nothing lost)
    assert "make build-fast\n" in (new / "build.md").read_text()
    assert not list((clone / ".git" / "gitmem" / "state").glob("adopted-*")), "its state dropped"
    again = world.ok("sync", cwd=clone)
    assert "no longer its memory folder" not in again, again


def test_a_moved_clone_with_everything_synced_is_told_the_old_folder_may_go(
    world: World,
) -> None:
    clone = world.clone("src/shop")
    old = world.scope_path(clone)
    write_files(old, {"MEMORY.md": "- [Build](build.md) — b\n", "build.md": "make build\n"})
    world.ok("sync", cwd=clone)
    (world.root / "src").rename(world.root / "code")
    out = world.ok("sync", cwd=world.root / "code" / "shop")
    assert "all of it was synced and is here now: remove ~/" in out, out


def test_a_lost_line_tells_two_people_of_one_name_on_one_machine_apart(world: World) -> None:
    """Pair programming on one machine: two clones, both `user.name Ana`, each with her own
    `user.email`. The `lost:` line named the writer by host and name only, so the other
    Ana's winning edit read "the version by you (Ana) here". The e-mail tells them apart."""
    from gitmem.project.scopes import hostname

    clones = []
    for n, email in ((1, "ana@one.example"), (2, "ana@two.example")):
        clone = world.clone(f"ana{n}", email=email)
        world.git("config", "user.name", "Ana", cwd=clone)
        clones.append(clone)
    first, second = clones
    topic = "---\nname: api\ndescription: d\ntype: project\nmodified: 2026-0{m}-01T00:00:00Z\n"
    write_files(world.scope_path(first, "team"), {"api.md": topic.format(m=1) + "---\nv1\n"})
    world.ok("sync", cwd=first)
    world.ok("sync", cwd=second)
    write_files(world.scope_path(first, "team"), {"api.md": topic.format(m=2) + "---\nper one\n"})
    world.ok("sync", cwd=first)
    write_files(world.scope_path(second, "team"), {"api.md": topic.format(m=3) + "---\nper two\n"})
    world.ok("sync", cwd=second)  # the newer edit wins
    out = world.ok("sync", cwd=first)
    lost = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("lost:")]
    assert len(lost) == 1, out
    assert "the edit by you (Ana) here" in lost[0], lost
    assert f"the version by Ana <ana@two.example> on {hostname()}" in lost[0], lost
    told = json.loads(world.ok("lost", "--json", cwd=first))
    assert any(e.get("kept_email") == "ana@two.example" for e in told), told
    listed = world.ok("lost", cwd=first)
    assert "edit by Ana <ana@one.example> on " in listed, listed
    assert "kept the version by Ana <ana@two.example> on " in listed, listed


def test_doctor_names_the_files_claude_code_did_not_write_and_a_command_that_lists_them(
    world: World,
) -> None:
    """A memory folder with a picture, a 20 MB log, a note in .txt, a `.DS_Store` and an
    editor's swap file: the sync says each skipped file once (junk silently), and `doctor`
    said "3 files … not synced (links, special or large files)" — wrong for a picture — and
    "gitmem sync lists them", which a second sync does not (said once). Now doctor names
    them with why, and the command that lists them all does."""
    clone = world.clone("p")
    auto = world.scope_path(clone)
    write_files(auto, {"MEMORY.md": "- [Build](build.md) — b\n", "build.md": "make\n"})
    (auto / ".DS_Store").write_bytes(b"\0\1")
    (auto / ".build.md.swp").write_bytes(b"\0swap")
    (auto / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (auto / "debug.log").write_bytes(b"x" * (20 << 20))
    (auto / "notes.txt").write_text("notes\n")
    first = world.gitmem("sync", cwd=clone)
    assert first.code == 0 and first.err.count("skipped auto: ") == 3, first
    assert ".DS_Store" not in first.err and ".swp" not in first.err, first
    assert "skipped" not in world.gitmem("sync", cwd=clone).err  # said once
    doctor = world.gitmem("doctor", "--offline", cwd=clone).out
    line = next(ln for ln in doctor.splitlines() if "not synced" in ln)
    assert "links, special or large" not in line, line
    assert "debug.log (larger than 4 MiB)" in line and "diagram.png (GM104" in line, line
    assert "fix: gitmem sync -v lists them all" in doctor, doctor
    listed = world.gitmem("sync", "-v", cwd=clone).err
    assert listed.count("skipped auto: ") == 3, listed


def test_a_server_that_stops_answering_is_told_as_the_network_and_the_next_sync_recovers(
    world: World,
) -> None:
    """A `git daemon` stopped: the fetch's hint said "check the remote URL and your access",
    and a push that could not connect after the pull added "without push access to origin:
    gitmem pull keeps your memory up to date, and a hub takes your personal memory" — advice
    for a reader, not for a network down. Now both say the server did not answer, nothing is
    lost, sync again; the next sync, with the server back, pushes what was committed."""
    from tests.support.servers import free_port, git_daemon

    clone = world.clone("p")
    world.ok("sync", cwd=clone)
    with git_daemon(world.root, world.env) as base:
        world.git("remote", "set-url", "origin", f"{base}/remote.git", cwd=clone)
        world.ok("sync", cwd=clone)
    write_files(world.scope_path(clone, "team"), {"deploy.md": "Tuesdays\n"})
    run = world.gitmem("sync", cwd=clone)  # the daemon is stopped
    assert run.code == 3 and "cannot fetch from origin" in run.err, run
    assert "the network or the server did not answer" in run.err, run
    assert "your access" not in run.err, run
    # the pull works (a mirror), the push cannot connect: committed here, said so
    world.git("remote", "set-url", "origin", str(world.remote), cwd=clone)
    dead = f"git://127.0.0.1:{free_port()}/remote.git"
    world.git("config", "remote.origin.pushurl", dead, cwd=clone)
    run = world.gitmem("sync", cwd=clone)
    assert run.code == 3 and "cannot push to" in run.err, run
    assert "1 local change committed" in run.out and "not pushed" in run.out, run
    assert "the network or the server did not answer" in run.err, run
    assert "without push access" not in run.err, run
    world.git("config", "--unset", "remote.origin.pushurl", cwd=clone)
    out = world.ok("sync", cwd=clone)
    assert "refs/gitmem/team: pushed to origin" in out, out
    assert "Tuesdays" in world.git("show", "refs/gitmem/team:team/deploy.md", cwd=world.remote)


def test_json_asked_of_a_command_without_it_names_what_gives_json(world: World) -> None:
    """A recall user's tool asked `gitmem recall --json`: "unrecognized arguments: --json",
    see --help — which has no word of JSON. Each command without --json (docs/json.md names
    them) now says so and what gives the fields instead; and every other command has it."""
    from gitmem.cli import build_parser
    from gitmem.cli.common import GROUPS, NO_JSON
    from gitmem.cli.completion import options, subcommands
    from tests.support.world import REPO_ROOT

    clone = world.clone("p")
    run = world.gitmem("recall", "--json", cwd=clone)
    assert run.code == 2, run
    assert "gitmem recall has no --json" in run.err, run
    assert "gitmem query --search WORDS --json gives the memories as fields" in run.err, run
    # `gitmem key --json` named the top level ("did you mean --version?"): then the group;
    # round 23: `key` alone is `key list`, --json with it; `bundle` has no default
    run = world.gitmem("bundle", "--json", cwd=clone)
    assert run.code == 2 and "(gitmem bundle)" in run.err, run
    assert "--json goes after the subcommand: gitmem bundle SUBCOMMAND --json" in run.err, run
    top = subcommands(build_parser())
    assert {f"gitmem {n}" for n, (_, p) in top.items() if subcommands(p)} == set(GROUPS)
    leaves = []
    for name, (_, parser) in top.items():
        below = subcommands(parser)
        leaves += [(f"gitmem {name} {sub}", p) for sub, (_, p) in below.items()] or [
            (f"gitmem {name}", parser)
        ]
    without = {prog for prog, p in leaves if not any("--json" in o for o, _, _ in options(p))}
    assert without == set(NO_JSON), without ^ set(NO_JSON)
    said = (REPO_ROOT / "docs" / "json.md").read_text().split("### ", 1)[0]
    for prog in NO_JSON:
        assert f"`{prog.removeprefix('gitmem ')}`" in said, prog


def test_a_renamed_remote_beside_a_fork_keeps_memory_on_the_renamed_one(world: World) -> None:
    """`git remote rename origin upstream`, then `git remote add fork …` (a contributor's
    usual setup): gitmem.remote still named 'origin', so gitmem took the first remote
    listed — the fork — and the sync pushed the team's memory there, saying nothing. Now
    the remote whose URL is the project key the memory records is taken."""
    fork = world.make_remote("fork.git")
    clone = world.clone("p")
    write_files(world.scope_path(clone, "team"), {"deploy.md": "Tuesdays\n"})
    world.ok("sync", cwd=clone)
    world.git("remote", "rename", "origin", "upstream", cwd=clone)
    world.git("remote", "add", "fork", str(fork), cwd=clone)
    write_files(world.scope_path(clone, "team"), {"rollback.md": "git revert\n"})
    out = world.ok("sync", cwd=clone)
    assert "pushed to upstream" in out, out
    assert world.git("for-each-ref", "refs/gitmem", cwd=fork) == "", "nothing on the fork"
    held = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=world.remote)
    assert "team/rollback.md" in held, held
    # recorded since round 18 (tests/e2e/test_newcomer_18.py): no guess left for status to tell
    assert world.git("config", "gitmem.remote", cwd=clone) == "upstream\n"
    assert "remote upstream" in world.ok("status", cwd=clone)


def test_two_people_taking_turns_on_one_account_never_empty_each_others_folder(
    world: World,
) -> None:
    """Pair programming on one machine account: Ana synced her personal memory, then Bo set
    his `user.email` in the clone and synced. The folder's state said Ana's files were synced,
    Bo's ref had none of them, so the sync read them as deleted there and removed them from
    the folder. Now the sync refuses in one line, nothing written, with the two ways out;
    each works as the hint says."""
    import shlex

    clone = world.clone("p", email="ana@x.example")
    auto = world.scope_path(clone)
    write_files(auto, {"MEMORY.md": "- [A](a.md) — ana's\n", "a.md": "ana's notes\n"})
    world.ok("sync", cwd=clone)
    world.git("config", "user.email", "bo@x.example", cwd=clone)
    write_files(auto, {"b.md": "bo's notes\n"})
    run = world.gitmem("sync", cwd=clone)
    assert run.code == 2, run
    assert "sync with ana@x.example's personal memory" in run.err, run
    assert "git config gitmem.user ana@x.example" in run.err, run
    assert (auto / "a.md").read_text() == "ana's notes\n"
    assert "bo@x.example" not in world.git("for-each-ref", "refs/gitmem", cwd=world.remote)
    # handing the folder over, as the hint says: Bo's memory gets the files, none removed
    rm = run.err.split("; or hand over to bo@x.example", 1)[1].split(": rm ", 1)[1]
    for path in shlex.split(rm.split(", then gitmem sync", 1)[0]):
        Path(path).unlink()
    world.ok("sync", cwd=clone)
    assert (auto / "a.md").read_text() == "ana's notes\n" and (auto / "b.md").exists()
    held = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/users/bo@x.example", cwd=clone)
    assert "auto/manifest" in held, held
    # and back: gitmem.user keeps it the new owner's whatever user.email says
    world.git("config", "user.email", "ana@x.example", cwd=clone)
    assert world.gitmem("sync", cwd=clone).code == 2
    world.git("config", "gitmem.user", "bo@x.example", cwd=clone)
    world.ok("sync", cwd=clone)
    assert (auto / "a.md").exists() and (auto / "b.md").exists()
