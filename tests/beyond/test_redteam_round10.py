"""Red-team round 10: fresh attack classes at every door (charter rules 4-5), each a class with
variants.

Each test is an attack; it passes when the attack is refused. docs/history/reliability.md ("Red team,
round 10") lists them with whether they worked before their fix. Cost attacks assert ratios
(the same command over a small and a hostile input), not absolute times.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import World, write_files

PERSONAL = "PERSONAL-PLAINTEXT-7f3a"


def _holding(folder: Path, text: str) -> list[str]:
    """Files under `folder` (links not followed) whose bytes hold `text`."""
    found = []
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink() and text.encode() in path.read_bytes():
                found.append(str(path))
    return found


# -- gitmem's own folder: the recall index, the state, reached through a link ---------------


@pytest.mark.parametrize("where", ["gitmem", "gitmem/recall", "gitmem/index", "gitmem/state"])
def test_gitmems_own_folder_through_a_link_never_pours_memory_into_the_working_tree(
    world: World, where: str
) -> None:
    """A `.git` that came with an archive holds `gitmem -> ../notes` (or one of its folders a
    link): every query and prompt hook wrote the recall index — every personal memory, in
    plaintext — into the working tree, untracked, one `git add -A` from the branch; status
    wrote the sync state there. Each level of `<common-dir>/gitmem` that exists must be a
    folder of this user's own (`project/state.state_dir`): one line, nothing written there."""
    clone = world.clone("c")
    write_files(
        world.scope_path(clone),
        {"MEMORY.md": "- [S](s.md) — s\n", "s.md": f"---\nname: s\n---\n{PERSONAL}\n"},
    )
    world.ok("-C", str(clone), "sync")
    world.ok("-C", str(clone), "query", "--search", PERSONAL)
    planted = clone / ".git" / where
    shutil.rmtree(planted, ignore_errors=True)
    dump = clone / "notes"
    dump.mkdir()
    planted.symlink_to(dump)
    for args in (
        ["query", "--search", PERSONAL],
        ["recall", "--prompt", PERSONAL],
        ["status"],
        ["sync"],
        ["view"],
        ["pull", "--hook"],
    ):
        run = world.gitmem("-C", str(clone), *args)
        assert run.code in (0, 2), (args, run.err)
        assert "Traceback" not in run.out + run.err
        assert not list(dump.iterdir()), (args, list(dump.iterdir()))
    untracked = world.git("status", "--porcelain", "--untracked-files=all", cwd=clone)
    assert "notes" not in untracked
    outside_git = [p for p in _holding(clone, PERSONAL) if "/.git/" not in p]
    assert not outside_git


def test_gitmems_own_folder_of_another_user_is_refused(world: World) -> None:
    """The same folder owned by another account (a repository shared, or an archive unpacked
    as root): whoever owns a folder can swap its files for links between our check and our
    write. Refused in one line; the query answers nothing from it."""
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    clone = world.clone("c")
    write_files(world.scope_path(clone), {"s.md": f"---\nname: s\n---\n{PERSONAL}\n"})
    world.ok("-C", str(clone), "sync")
    os.chown(clone / ".git" / "gitmem", 4242, 4242)
    run = world.gitmem("-C", str(clone), "query", "--search", PERSONAL)
    assert run.code == 2, run.out + run.err
    assert "another user" in run.err and PERSONAL not in run.out
    subprocess.run(["chown", "-R", f"{os.geteuid()}", str(clone / ".git" / "gitmem")], check=True)


# -- what git shows instead of an object: replace refs, grafts --------------------------------


def _replaced_team_tip(world: World, clone: Path) -> str:
    """Plant `refs/replace/<team tip>` in `clone`: a commit of the same parent whose tree holds
    only a memory the attacker wrote. Returns the real tip."""
    world.git("fetch", "-q", "origin", "refs/gitmem/team:refs/archived", cwd=clone)
    tip = world.git("rev-parse", "refs/archived", cwd=clone).strip()
    world.git("update-ref", "-d", "refs/archived", cwd=clone)
    blob = world.plumb(clone, "hash-object", "-w", "--stdin", data=b"- [Fake](fake.md) - f\n")
    topic = world.plumb(clone, "hash-object", "-w", "--stdin", data=b"---\nname: fake\n---\nfake\n")
    inner = world.plumb(
        clone,
        "mktree",
        data=f"100644 blob {blob}\tMEMORY.md\n100644 blob {topic}\tfake.md\n".encode(),
    )
    real_tree = world.git("rev-parse", f"{tip}^{{tree}}", cwd=clone).strip()
    top = world.git("ls-tree", real_tree, cwd=clone)
    lines = [ln for ln in top.splitlines() if not ln.endswith("\tteam")]
    lines.append(f"040000 tree {inner}\tteam")
    tree = world.plumb(clone, "mktree", data=("\n".join(lines) + "\n").encode())
    fake = world.git("commit-tree", tree, "-m", "fake", cwd=clone).strip()
    world.git("replace", tip, fake, cwd=clone)
    return tip


