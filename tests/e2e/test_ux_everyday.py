"""Everyday use, as a newcomer walks it (#25): each test is the user's commands on real clones,
a real bare remote and a temporary HOME."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.synced import SyncedA, _synced_a, synced_a
from tests.support.world import BUILD_AND_DEPLOY, World, write_files

__all__ = ["_synced_a", "synced_a"]  # the fixtures: one synced clone, built once a module


def test_curate_and_graph_keep_each_scope_to_its_own_files(world: World) -> None:
    a = world.clone("a")
    auto = write_files(world.scope_path(a), BUILD_AND_DEPLOY)
    (auto / "notes.md").write_text("---\nname: notes\n---\nsee [build](build.md)\n")
    team_index = "- [Zeta](zeta.md) — last\n- [Deploy](deploy.md) — how we deploy\n"
    (auto / "team" / "MEMORY.md").write_text(team_index)
    (auto / "team" / "zeta.md").write_text("---\nname: zeta\nconfidence: 0.1\n---\nz\n")
    world.ok("-C", str(a), "curate", "--yes")
    personal = (auto / "MEMORY.md").read_text()
    assert "team/" not in personal and "[notes](notes.md)" in personal, personal
    # the team index is well under the caps: curate leaves its order alone
    assert "already curated" in world.ok("-C", str(a), "curate", "--scope", "team")
    assert (auto / "team" / "MEMORY.md").read_text() == team_index

    graph = json.loads(world.ok("-C", str(a), "graph", "--format", "json"))
    names = {n["path"] for n in graph["nodes"].values()}
    assert names == {"MEMORY.md", "build.md", "notes.md"}, names
    text = world.ok("-C", str(a), "graph")
    assert "team/" not in text, text
    team = json.loads(world.ok("-C", str(a), "graph", "--scope", "team", "--format", "json"))
    assert {n["path"] for n in team["nodes"].values()} == {"MEMORY.md", "deploy.md", "zeta.md"}


SECRET = "export GH=ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n"


def test_promote_that_the_secret_scan_would_block_says_so_and_its_next_step_works(
    synced_a: SyncedA,
) -> None:
    world, a, auto = synced_a
    (auto / "build.md").write_text("Run make -j.\n" + SECRET)
    refused = world.gitmem("-C", str(a), "promote", "auto/build.md")
    assert refused.code == 1, refused
    assert "secret" in refused.err and "auto/build.md" in refused.err
    assert "run gitmem sync" not in refused.out + refused.err
    assert (auto / "build.md").exists() and not (auto / "team" / "build.md").exists()
    # the hint: remove it, rerun promote
    (auto / "build.md").write_text("Run make -j.\n")
    assert "pushed" in world.ok("-C", str(a), "promote", "auto/build.md")

    # a secret in another file of the target scope blocks the push: said, exit 1, and the
    # hint's next step (remove it, then gitmem sync) works
    (auto / "team" / "deploy.md").write_text("deploy\n" + SECRET)
    (auto / "notes.md").write_text("notes\n")
    blocked = world.gitmem("-C", str(a), "promote", "auto/notes.md")
    assert blocked.code == 1, blocked
    assert "not pushed" in blocked.err and "team/deploy.md" in blocked.err, blocked.err
    assert "gitmem sync" in blocked.err
    (auto / "team" / "deploy.md").write_text("deploy\n")
    world.ok("-C", str(a), "sync")
    remote_team = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=a)
    assert "team/notes.md" in remote_team, remote_team


def test_doctor_advises_drivers_only_when_memory_is_kept_on_a_branch(synced_a: SyncedA) -> None:
    world, a, _auto = synced_a
    plain = world.gitmem("-C", str(a), "doctor", "--offline")
    assert "drivers install" not in plain.out, plain.out
    write_files(a / ".claude" / "agent-memory" / "reviewer", {"MEMORY.md": "- agent\n"})
    world.git("add", "-f", ".claude", cwd=a)
    world.git("commit", "-qm", "agent memory on the branch", cwd=a)
    kept = world.gitmem("-C", str(a), "doctor", "--offline", "--json")
    drivers = [f for f in json.loads(kept.out) if f["area"] == "drivers"]
    assert drivers and drivers[0]["level"] == "problem", drivers
    assert drivers[0]["fix"] == "gitmem drivers install"


def test_the_hook_command_is_short_recognizable_and_runs_the_real_cli(world: World) -> None:
    import subprocess

    from tests.support.world import teammates_sharing

    _, bob, _ = teammates_sharing(world)
    world.ok("-C", str(bob), "hooks", "install", "--claude")
    settings = json.loads((bob / ".claude" / "settings.local.json").read_text())
    commands = {
        event: group["hooks"][0]["command"]
        for event, groups in settings["hooks"].items()
        for group in groups
    }
    start, end = commands["SessionStart"], commands["SessionEnd"]
    assert start.endswith("/gitmem/launch.py pull --hook") and len(start) < 200, start
    assert end.endswith("/gitmem/launch.py push --hook"), end
    assert " -I " in start and "-c" not in start.split()  # isolated, no one-liner
    # a package named gitmem in the project folder, on PYTHONPATH: never imported
    planted = world.root / "ran"
    (bob / "gitmem").mkdir()
    (bob / "gitmem" / "__init__.py").write_text(f"open({str(planted)!r}, 'w').write('ran')\n")
    payload = json.dumps({"session_id": "s", "cwd": str(bob), "hook_event_name": "SessionStart"})
    for _ in range(2):  # a pull, then nothing new
        proc = subprocess.run(
            ["sh", "-c", start],
            cwd=bob,
            input=payload.encode(),
            capture_output=True,
            env={**world.env, "PYTHONPATH": "."},
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        assert "deploy only on Tuesdays" in proc.stdout.decode()
    assert not planted.exists()


def machines_without_a_remote_first(world: World) -> tuple[World, Path, Path]:
    """The guide's §3 "No remote yet?": a first machine syncs a repository with no remote,
    then adds one and syncs; a second machine (its own HOME) clones. Returns the second
    machine's world, the first clone and the second."""
    remote = world.remote
    a = world.root / "shop"
    world.git("clone", "-q", str(remote), str(a))
    world.git("remote", "remove", "origin", cwd=a)
    write_files(world.scope_path(a), BUILD_AND_DEPLOY)
    assert "git remote add origin" in world.ok("-C", str(a), "sync")
    world.git("remote", "add", "origin", str(remote), cwd=a)
    world.ok("-C", str(a), "sync")
    laptop = World(world.root / "laptop")
    b = laptop.clone("shop", url=str(remote))
    return laptop, a, b


