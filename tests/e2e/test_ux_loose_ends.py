"""Dead ends a newcomer met last round, each fixed by class: a memory named through another
scope's folder, a version older than the first, an unbounded commit message, an orphaned hub
ref, a newly enabled agent's arrivals, the man page of an editable install."""

from __future__ import annotations

from pathlib import Path

from tests.support.world import World, write_files


def test_a_path_through_another_scopes_folder_is_refused_naming_the_right_form(
    world: World,
) -> None:
    """`promote auto/team/x.md` made team/team/x.md: `auto/team/` is the team folder, never
    auto memory. Every command that takes a memory says so in one line and names the form
    that works; that form then does what it says."""
    a = world.clone("a", email="a@example.com")
    write_files(world.scope_path(a, "team"), {"x.md": "# x\nshared\n"})
    write_files(world.scope_path(a, "auto"), {"mine.md": "# mine\nown\n"})
    world.ok("-C", str(a), "sync")
    for args in (
        ("promote", "auto/team/x.md"),
        ("log", "auto/team/x.md"),
        ("show", "~0:auto/team/x.md"),
        ("restore", "auto/team/x.md"),
    ):
        run = world.gitmem("-C", str(a), *args)
        assert run.code == 2, (args, run.err)
        first, hint = run.err.splitlines()
        assert "'auto/team/x.md' is team memory, not auto memory" in first, run.err
        assert hint == "hint: name it team/x.md", run.err
    assert not (world.scope_path(a, "team") / "team").exists()
    assert "shared" in world.ok("-C", str(a), "show", "~0:team/x.md")
    assert world.ok("-C", str(a), "log", "team/x.md")
    # promote of a team memory by its right name: one line saying promote moves auto memory
    run = world.gitmem("-C", str(a), "promote", "team/x.md")
    assert run.code == 2 and "team/x.md is already shared (team memory)" in run.err
    assert "moved auto/mine.md -> team/mine.md" in world.ok("-C", str(a), "promote", "auto/mine.md")


def test_a_version_before_the_first_is_said_to_be_none_with_how_many_there_are(
    world: World,
) -> None:
    """`show ~1:x.md` on a one-commit ref said "unknown revision" and hinted at `~N`."""
    a = world.clone("a", email="a@example.com")
    write_files(world.scope_path(a, "team"), {"x.md": "# x\nv1\n"})
    world.ok("-C", str(a), "sync")
    for args in (("show", "~1:team/x.md"), ("restore", "team/x.md", "--at", "~1")):
        run = world.gitmem("-C", str(a), *args)
        assert run.code == 2, (args, run.err)
        first, hint = run.err.splitlines()
        assert "no earlier version ~1 of the team memory: team holds one version (~0)" in first
        assert "~N" not in run.err and hint == "hint: gitmem log lists the versions"
    assert "v1" in world.ok("-C", str(a), "show", "~0:team/x.md")
    write_files(world.scope_path(a, "team"), {"x.md": "# x\nv2\n"})
    world.ok("-C", str(a), "sync")
    assert "v1" in world.ok("-C", str(a), "show", "~1:team/x.md")
    run = world.gitmem("-C", str(a), "show", "~5:team/x.md")
    assert run.code == 2 and "team holds 2 versions (~0 to ~1)" in run.err, run.err
    # nothing synced yet: says so, and the step it names works
    b = world.clone("b", email="b@example.com")
    run = world.gitmem("-C", str(b), "show", "~1:auto/y.md")
    assert run.code == 2 and "nothing synced yet for scope auto" in run.err, run.err


def test_log_bounds_a_huge_commit_message_and_says_how_much_it_cut(world: World) -> None:
    """A teammate's commit may carry a subject of megabytes and thousands of trailers: `log`
    (text and JSON) shows a bounded part of each and says how much it left out."""
    import json

    a = world.clone("a", email="a@example.com")
    write_files(world.scope_path(a, "team"), {"x.md": "# x\n"})
    world.ok("-C", str(a), "sync")
    tip = world.plumb(a, "rev-parse", "refs/gitmem/team")
    subject = "S" * 3_000_000
    trailers = "".join(
        f"Gitmem-Resolved: team/x.md entry e{i}: theirs (newer)\n" for i in range(500)
    )
    message = f"{subject}\n\n{trailers}".encode()
    big = world.plumb(a, "commit-tree", f"{tip}^{{tree}}", "-p", tip, "-F", "-", data=message)
    world.plumb(a, "update-ref", "refs/gitmem/team", big, tip)
    out = world.ok("-C", str(a), "log", "--no-pager")
    assert len(out) < 20_000, len(out)
    assert f"[{3_000_000 - 1000:,} more characters not shown]" in out, out[:2000]
    data = json.loads(world.ok("-C", str(a), "log", "--json"))
    assert len(data[0]["subject"]) < 1100 and "more characters not shown" in data[0]["subject"]
    assert len(data[0]["resolved"]) == 101 and "400 more resolutions" in data[0]["resolved"][-1]
    assert "SS" in world.ok("-C", str(a), "log", "--oneline", "--no-pager")


def test_arrivals_of_a_newly_enabled_agent_carry_their_status_letter(world: World) -> None:
    """A folder newly synced here (an agent enabled after the team's ref already held its
    files) got `< cline/progress.md` without the letter every other arrival carries."""
    a = world.clone("a", email="a@example.com")
    b = world.clone("b", email="b@example.com")
    world.ok("-C", str(a), "config", "agents", "claude,cline")
    write_files(a / "memory-bank", {"progress.md": "# progress\nstarted\n"})
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(b), "config", "agents", "claude,cline")
    out = world.ok("-C", str(b), "sync")
    # who made it: from the ref's history (nothing arrived from the remote for it)
    assert "  < A cline/progress.md (by Test User)" in out.splitlines(), out
    assert (b / "memory-bank" / "progress.md").read_text() == "# progress\nstarted\n"
    assert "  < " not in world.ok("-C", str(b), "sync")  # told once