def test_a_planted_replace_ref_never_changes_what_gitmem_reads_or_publishes(world: World) -> None:
    """A `.git` that came with an archive (or a tool's leftovers) holds `refs/replace/<the
    team tip>`: git shows another commit in its place. gitmem read the team memory through
    it — the folder got the attacker's memory, and the next push published a merge whose
    tree dropped every teammate's memory (charter 2: never lose a memory). git reads
    objects as they are for gitmem (`core.useReplaceRefs=false`, `SAFE_CONFIG`)."""
    from tests.support.world import teammates_sharing

    alice, bob, _team = teammates_sharing(world)
    _replaced_team_tip(world, bob)
    write_files(world.scope_path(bob, "team"), {"bob.md": "---\nname: bob\n---\nbob's\n"})
    world.ok("-C", str(bob), "sync")
    world.ok("-C", str(alice), "sync")
    held = world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=alice)
    assert "team/deploys.md" in held and "team/fake.md" not in held, held
    assert not (world.scope_path(bob, "team") / "fake.md").exists()
    assert (world.scope_path(bob, "team") / "deploys.md").exists()


def test_a_planted_graft_file_never_rewrites_the_history_gitmem_reads(world: World) -> None:
    """The same with `info/grafts` (deprecated, still read by git): the team tip made
    parentless hid every earlier commit from `gitmem log` (and from what a sync calls already
    merged). gitmem's git reads no graft file (`spawn.clean_env`)."""
    from tests.support.world import teammates_sharing

    alice, bob, team = teammates_sharing(world)
    write_files(team, {"second.md": "---\nname: second\n---\nsecond\n"})
    world.ok("-C", str(alice), "sync")
    world.ok("-C", str(bob), "sync")
    tip = world.git("rev-parse", "refs/gitmem/team", cwd=bob).strip()
    first = world.git("rev-parse", "refs/gitmem/team~1", cwd=bob).strip()
    (bob / ".git" / "info").mkdir(exist_ok=True)
    (bob / ".git" / "info" / "grafts").write_text(f"{tip}\n")
    shown = world.ok("-C", str(bob), "log", "--oneline", "--no-pager")
    assert first[:7] in shown, shown


# -- a repository serving another folder's work tree -----------------------------------------


def _work_checkout(world: World) -> Path:
    """A real checkout of the user's, with personal and team memory synced."""
    work = world.clone("work")
    write_files(
        world.scope_path(work),
        {"MEMORY.md": "- [W](w.md) — w\n", "w.md": f"---\nname: w\n---\n{PERSONAL}\n"},
    )
    write_files(
        world.scope_path(work, "team"),
        {"MEMORY.md": "- [T](t.md) — t\n", "t.md": "---\nname: t\n---\nWORK-TEAM-91c2\n"},
    )
    world.ok("-C", str(work), "sync")
    return work


def test_an_archives_repository_whose_core_worktree_names_another_checkout_syncs_nothing_of_it(
    world: World,
) -> None:
    """An unpacked archive holds a `.git` folder of its own (a commit, its remote the
    attacker's) whose `core.worktree` names the user's checkout of another project: git
    takes that checkout as this repository's work tree, and gitmem took its memory as this
    project's — the hook and sync pushed that project's team memory to the attacker's remote
    and would pour the attacker's team memory into it. Refused in one line (round 9's rule,
    `identity._not_anothers_checkout`, for every spelling): nothing reaches the remote."""
    work = _work_checkout(world)
    evil = world.root / "evil.git"
    world.git("init", "-q", "--bare", str(evil))
    archive = world.root / "archive"
    world.git("init", "-q", str(archive))
    world.git("remote", "add", "origin", str(evil), cwd=archive)
    world.git("commit", "-q", "--allow-empty", "-m", "x", cwd=archive)
    world.git("push", "-q", "origin", "HEAD:refs/heads/main", cwd=archive)
    world.git("config", "core.worktree", str(work), cwd=archive)
    for args in (["pull", "--hook"], ["sync"], ["status"]):
        run = world.gitmem("-C", str(archive), *args)
        assert "another checkout" in run.out + run.err, (args, run.out, run.err)
        assert PERSONAL not in run.out
    held = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=evil, capture_output=True
    ).stdout
    assert b"WORK-TEAM-91c2" not in held
    assert not world.git("for-each-ref", "refs/gitmem", cwd=evil).strip()


def test_a_git_link_to_another_checkouts_repository_syncs_nothing_of_it(world: World) -> None:
    """Round 9 refused a `.git` *file* naming another checkout's `.git`; a `.git` symbolic
    link to it (an archive holds links as easily) was let through: the SessionStart hook in
    the archive's folder pulled that project's personal memory, decrypted, into this folder's
    memory and the session's context. Refused the same way."""
    work = _work_checkout(world)
    archive = world.root / "archive"
    archive.mkdir()
    (archive / ".git").symlink_to(work / ".git")
    for args in (["pull", "--hook"], ["status"], ["query", "--search", PERSONAL]):
        run = world.gitmem("-C", str(archive), *args)
        assert "another checkout" in run.out + run.err, (args, run.out, run.err)
        assert PERSONAL not in run.out
    folder = world.root / "home" / ".claude" / "projects"
    assert not [p for p in _holding(folder, PERSONAL) if "archive" in p]