def test_no_remote_yet_then_one_added_lets_a_second_machine_just_sync(world: World) -> None:
    laptop, a, b = machines_without_a_remote_first(world)
    first = laptop.gitmem("-C", str(b), "sync")
    assert first.code == 0, first
    assert "adopt" not in first.out + first.err
    assert (laptop.scope_path(b, "team") / "deploy.md").exists()
    recipient = laptop.ok("-C", str(b), "key", "show").split()[-1].strip("'")
    assert f"gitmem key grant '{recipient}'" in first.out + first.err
    world.ok("-C", str(a), "key", "grant", recipient)
    world.ok("-C", str(a), "sync")
    laptop.ok("-C", str(b), "sync")
    assert (laptop.scope_path(b) / "build.md").read_text() == BUILD_AND_DEPLOY["build.md"]
    # and edits flow back: the laptop's sync is accepted by the first machine
    (laptop.scope_path(b) / "laptop.md").write_text("from the laptop\n")
    laptop.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert (world.scope_path(a) / "laptop.md").exists()


def test_adopt_says_adopted_only_for_a_ref_it_changed(synced_a: SyncedA) -> None:
    world, _a, _auto = synced_a
    laptop = World(world.root / "laptop")
    mirror = world.root / "mirror.git"
    world.git("clone", "-q", "--mirror", str(world.remote), str(mirror))
    b = laptop.clone("shop", url=str(mirror))  # the same repository by another name
    refused = laptop.gitmem("-C", str(b), "sync")
    assert refused.code == 2 and "run once: gitmem adopt" in refused.err
    out = laptop.ok("-C", str(b), "adopt")
    user = "refs/gitmem/users/tester@example.com"
    assert "refs/gitmem/team: adopted" in out, out
    assert f"{user}: adopted" not in out, "it cannot open, so it cannot adopt, the personal ref"
    assert f"{user}: not adopted yet" in out, out