def test_doctor_tells_an_editable_install_how_man_finds_the_manual_page(
    world: World, tmp_path: Path
) -> None:
    """`pip install -e .` installs no share/man page: `man gitmem` and `git gitmem --help` said
    "No manual entry". doctor names the MANPATH line with the package's own pages for such an
    install (a prefix holding none), and that line makes man find them; an install from a wheel
    (the page under its prefix) gets no advice. The real doctor on this suite's own install
    (editable for a developer, a wheel in CI) says what its layout calls for."""
    import json
    import os
    import shutil
    import subprocess
    import sysconfig

    from gitmem.commands.doctor import manual_fix

    own = Path(__file__).resolve().parents[2] / "gitmem" / "man"
    editable = tmp_path / "editable-prefix"  # what pip install -e leaves: no share/man page
    editable.mkdir()
    wheel = tmp_path / "wheel-prefix"
    (wheel / "share" / "man" / "man1").mkdir(parents=True)
    (wheel / "share" / "man" / "man1" / "git-gitmem.1").write_text(".TH GIT-GITMEM 1\n")
    saved = os.environ.pop("MANPATH", None)
    try:
        fix = manual_fix(editable, own)
        assert manual_fix(wheel, own) is None
        assert fix == f'export MANPATH="{own}:$MANPATH"'
        os.environ["MANPATH"] = f"{own}:"
        assert manual_fix(editable, own) is None  # the line applied: nothing more to say
    finally:
        os.environ.pop("MANPATH", None)
        if saved is not None:
            os.environ["MANPATH"] = saved
    if shutil.which("man"):
        env = {**world.env, "MANPATH": f"{own}:"}
        for page in ("git-gitmem", "gitmem"):
            found = subprocess.run(
                ["man", "-w", page], env=env, capture_output=True, text=True, check=True
            )
            assert found.stdout.strip() == f"{own}/man1/{page}.1"

    a = world.clone("a")
    world.env = {k: v for k, v in world.env.items() if k != "MANPATH"}
    items = json.loads(world.gitmem("-C", str(a), "doctor", "--offline", "--json").out)
    manual = [f for f in items if f["area"] == "manual"]
    prefix = Path(sysconfig.get_path("data"))
    if (prefix / "share" / "man" / "man1" / "git-gitmem.1").is_file():
        assert manual == [], manual
    else:
        assert manual and manual[0]["level"] == "advice", items
        assert manual[0]["fix"] == f"{manual_fix()}  (in your shell profile)"


def test_a_hub_ref_under_an_older_azure_devops_name_is_merged_and_retired(world: World) -> None:
    """Hub refs were named by the spelling of the project's URL, now by the project: someone who
    synced an Azure DevOps project by ssh kept an orphaned ref under the old name. The next sync
    merges it into the ref under the new name (nothing lost), then deletes it under a lease."""
    from gitmem.project.identity import normalize_remote_url, project_identity
    from gitmem.project.scopes import hub_component

    azure = "git@ssh.dev.azure.com:v3/Org/Proj/Repo"
    # ssh to Azure DevOps, served from the bare remote here: the command git runs, in a folder
    # where v3/Org/Proj/Repo is the remote (the key is the URL as configured: no insteadOf)
    served = world.root / "azure"
    (served / "v3" / "Org" / "Proj").mkdir(parents=True)
    (served / "v3" / "Org" / "Proj" / "Repo").symlink_to(world.remote)
    ssh = world.root / "fake-ssh"
    ssh.write_text(f'#!/bin/sh\nfor last; do :; done\ncd {served} && exec sh -c "$last"\n')
    ssh.chmod(0o755)
    world.git("config", "--global", "core.sshCommand", str(ssh))
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    key = normalize_remote_url(azure)
    users = "/users/tester@example.com"
    old = f"refs/gitmem/projects/{hub_component(key)}{users}"
    new = f"refs/gitmem/projects/{hub_component(project_identity(key))}{users}"
    assert old != new
    # a machine that synced before the rename: its personal ref sits under the old name
    gone = world.clone("gone", url=azure)
    world.git("config", "gitmem.hub", str(hub), cwd=gone)
    write_files(world.scope_path(gone, "auto"), {"old.md": "# old\nfrom the gone machine\n"})
    world.ok("-C", str(gone), "sync")
    tip = world.plumb(hub, "rev-parse", new)
    world.plumb(hub, "update-ref", old, tip)
    world.plumb(hub, "update-ref", "-d", new)

    a = world.clone("a", url=azure)
    world.git("config", "gitmem.hub", str(hub), cwd=a)
    write_files(world.scope_path(a, "auto"), {"new.md": "# new\nfrom a\n"})
    out = world.ok("-C", str(a), "sync")
    assert "from the hub's older name of this project" in out, out
    auto = world.scope_path(a, "auto")
    assert (auto / "old.md").read_text() == "# old\nfrom the gone machine\n"
    assert (auto / "new.md").exists()
    refs = world.git("for-each-ref", "--format=%(refname)", cwd=hub).split()
    assert refs == [new], refs
    assert world.plumb(hub, "merge-base", "--is-ancestor", tip, new) == ""
    again = world.ok("-C", str(a), "sync")
    assert "older name" not in again and "up to date" in again, again