@pytest.mark.parametrize("spelling", ["gitdir-file", "bare-looking"])
def test_a_git_folder_of_any_name_serving_another_checkout_syncs_nothing_of_it(
    world: World, spelling: str
) -> None:
    """The same `core.worktree` in a git folder not named `.git`: one a `.git` file names
    (`gitdir: store`), or the archive's folder itself a git folder (HEAD, objects, refs,
    config). The folder gitmem starts in must lie in the work tree of the repository git
    finds from it (`identity._work_tree_holds_start`)."""
    work = _work_checkout(world)
    evil = world.root / "evil.git"
    world.git("init", "-q", "--bare", str(evil))
    archive = world.root / "archive"
    store = archive / "store" if spelling == "gitdir-file" else archive
    world.git("init", "-q", "--bare", str(store))
    world.git("config", "core.bare", "false", cwd=store)
    world.git("config", "core.worktree", str(work), cwd=store)
    world.git("remote", "add", "origin", str(evil), cwd=store)
    tree = world.git("hash-object", "-t", "tree", "-w", "--stdin", cwd=store).strip()
    commit = world.git("commit-tree", tree, "-m", "x", cwd=store).strip()
    world.git("update-ref", "refs/heads/main", commit, cwd=store)
    world.git("push", "-q", "origin", "main", cwd=store)
    if spelling == "gitdir-file":
        (archive / ".git").write_text("gitdir: store\n")
    for args in (["pull", "--hook"], ["sync"]):
        run = world.gitmem("-C", str(archive), *args)
        assert "another checkout" in run.out + run.err, (args, run.out, run.err)
    held = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=evil, capture_output=True
    ).stdout
    assert b"WORK-TEAM-91c2" not in held


# -- programs the working tree carries: a relative PATH, core.pager ---------------------------