def test_a_ref_made_before_there_was_a_remote_is_claimed_by_the_first_remote_key() -> None:
    from gitmem.project.refmeta import RefMeta, rekeyed

    local = RefMeta(1, "local:/home/you/shop")
    assert local.knows("github.com/acme/shop")
    assert not local.knows("local:/home/you/elsewhere"), "two paths are two projects"
    claimed = rekeyed(local, "github.com/acme/shop")
    assert claimed is not None and claimed.key == local.key
    assert claimed.aliases == ("github.com/acme/shop",)
    assert not claimed.knows("gitlab.com/other/repo"), "once claimed, other keys are refused"
    assert rekeyed(claimed, "github.com/acme/shop") is None
    assert rekeyed(RefMeta(1, "github.com/acme/shop"), "gitlab.com/x/y") is None


def test_a_memory_that_is_not_utf8_syncs_and_is_named_with_its_first_bad_byte(
    world: World,
) -> None:
    import subprocess

    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a), BUILD_AND_DEPLOY)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    index = world.scope_path(b, "team") / "MEMORY.md"
    index.write_text(index.read_text() + "- deploys on Tuesdays\n")
    world.ok("-C", str(b), "sync")
    latin1 = world.scope_path(a, "team") / "MEMORY.md"
    latin1.write_bytes(
        "- [Deploy](deploy.md) — how we deploy\n- déjà vu\n".encode("latin-1", "replace")
    )
    run = world.gitmem("-C", str(a), "sync")
    assert run.code == 0, run
    assert "kept changing" not in run.out + run.err, run.out
    said = [ln for ln in run.out.splitlines() if "MEMORY.md is not UTF-8" in ln]
    assert said and "first bad byte 0xE9 at byte 41, line 2, column 4" in said[0], said
    assert "deploys on Tuesdays" in latin1.read_text("latin-1"), "what was waiting arrived"
    again = world.gitmem("-C", str(a), "sync")
    assert again.code == 0 and "not UTF-8" not in again.out, "said once, when it was read"
    fix = said[0].split("re-save it as UTF-8: ", 1)[1].split("; then ")[0]
    subprocess.run(["sh", "-c", fix], check=True, env=world.env)
    assert "déjà vu" in latin1.read_text()
    world.ok("-C", str(a), "sync")
    assert world.gitmem("-C", str(a), "doctor", "--offline").code == 0


def test_a_memory_that_is_not_text_is_named_and_doctor_fixes_it(synced_a: SyncedA) -> None:
    import subprocess

    world, a, _auto = synced_a
    wide = world.scope_path(a, "team") / "wide.md"
    wide.write_bytes("déjà vu\n".encode("utf-16"))
    for _ in range(2):
        run = world.gitmem("-C", str(a), "sync")
        assert run.code == 0 and "kept changing" not in run.out + run.err, run
    doctor = world.gitmem("-C", str(a), "doctor", "--offline", "--json")
    assert doctor.code == 1, doctor
    problem = [f for f in json.loads(doctor.out) if f["level"] == "problem"]
    assert problem and "wide.md is not UTF-8 text (UTF-16" in problem[0]["message"], problem
    fix = problem[0]["fix"].split("; then ")[0]
    subprocess.run(["sh", "-c", fix], check=True, env=world.env)
    assert wide.read_text() == "déjà vu\n"
    world.ok("-C", str(a), "sync")
    assert world.gitmem("-C", str(a), "doctor", "--offline").code == 0


def test_skipped_notes_follow_the_results_on_their_own_lines(world: World) -> None:
    import subprocess
    import sys

    a = world.clone("a")
    auto = write_files(world.scope_path(a), BUILD_AND_DEPLOY)
    (auto / "bad.md").write_bytes("caf\xe9\n".encode("utf-16"))
    proc = subprocess.run(
        f"{sys.executable} -m gitmem -C {a} sync 2>&1",
        shell=True,
        capture_output=True,
        env={**world.env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    lines = proc.stdout.decode().splitlines()
    skipped = [ln for ln in lines if "bad.md" in ln]
    assert skipped == [
        "skipped auto: bad.md (GM111: UTF-16 text (byte order mark FF FE): re-save it as UTF-8)"
    ], lines
    assert lines.index(skipped[0]) == len(lines) - 1, "after the results, not inside them"


def test_changes_from_elsewhere_are_told_with_gits_letters_and_who_made_them(
    world: World,
) -> None:
    a, a2 = world.clone("a"), world.clone("a2")  # two clones of one user
    bob = world.clone("bob", email="bob@example.com")
    world.git("config", "user.name", "Bob Dev", cwd=bob)
    files = {**BUILD_AND_DEPLOY, "ci.md": "ci things\n", "old.md": "old\n"}
    auto = write_files(world.scope_path(a), files)
    for clone in (a, a2, bob):
        world.ok("-C", str(clone), "sync")
    world.ok("-C", str(a), "promote", "auto/ci.md")
    (auto / "old.md").rename(auto / "renamed.md")
    (auto / "build.md").write_text("changed\n")
    world.ok("-C", str(a), "sync")
    team = world.scope_path(bob, "team")
    (team / "deploy.md").unlink()
    (team / "new.md").write_text("new\n")
    world.ok("-C", str(bob), "sync")

    out = world.ok("-C", str(a2), "sync")
    lines = [ln.strip() for ln in out.splitlines()]
    assert "< R auto/ci.md -> team/ci.md (promoted; by Test User)" in lines, out
    assert "< R auto/old.md -> auto/renamed.md (by Test User)" in lines, out
    assert "< M auto/build.md (by Test User)" in lines, out
    assert "< D team/deploy.md (by Bob Dev)" in lines, out
    assert "< A team/new.md (by Bob Dev)" in lines, out
    assert not any(ln in ("< auto/ci.md", "< team/ci.md") for ln in lines), out


def listed(out: str) -> set[str]:
    """The paths a sync's output lists as arriving (`< X path …`)."""
    return {ln.split()[2] for ln in out.splitlines() if ln.startswith("  < ")}


def test_a_dry_run_lists_what_the_sync_would_merge_and_write(world: World) -> None:
    import shutil

    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a), BUILD_AND_DEPLOY)
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (world.scope_path(a, "team") / "new.md").write_text("new\n")
    world.ok("-C", str(a), "sync")
    dry = world.ok("-C", str(b), "sync", "--dry-run")
    assert "< A team/new.md (by Test User)" in dry, dry
    # a folder deleted as a whole: the sync restores it, the dry run says so (not deletions)
    shutil.rmtree(world.scope_path(b))
    dry = world.ok("-C", str(b), "sync", "--dry-run")
    assert "  D " not in dry, dry
    assert listed(dry) == {
        "team/MEMORY.md",
        "team/deploy.md",
        "team/new.md",
        "auto/MEMORY.md",
        "auto/build.md",
    }, dry
    world.ok("-C", str(b), "sync")
    assert (world.scope_path(b) / "build.md").exists()
    # a new clone with an empty folder: the dry run lists every file the sync then writes
    c = world.clone("c")
    world.scope_path(c).mkdir(parents=True)
    dry = world.ok("-C", str(c), "sync", "--dry-run")
    assert "up to date" not in dry.split("\n")[0], dry
    real = world.ok("-C", str(c), "sync")
    assert listed(dry) == listed(real) and len(listed(real)) == 5, (dry, real)