def _marking_program(path: Path, marker: Path, then: str = "") -> None:
    """A program at `path` that notes its name in `marker` (then runs `then`, if any)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "{path.name} $*" >> "{marker}"\n{then}\n')
    path.chmod(0o755)


@pytest.mark.parametrize("entry", ["node_modules/.bin", ".", "", "bin"])
def test_a_relative_path_entry_never_runs_the_working_trees_programs(
    world: World, entry: str
) -> None:
    """The user's PATH holds a relative entry (`./node_modules/.bin`, `.`, an empty one —
    the current folder —, `bin`); Claude Code runs the hook in the project's working tree,
    and gitmem runs git there. A committed `node_modules/.bin/git` then ran at every gitmem
    command — the SessionStart hook's included — past every `-c` of SAFE_CONFIG (it was the
    git). gitmem's git is found on the absolute entries of PATH only, and every program it
    starts gets that PATH (`spawn.absolute_path`, `spawn.git_program`)."""
    from tests.support.world import teammates_sharing

    _alice, bob, _team = teammates_sharing(world)
    marker = world.root / "ran"
    real_git = subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()
    for name in ("git", "ssh", "less", "gpg"):
        _marking_program(bob / entry / name, marker, f'exec {real_git} "$@"' * (name == "git"))
    world.env["PATH"] = entry + os.pathsep + world.env["PATH"]
    for args in (["status"], ["sync"], ["pull", "--hook"], ["log", "--no-pager"]):
        run = world.gitmem(*args, cwd=bob)
        assert run.code == 0, (args, run.err)
    assert not marker.exists(), marker.read_text()[:300]


def test_a_repositorys_own_core_pager_never_runs(world: World) -> None:
    """`gitmem log`, `show` and `diff` page their output as git does — through `core.pager`
    when stdout is a terminal. A `.git/config` that came with the folder (or a committed
    file it includes) named a command there, and gitmem ran it through the shell. The pager
    comes from the user's own configuration (`pager.own_settings`); the repository's is not
    read."""
    import pty

    from tests.support.world import REPO_ROOT, teammates_sharing

    _alice, bob, _team = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    marker = world.root / "ran"
    world.git("config", "core.pager", f"echo pager >> {marker}; cat", cwd=bob)
    world.env["PAGER"] = "cat"
    for args in (["log"], ["show", "refs/gitmem/team:team/deploys.md"]):
        main, child = pty.openpty()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "gitmem", *args],
                cwd=bob,
                stdin=child,
                stdout=child,
                stderr=subprocess.PIPE,
                env={**world.env, "PYTHONPATH": str(REPO_ROOT), "TERM": "xterm"},
                timeout=60,
            )
        finally:
            os.close(child)
            os.close(main)
        assert proc.returncode == 0, (args, proc.stderr)
    assert not marker.exists()


# -- a committed .gitattributes selecting gitmem's merge drivers for the branch's code --------


@pytest.mark.parametrize(
    "attributes",
    ["* merge=gitmem-frontmatter", "*.py merge=gitmem-index", "src/** merge=gitmem-frontmatter"],
)
def test_a_committed_gitattributes_never_lets_gitmems_driver_resolve_code_conflicts(
    world: World, attributes: str
) -> None:
    """A teammate commits a `.gitattributes` naming gitmem's registered merge drivers for
    the branch's code. Every conflict in it was then resolved by the memory merge (total: it
    never leaves markers), and `git merge` committed the result without a word — one side's
    change to `src/auth.py` silently dropped (charter 1: gitmem never decides the user's
    branches). The driver merges memory files (Markdown) only; anything else is git's
    ordinary conflict (`merge/gitdriver._memory_kind`)."""
    clone = world.clone("c")
    world.ok("-C", str(clone), "drivers", "install")
    write_files(clone, {"src/auth.py": "def check(user):\n    return user.is_admin\n"})
    (clone / ".gitattributes").write_text(attributes + "\n")
    world.git("add", "-A", cwd=clone)
    world.git("commit", "-qm", "base", cwd=clone)
    world.git("checkout", "-qb", "feature", cwd=clone)
    (clone / "src" / "auth.py").write_text("def check(user):\n    return True  # debug\n")
    world.git("commit", "-qam", "feature", cwd=clone)
    world.git("checkout", "-q", "main", cwd=clone)
    (clone / "src" / "auth.py").write_text("def check(user):\n    return user.is_admin and ok\n")
    world.git("commit", "-qam", "main", cwd=clone)
    merged = subprocess.run(
        ["git", "merge", "feature", "-m", "merged"],
        cwd=clone,
        env=world.env,
        capture_output=True,
        text=True,
    )
    assert merged.returncode != 0, merged.stdout
    assert "CONFLICT" in merged.stdout
    assert "<<<<<<<" in (clone / "src" / "auth.py").read_text()


def _merge_conflicting_edits(world: World, clone: Path, path: str) -> tuple[str, str]:
    """`git merge` of two branches that edit the same line of `path`: git's output and the
    file after it."""
    write_files(clone, {path: "# Deploy\n\nRun make deploy.\n"})
    world.git("add", "-A", cwd=clone)
    world.git("commit", "-qm", "base", cwd=clone)
    world.git("checkout", "-qb", "feature", cwd=clone)
    (clone / path).write_text("# Deploy\n\nRun make deploy STAGE=prod.\n")
    world.git("commit", "-qam", "feature", cwd=clone)
    world.git("checkout", "-q", "main", cwd=clone)
    (clone / path).write_text("# Deploy\n\nRun make release.\n")
    world.git("commit", "-qam", "main", cwd=clone)
    merged = subprocess.run(
        ["git", "merge", "feature", "-m", "merged"],
        cwd=clone,
        env=world.env,
        capture_output=True,
        text=True,
    )
    return merged.stdout + merged.stderr, (clone / path).read_text()


@pytest.mark.parametrize(
    ("attributes", "path"),
    [
        ("docs/*.md merge=gitmem-frontmatter", "docs/deploy.md"),
        ("*.md merge=gitmem-frontmatter", "README.md"),
        ("CLAUDE.md merge=gitmem-index", "CLAUDE.md"),
        ("**/*.md merge=gitmem-frontmatter", "src/api/notes.md"),
    ],
)
def test_a_committed_gitattributes_never_sends_the_projects_markdown_to_the_memory_merge(
    world: World, attributes: str, path: str
) -> None:
    """Round 10 kept code out of the drivers but not Markdown: a committed `.gitattributes`
    naming gitmem's driver for the project's docs had a teammate's edit to `docs/deploy.md`
    resolved by the topic-file merge (both sides kept or a winner by recency, no marker) and
    committed without a word. The drivers merge memory only — the folders `drivers install`
    names, an index anywhere, or what the user's own attribute files send to them
    (`merge/gitdriver._memory_kind`); anything else is git's conflict, markers and all."""
    clone = world.clone("c")
    world.ok("-C", str(clone), "drivers", "install")
    (clone / ".gitattributes").write_text(attributes + "\n")
    out, text = _merge_conflicting_edits(world, clone, path)
    assert "CONFLICT" in out, out
    assert "<<<<<<<" in text and "STAGE=prod" in text and "release" in text


@pytest.mark.parametrize(
    ("install", "path"),
    [
        ([], ".claude/memory/deploy.md"),
        ([], ".claude/agent-memory/reviewer/deploy.md"),
        (["--pattern", "docs/memory/*.md"], "docs/memory/deploy.md"),
        (["--global", "--pattern", "notes/**/*.md"], "notes/a/deploy.md"),
    ],
)
def test_the_memory_gitmems_own_attributes_name_still_merges_without_markers(
    world: World, install: list[str], path: str
) -> None:
    """The other side of the same door: memory in the default folders (even when only a
    committed `.gitattributes` selects the driver) and the folders the user added with
    `drivers install --pattern` (the repository's `info/attributes`, or the global file)
    still merge through gitmem's merge, without markers."""
    clone = world.clone("c")
    world.ok("-C", str(clone), "drivers", "install", *install)
    if "--global" in install:  # the global attributes name the driver; the config, the repo's
        world.ok("-C", str(clone), "drivers", "install")
    (clone / ".gitattributes").write_text("*.md merge=gitmem-frontmatter\n")
    out, text = _merge_conflicting_edits(world, clone, path)
    assert "CONFLICT" not in out, out
    assert "<<<<<<<" not in text, text


@pytest.mark.parametrize("key", ["insteadOf", "pushInsteadOf"])
def test_a_repositorys_url_rewrite_never_sends_the_user_scope_elsewhere(
    world: World, key: str
) -> None:
    """Round 9 read the hub from the user's own configuration only; a folder's `.git/config`
    rewriting the hub's URL (`url.<evil>.insteadOf = <hub>`) would send the person's memory
    there all the same if the hub were pushed from the project's repository. Refused: the
    user scope syncs through a repository of gitmem's own, not the folder's (a guard)."""
    clone = world.clone("c")
    write_files(world.home / ".claude", {"CLAUDE.md": "person-memory\n"})
    evil = world.root / "evil.git"
    world.git("init", "-q", "--bare", str(evil))
    own_hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(own_hub))
    world.git("config", "--global", "gitmem.hub", str(own_hub))
    world.git("config", f"url.{evil}.{key}", str(own_hub), cwd=clone)
    for args in (["pull", "--hook"], ["sync"]):
        run = world.gitmem("-C", str(clone), *args)
        assert run.code == 0, (args, run.err)
    assert not world.plumb(evil, "for-each-ref", "--format=%(refname)").strip()
    assert "user%3Aclaude" in world.plumb(own_hub, "for-each-ref", "--format=%(refname)")


# -- the page in a real browser ----------------------------------------------------------------

MARKUP = (
    "<img src=x onerror=\"document.title='PWN1'\"><script>document.title='PWN2'</script>"
    "</script><svg onload=\"document.title='PWN3'\">"
)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_a_teammates_markup_never_runs_in_the_page_a_browser_renders(world: World) -> None:
    """A teammate's author name, title, description, tags, index line and text carry an
    `<img onerror>`, a `<script>`, a closing `</script>`, an `<svg onload>` and a
    `javascript:` link; `gitmem view` writes the page and headless Chromium renders it (its
    scripts run, three seconds of virtual time). No injected element reaches the DOM, the
    title is the page's own, no `javascript:` link exists (a guard: round 6 refused it by
    reading the page; this reads what a browser makes of it)."""
    import re

    from tests.support.world import teammates_sharing

    alice, bob, team = teammates_sharing(world)
    world.git("config", "user.name", MARKUP, cwd=alice)
    write_files(
        team,
        {
            "evil.md": f'---\nname: a{MARKUP}\ndescription: d{MARKUP}\ntags: ["t{MARKUP}"]\n'
            f"---\nbody {MARKUP} [l{MARKUP}](javascript:document.title='PWN4') [m](deploys.md)\n"
        },
    )
    with open(team / "MEMORY.md", "a") as fh:
        fh.write(f"- [E{MARKUP}](evil.md) — e{MARKUP}\n")
    world.ok("-C", str(alice), "push")
    world.ok("-C", str(bob), "sync")
    page = world.root / "page.html"
    world.ok("-C", str(bob), "view", "--out", str(page))
    dom = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=3000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "memory graph" in dom  # the page rendered, its script ran
    assert re.findall(r"<title>[^<]*</title>", dom)[0] == "<title>gitmem — memory graph</title>"
    assert not re.findall(r"<img[^>]*>|<svg[^>]*onload[^>]*>|<script>document", dom)
    assert 'href="javascript' not in dom


# -- the user scope's store: where gitmem keeps the person's memory ------------------------------


@pytest.mark.parametrize("data_home", ["data", "./share", ".local/share"])
def test_a_relative_data_home_never_puts_the_user_scopes_store_in_the_working_tree(
    world: World, data_home: str
) -> None:
    """Round 9 made gitmem's own configuration folder absolute; the user scope's store
    (`$XDG_DATA_HOME/gitmem/user/<agent>.git`, a git folder whose objects hold the person's
    memory — `~/.claude/CLAUDE.md` — in plaintext) still followed a relative XDG_DATA_HOME:
    the hook, run in the project's working tree, made it there, untracked, one `git add -A`
    from the branch. A relative one is ignored, as the XDG spec says
    (`core/userdirs.data_home`)."""
    clone = world.clone("c")
    write_files(world.home / ".claude", {"CLAUDE.md": f"{PERSONAL}\n"})
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    world.env["XDG_DATA_HOME"] = data_home
    for args in (["pull", "--hook"], ["sync"]):
        run = world.gitmem(*args, cwd=clone)
        assert run.code == 0, (args, run.err)
    untracked = world.git("status", "--porcelain", "--untracked-files=all", cwd=clone)
    assert "gitmem" not in untracked, untracked[:500]
    assert (world.home / ".local" / "share" / "gitmem" / "user" / "claude.git").is_dir()
    assert "user%3Aclaude" in world.plumb(hub, "for-each-ref", "--format=%(refname)")