def test_status_after_unpublishing_does_not_say_all_is_well(synced_a: SyncedA) -> None:
    world, a, _auto = synced_a
    user = "refs/gitmem/users/tester@example.com"
    world.git("push", "-q", "origin", "--delete", "refs/gitmem/team", user, cwd=a)
    out = world.ok("-C", str(a), "status", "--fetch")
    assert "ahead 0, behind 0" not in out, out
    assert "not on origin any more (deleted there)" in out, out
    assert "publishes its whole history again" in out
    rows = json.loads(world.ok("-C", str(a), "status", "--fetch", "--json"))["scopes"]
    team = next(r for r in rows if r["name"] == "team")
    assert team["ahead"] == 1 and "deleted there" in team["note"]


def test_status_while_waiting_for_the_key_does_not_advise_publishing(synced_a: SyncedA) -> None:
    world, _a, _auto = synced_a
    laptop = World(world.root / "laptop")
    b = laptop.clone("b", url=str(world.remote))
    write_files(laptop.scope_path(b), {"laptop.md": "from the laptop\n"})
    assert laptop.gitmem("-C", str(b), "sync").code == 3  # partly done: laptop.md set aside
    out = laptop.ok("-C", str(b), "status")
    steps = [ln for ln in out.splitlines() if ln.startswith("next:")]
    assert not any("gitmem sync to share" in s or "publish your memory" in s for s in steps), out
    assert any("gitmem key grant" in s for s in steps), out
    assert any("wait for the key" in s for s in steps), out


def test_a_lost_edit_is_listed_shown_and_brought_back_alone(world: World) -> None:
    a, b = world.clone("a"), world.clone("b", email="bob@example.com")
    world.git("config", "user.name", "Bob Dev", cwd=b)
    ta, tb = world.scope_path(a, "team"), world.scope_path(b, "team")
    index = "- [Deploy](deploy.md) — how we deploy\n- [Build](build.md) — make -j\n"
    topic = "---\nname: deploy\n---\nDeploy on Tuesdays.\nUse the blue button.\n"
    write_files(ta, {"MEMORY.md": index, "deploy.md": topic})
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    (ta / "deploy.md").write_text(topic.replace("Tuesdays", "Wednesdays"))
    (ta / "MEMORY.md").write_text(index.replace("make -j", "make -j8 (alice)"))
    (tb / "deploy.md").write_text(topic.replace("Tuesdays", "Fridays"))
    (tb / "MEMORY.md").write_text(index.replace("make -j", "make -j4 (bob)"))
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")  # bob's merge keeps one version of each
    world.ok("-C", str(a), "sync")
    kept_topic, kept_index = (ta / "deploy.md").read_text(), (ta / "MEMORY.md").read_text()
    lost_topic = "Wednesdays" if "Fridays" in kept_topic else "Fridays"
    lost_index = "make -j8 (alice)" if "(bob)" in kept_index else "make -j4 (bob)"
    # later edits, made after the merge, on both files
    (ta / "deploy.md").write_text(kept_topic + "Later entry.\n")
    (ta / "MEMORY.md").write_text(
        kept_index + "- [Later](later.md) — one\n- [Last](last.md) — two\n"
    )
    world.ok("-C", str(a), "sync")

    listing = world.ok("-C", str(a), "lost")
    assert "team/deploy.md (lines 4-4)" in listing and "team/MEMORY.md (" in listing, listing
    edits = json.loads(world.ok("-C", str(a), "lost", "--json"))
    assert [e["number"] for e in edits] == [1, 2], edits
    assert all(e["author"] in ("Test User", "Bob Dev") and e["kept"] for e in edits)
    by_path = {e["path"]: e["number"] for e in edits}
    shown = world.ok("-C", str(a), "lost", str(by_path["team/deploy.md"]))
    assert f"+Deploy on {lost_topic}." in shown, shown

    out = world.ok("-C", str(a), "restore", "--lost", str(by_path["team/deploy.md"]))
    assert "brought back lost edit" in out
    now = (ta / "deploy.md").read_text()
    assert f"Deploy on {lost_topic}." in now and "Later entry." in now, now
    world.ok("-C", str(a), "restore", "--lost", str(by_path["team/MEMORY.md"]))
    now = (ta / "MEMORY.md").read_text()
    assert lost_index in now, now
    assert "- [Later](later.md) — one\n- [Last](last.md) — two\n" in now, "later entries stay"
    again = world.ok("-C", str(a), "restore", "--lost", str(by_path["team/deploy.md"]))
    assert "nothing written" in again
    missing = world.gitmem("-C", str(a), "restore", "--lost", "9")
    assert missing.code == 2 and "gitmem lost" in missing.err