# -- the programs git signs and verifies with -------------------------------------------------


def test_a_repositorys_own_signing_programs_never_run(world: World) -> None:
    """A `.git/config` that came with the folder sets `user.signingKey` and `gpg.program`:
    every commit of the hook's sync ran that program (`commit-tree -S`). It also sets
    `gitmem.requireSigned`, `gpg.format = ssh` and `gpg.ssh.program`: every signed commit of
    a teammate ran it to verify. The programs come from the user's own configuration, else
    git's defaults (`ObjectStore.signing_programs`); the key and the check stay the
    repository's to choose."""
    from tests.support.world import teammates_sharing

    alice, bob, team = teammates_sharing(world)
    marker = world.root / "ran"
    program = world.root / "evil"
    _marking_program(program, marker, "exit 1")
    world.git("config", "user.signingKey", "ABCDEF", cwd=bob)
    world.git("config", "gpg.program", str(program), cwd=bob)
    write_files(world.scope_path(bob, "team"), {"b.md": "---\nname: b\n---\nb\n"})
    world.gitmem("-C", str(bob), "sync")  # gpg itself fails to sign with no such key
    assert not marker.exists(), marker.read_text()
    world.git("config", "--unset", "user.signingKey", cwd=bob)
    for key, value in (
        ("gitmem.requireSigned", "true"),
        ("gpg.format", "ssh"),
        ("gpg.ssh.program", str(program)),
        ("gpg.ssh.allowedSignersFile", "/dev/null"),
    ):
        world.git("config", key, value, cwd=bob)
    alice_key = world.root / "alice-key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(alice_key)], check=True
    )
    world.git("config", "gpg.format", "ssh", cwd=alice)
    world.git("config", "user.signingKey", str(alice_key), cwd=alice)
    write_files(team, {"a2.md": "---\nname: a2\n---\na2\n"})
    world.ok("-C", str(alice), "sync")
    run = world.gitmem("-C", str(bob), "sync")
    assert "not signed by an allowed signer" in run.err  # verified, by ssh-keygen itself
    assert not marker.exists(), marker.read_text()


@pytest.mark.parametrize(
    "key", ["gpg.ssh.allowedSignersFile", "gpg.ssh.revocationFile", "user.signingKey"]
)
def test_a_fifo_a_repository_names_for_the_signature_check_never_holds_a_sync(
    world: World, key: str
) -> None:
    """A `.git/config` that came with the folder names a FIFO as the file the signature
    check or the signing opens (the allowed signers, the revoked keys, the ssh key): every
    `gitmem sync` by hand waited for ever in ssh-keygen (the hook gave up at its bound). The
    file stays the repository's to name, but one that is not a regular file is taken back
    (`ObjectStore._signing_files`): the sync ends at once, a teammate's commit not verified
    (or ours not signed), one line. A real FIFO, the sync a real process under a timeout."""
    from tests.support.world import teammates_sharing

    alice, bob, team = teammates_sharing(world)
    alice_key = world.root / "alice-key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(alice_key)], check=True
    )
    world.git("config", "gpg.format", "ssh", cwd=alice)
    world.git("config", "user.signingKey", str(alice_key), cwd=alice)
    allowed = world.root / "allowed"
    email = world.git("config", "user.email", cwd=alice).strip()
    allowed.write_text(f"{email} {(world.root / 'alice-key.pub').read_text()}")
    fifo = bob / ".git" / "held"
    os.mkfifo(fifo)
    settings = {"gpg.format": "ssh", "gitmem.requireSigned": "true"}
    settings["gpg.ssh.allowedSignersFile"] = str(allowed)
    settings[key] = str(fifo)
    for name, value in settings.items():
        world.git("config", name, value, cwd=bob)
    write_files(team, {"a2.md": "---\nname: a2\n---\na2\n"})
    world.ok("-C", str(alice), "sync")
    write_files(world.scope_path(bob, "team"), {"b.md": "---\nname: b\n---\nb\n"})
    try:
        run = world.process("-C", str(bob), "sync", timeout=40)
    except subprocess.TimeoutExpired:
        pytest.fail(f"a FIFO as {key} held the sync past 40 s")
    assert run.code != 0, run.out + run.err
    assert "Traceback" not in run.err
    assert len(run.err.strip().splitlines()) <= 3, run.err


def test_an_unpublished_personal_ref_never_leaves_in_a_bundle(world: World) -> None:
    """`gitmem unpublish personal` keeps the personal ref on this machine only (here in
    plaintext: `gitmem.encrypt off`, the user's choice); `bundle create` — a file handed to
    someone — leaves it out (a guard: refused)."""
    clone = world.clone("c")
    world.ok("-C", str(clone), "config", "encrypt", "off")
    write_files(world.scope_path(clone), {"s.md": f"---\nname: s\n---\n{PERSONAL}\n"})
    world.ok("-C", str(clone), "sync")
    world.ok("-C", str(clone), "unpublish", "personal")
    bundle = world.root / "handed.bundle"
    world.gitmem("-C", str(clone), "bundle", "create", str(bundle))
    if bundle.exists():
        fresh = world.root / "fresh.git"
        world.git("init", "-q", "--bare", str(fresh))
        world.git("fetch", "-q", str(bundle), "refs/*:refs/x/*", cwd=fresh)
        assert PERSONAL.encode() not in _remote_objects(fresh)


def _remote_objects(repo: Path) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True
    ).stdout


@pytest.mark.parametrize("kind", ["commit", "tree"])
def test_a_team_ref_at_an_annotated_tag_is_refused_whole(world: World, kind: str) -> None:
    """A hostile remote points `refs/gitmem/team` at an annotated tag (of a commit, or of a
    tree) whose content holds a symbolic link to `~/.ssh`: the peeled object is never taken
    for a memory commit (a guard: refused, GM109, nothing written)."""
    from tests.support.world import teammates_sharing

    alice, bob, _team = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    tip = world.git("rev-parse", "refs/gitmem/team", cwd=alice).strip()
    link = world.plumb(alice, "hash-object", "-w", "--stdin", data=b"/root/.ssh")
    team_tree = world.git("rev-parse", f"{tip}:team", cwd=alice).strip()
    inner = world.git("ls-tree", team_tree, cwd=alice).strip().splitlines()
    inner.append(f"120000 blob {link}\tssh.md")
    held = world.plumb(alice, "mktree", data=("\n".join(inner) + "\n").encode())
    top = [ln for ln in world.git("ls-tree", tip, cwd=alice).splitlines() if "\tteam" not in ln]
    top.append(f"040000 tree {held}\tteam")
    tree = world.plumb(alice, "mktree", data=("\n".join(top) + "\n").encode())
    commit = world.git("commit-tree", tree, "-p", tip, "-m", "x", cwd=alice).strip()
    target = commit if kind == "commit" else tree
    tag = world.plumb(
        alice,
        "mktag",
        data=f"object {target}\ntype {kind}\ntag t\ntagger T <t@e> 0 +0000\n\nm\n".encode(),
    )
    world.git("push", "-q", "-f", "origin", f"{tag}:refs/gitmem/team", cwd=alice)
    run = world.gitmem("-C", str(bob), "sync")
    assert run.code == 2 and "GM109" in run.err, run.err
    assert not (world.scope_path(bob, "team") / "ssh.md").is_symlink()


# -- git's own idea of the user's configuration ------------------------------------------------


@pytest.mark.parametrize(
    ("var", "value", "committed"),
    [
        ("XDG_CONFIG_HOME", ".cfg", ".cfg/git/config"),
        ("XDG_CONFIG_HOME", "cfg", "cfg/git/config"),
        ("GIT_CONFIG_GLOBAL", "team.gitconfig", "team.gitconfig"),
    ],
)
def test_a_relative_config_location_never_makes_a_committed_file_the_users_settings(
    world: World, var: str, value: str, committed: str
) -> None:
    """Round 9 kept gitmem's own files out of a relative XDG_CONFIG_HOME; git itself still read
    its *global* configuration from `$XDG_CONFIG_HOME/git/config` (or a relative
    GIT_CONFIG_GLOBAL) in the folder it runs in — the working tree, where the branch carries
    that file. `gitmem.encrypt = off` committed there was taken as the user's own word, and
    the hook's sync pushed personal memory in plaintext. git runs with absolute locations only
    (`spawn._user_config_absolute`): a relative one is ignored."""
    clone = world.clone("c")
    write_files(clone, {committed: "[gitmem]\n\tencrypt = off\n"})
    world.git("add", "-A", cwd=clone)
    world.git("commit", "-qm", "shared settings", cwd=clone)
    world.env[var] = value
    write_files(world.scope_path(clone), {"s.md": f"---\nname: s\n---\n{PERSONAL}\n"})
    for args in (["pull", "--hook"], ["sync"], ["push", "--hook"]):
        run = world.gitmem(*args, cwd=clone)
        assert run.code == 0, (args, run.err)
    assert PERSONAL.encode() not in _remote_objects(world.remote)


def test_a_relative_exec_path_never_runs_the_working_trees_git_programs(world: World) -> None:
    """The same class by git's own variable: a relative GIT_EXEC_PATH (`libexec`) made git
    run the working tree's `libexec/git-upload-pack` at every fetch (the hook's included).
    Ignored, as every relative location in git's environment (`spawn._user_config_absolute`)."""
    from tests.support.world import teammates_sharing

    _alice, bob, _team = teammates_sharing(world)
    marker = world.root / "ran"
    for name in ("git-upload-pack", "git-receive-pack", "git-sh-setup"):
        _marking_program(bob / "libexec" / name, marker, f'exec /usr/lib/git-core/{name} "$@"')
    world.env["GIT_EXEC_PATH"] = "libexec"
    for args in (["sync"], ["pull", "--hook"]):
        run = world.gitmem(*args, cwd=bob)
        assert run.code == 0, (args, run.err)
    assert not marker.exists(), marker.read_text()