def test_key_list_names_each_key_and_marks_this_machine(synced_a: SyncedA) -> None:
    import subprocess

    world, a, _auto = synced_a
    laptop = World(world.root / "laptop")
    (laptop.home / ".ssh").mkdir()
    keyfile = laptop.home / ".ssh" / "id_ed25519"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "me@laptop", "-f", str(keyfile)],
        check=True,
    )
    adopted = laptop.ok("key", "init", "--ssh", str(keyfile))
    assert adopted.startswith("adopted the SSH key") and "made" not in adopted, adopted
    pub = (keyfile.with_suffix(".pub")).read_text().strip()
    world.ok("-C", str(a), "key", "grant", pub)
    lines = world.ok("-C", str(a), "key", "list").splitlines()
    mine = world.ok("key", "show").strip()
    assert any(ln.startswith(mine) and "this machine" in ln for ln in lines), lines
    ssh = [ln for ln in lines if ln.startswith("ssh-ed25519 ")]
    assert ssh and "SHA256:" in ssh[0] and "granted" in ssh[0] and "this machine" not in ssh[0]
    rows = json.loads(world.ok("-C", str(a), "key", "list", "--json"))
    assert sorted(r["this_machine"] for r in rows) == [False, True]
    assert all(r["label"] for r in rows)


def test_promote_dry_run_says_who_could_read_it_and_moves_nothing(synced_a: SyncedA) -> None:
    world, a, auto = synced_a
    out = world.ok("-C", str(a), "promote", "auto/build.md", "--dry-run")
    assert "would move auto/build.md -> team/build.md" in out, out
    assert "readable by everyone who can fetch origin" in out and "nothing moved" in out
    assert (auto / "build.md").exists() and not (auto / "team" / "build.md").exists()
    assert "team/build.md" not in world.git(
        "ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=a
    )


def test_show_prints_a_memory_at_a_revision_and_log_has_oneline(synced_a: SyncedA) -> None:
    world, a, auto = synced_a
    (auto / "build.md").write_text("Run make -j8.\n")
    world.ok("-C", str(a), "sync")
    assert world.ok("-C", str(a), "show", "~1:auto/build.md") == BUILD_AND_DEPLOY["build.md"]
    assert world.ok("-C", str(a), "show", "~0:auto/build.md") == "Run make -j8.\n"
    shown = json.loads(world.ok("-C", str(a), "show", "~0:team/deploy.md", "--json"))
    assert shown["path"] == "team/deploy.md" and shown["text"] == BUILD_AND_DEPLOY["team/deploy.md"]
    missing = world.gitmem("-C", str(a), "show", "~1:auto/nothing.md")
    assert missing.code == 2 and "gitmem log" in missing.err
    oneline = world.ok("-C", str(a), "log", "--oneline").splitlines()
    assert oneline and all(len(ln.split(" ", 1)[0]) == 10 for ln in oneline), oneline
    assert all("gitmem:" in ln for ln in oneline)