# -- the MCP server's own children --------------------------------------------------------------


def test_the_mcp_servers_sync_never_imports_a_gitmem_package_the_branch_carries(
    world: World,
) -> None:
    """The branch carries a `gitmem/` package (`__init__.py`, `__main__.py`) at the top of the
    working tree. The MCP server, started as `gitmem hooks install --claude` registers it
    (`claudesetup.mcp_entry`, run in the project's folder as Claude Code runs it), runs gitmem
    as a child for its `sync` tool: `python -m gitmem` put the project's folder first on the
    path and the agent's `sync` call ran the branch's code. The child is started as the hooks
    are (`mcpserver.gitmem_argv`: -I and gitmem's own launcher)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from gitmem.recall.claudesetup import mcp_entry
    from tests.support.world import teammates_sharing

    _alice, bob, _team = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    marker = world.root / "ran"
    planted = f"open({str(marker)!r}, 'a').write('ran\\n')\n"
    write_files(bob, {"gitmem/__init__.py": planted, "gitmem/__main__.py": planted})
    entry = mcp_entry(bob)
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], cwd=str(bob), env=dict(world.env)
    )

    async def run() -> str:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return str((await s.call_tool("sync", {})).content)

    shown = anyio.run(run)
    assert "refs/gitmem/team" in shown, shown[:300]
    assert not marker.exists()


def test_a_relative_state_home_never_puts_the_hooks_memo_in_the_working_tree(
    world: World,
) -> None:
    """`gitmem hooks install` remembers the bytes of the Claude Code settings it edits (the
    user's `~/.claude/settings.json`: its `env` may hold tokens) under XDG_STATE_HOME; a
    relative one put that memo in the folder the install ran in — the working tree,
    untracked. Absolute only (`core/userdirs.state_home`)."""
    clone = world.clone("c")
    write_files(world.home / ".claude", {"settings.json": '{"env": {"TOKEN": "t-123"}}\n'})
    world.env["XDG_STATE_HOME"] = "state"
    run = world.gitmem("hooks", "install", "--claude", cwd=clone)
    assert run.code == 0, run.err
    untracked = world.git("status", "--porcelain", "--untracked-files=all", cwd=clone)
    assert "state/" not in untracked, untracked
    assert list((world.home / ".local" / "state" / "gitmem" / "hooks").glob("*.json"))


def test_a_relative_xdg_config_home_never_makes_the_branch_an_agents_user_memory(
    world: World,
) -> None:
    """With `gitmem.agents` naming goose, a relative XDG_CONFIG_HOME (`cfg`) made goose's user
    memory folder `<working tree>/cfg/goose/memory` — a folder the branch carries, which would
    reach the person's hub and every machine's real goose memory. A relative XDG_CONFIG_HOME
    is ignored, as the XDG spec says (`core/userdirs`, newcomer 10): goose's folder is the
    default one under HOME, and nothing of the planted folder is synced."""
    clone = world.clone("c")
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    world.git("config", "--global", "gitmem.agents", "claude,goose")
    write_files(clone, {"cfg/goose/memory/notes.txt": "planted goose memory\n"})
    world.env["XDG_CONFIG_HOME"] = "cfg"
    run = world.gitmem("sync", cwd=clone)
    assert run.code == 0, run.err
    assert "cfg/goose" not in run.out + run.err
    assert "user%3Agoose" not in world.plumb(hub, "for-each-ref", "--format=%(refname)")


@pytest.mark.parametrize("include", ["include.path", "includeIf.gitdir:{clone}/.path"])
def test_the_users_own_config_including_a_committed_file_never_takes_gitmem_settings_from_it(
    world: World, include: str
) -> None:
    """A company ships shared git settings in the repository and asks each developer to
    include them from their *global* configuration (`[includeIf "gitdir:~/work/"] path =
    ~/work/repo/tools/gitconfig`). Round 6 left out gitmem settings a repository's own config
    took from a file of the working tree; the same file included from the global config was
    the user's own word: `gitmem.encrypt = off` committed there pushed personal memory in
    plaintext. gitmem's settings (and the programs it takes from the user alone) are never
    read from a file of the working tree, whichever configuration includes it
    (`GitDir._set_config`; a home folder kept in git keeps its own global file)."""
    clone = world.clone("c")
    write_files(clone, {"tools/gitconfig": "[gitmem]\n\tencrypt = off\n"})
    world.git("add", "-A", cwd=clone)
    world.git("commit", "-qm", "shared settings", cwd=clone)
    world.git("config", "--global", include.format(clone=clone), str(clone / "tools/gitconfig"))
    write_files(world.scope_path(clone), {"s.md": f"---\nname: s\n---\n{PERSONAL}\n"})
    world.ok("-C", str(clone), "sync")
    assert PERSONAL.encode() not in _remote_objects(world.remote)
    assert "gitmem.encrypt from" in world.gitmem("-C", str(clone), "doctor").out
