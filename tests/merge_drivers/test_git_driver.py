"""The driver under real git: merge, rebase, cherry-pick and merge-tree finish without markers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

MEM = ".claude/agent-memory/reviewer"
DRIVER = f"{sys.executable} -m gitmem.merge.gitdriver %O %A %B %L %P"
ROOT = Path(__file__).resolve().parents[2]


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=check
    )


def write(repo: Path, name: str, text: str) -> None:
    path = repo / MEM / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def index(*lines: str) -> str:
    return "# Memory\n" + "".join(f"{ln}\n" for ln in lines)


def topic(modified: str, tags: str, body: str = "alpha body\n") -> str:
    return (
        f"---\nname: alpha\ndescription: first\ntype: project\nmodified: {modified}\n"
        f"tags: [{tags}]\n---\n{body}"
    )


def build_branches(r: Path) -> None:
    """main and left, each editing MEMORY.md and alpha.md since their common base."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(r)], check=True)
    git(r, "config", "user.name", "T")
    git(r, "config", "user.email", "t@example.com")
    write(r, "MEMORY.md", index("- [Alpha](alpha.md) — first", "- [Beta](beta.md) — second"))
    write(r, "alpha.md", topic("2026-01-01T00:00:00Z", "a"))
    git(r, "add", "-A")
    git(r, "commit", "-qm", "base")
    git(r, "checkout", "-qb", "left")
    write(
        r,
        "MEMORY.md",
        index(
            "- [Alpha](alpha.md) — first, refined on left",
            "- [Beta](beta.md) — second",
            "- [Left](left.md) — only left",
        ),
    )
    write(r, "alpha.md", topic("2026-03-01T00:00:00Z", "a, left"))
    git(r, "commit", "-qam", "left")
    git(r, "checkout", "-q", "main")
    write(
        r,
        "MEMORY.md",
        index(
            "- [Alpha](alpha.md) — first, refined on main",
            "- [Beta](beta.md) — second",
            "- [Main](main.md) — only main",
        ),
    )
    write(r, "alpha.md", topic("2026-02-01T00:00:00Z", "a, main"))
    git(r, "commit", "-qam", "main")


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The branches built once; each test gets a copy (a dozen git runs saved per test)."""
    root = tmp_path_factory.mktemp("driver-template")
    with pytest.MonkeyPatch.context() as mp:  # session scope: before the autouse isolation
        for key in [k for k in os.environ if k.startswith("GIT_")]:
            mp.delenv(key)
        mp.setenv("HOME", str(root / "home"))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        build_branches(root / "repo")
    return root / "repo"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, template: Path) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = tmp_path / "repo"
    shutil.copytree(template, r, symlinks=True)
    return r


def install(r: Path) -> None:
    git(r, "config", "merge.gitmem-index.name", "gitmem index")
    git(r, "config", "merge.gitmem-index.driver", DRIVER)
    git(r, "config", "merge.gitmem-frontmatter.name", "gitmem frontmatter")
    git(r, "config", "merge.gitmem-frontmatter.driver", DRIVER)
    info = r / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text(
        "MEMORY.md merge=gitmem-index\n**/MEMORY.md merge=gitmem-index\n"
        ".claude/agent-memory/**/*.md merge=gitmem-frontmatter\n"
        ".claude/agent-memory/**/MEMORY.md merge=gitmem-index\n"
    )


def check_merged(text_index: str, text_topic: str) -> None:
    assert "<<<<<<<" not in text_index + text_topic
    for e in ("alpha.md", "beta.md", "left.md", "main.md"):
        assert f"({e})" in text_index
    assert text_index.count("(alpha.md)") == 1
    assert "refined on left" in text_index  # left's alpha.md is newer
    assert "tags: [a, left, main]" in text_topic
    assert "modified: 2026-03-01T00:00:00Z" in text_topic


def test_merge_with_drivers_is_clean_and_symmetric(repo: Path) -> None:
    install(repo)
    git(repo, "merge", "-q", "--no-edit", "left")
    check_merged((repo / MEM / "MEMORY.md").read_text(), (repo / MEM / "alpha.md").read_text())
    merged = git(repo, "rev-parse", f"HEAD:{MEM}/MEMORY.md").stdout
    git(repo, "reset", "-q", "--hard", "main@{1}")
    git(repo, "checkout", "-q", "left")
    git(repo, "merge", "-q", "--no-edit", "main")
    assert git(repo, "rev-parse", f"HEAD:{MEM}/MEMORY.md").stdout == merged


def test_without_drivers_the_same_merge_conflicts(repo: Path) -> None:
    result = git(repo, "merge", "-q", "--no-edit", "left", check=False)
    assert result.returncode != 0
    assert "<<<<<<<" in (repo / MEM / "MEMORY.md").read_text()


def test_rebase_with_drivers_finishes(repo: Path) -> None:
    install(repo)
    git(repo, "checkout", "-q", "left")
    git(repo, "rebase", "-q", "main")
    check_merged((repo / MEM / "MEMORY.md").read_text(), (repo / MEM / "alpha.md").read_text())


def test_cherry_pick_with_drivers_finishes(repo: Path) -> None:
    install(repo)
    git(repo, "cherry-pick", "left")
    text = (repo / MEM / "MEMORY.md").read_text()
    assert "<<<<<<<" not in text
    for e in ("alpha.md", "beta.md", "left.md", "main.md"):
        assert f"({e})" in text


def test_merge_tree_with_drivers_writes_a_clean_tree(repo: Path) -> None:
    install(repo)
    result = git(repo, "merge-tree", "--write-tree", "main", "left", check=False)
    assert result.returncode == 0, result.stdout
    tree = result.stdout.split()[0]
    text = git(repo, "show", f"{tree}:{MEM}/MEMORY.md").stdout
    assert "<<<<<<<" not in text
    for e in ("alpha.md", "beta.md", "left.md", "main.md"):
        assert f"({e})" in text
    swapped = git(repo, "merge-tree", "--write-tree", "left", "main").stdout.split()[0]
    assert (
        git(repo, "rev-parse", f"{swapped}:{MEM}/MEMORY.md").stdout
        == git(repo, "rev-parse", f"{tree}:{MEM}/MEMORY.md").stdout
    )


def test_driver_keeps_overflow_inside_the_index(repo: Path) -> None:
    install(repo)
    many = [f"- [E{i}](e{i}.md) — entry {i}" for i in range(230)]
    git(repo, "checkout", "-q", "left")
    write(repo, "MEMORY.md", index(*many[:220], "- [Left](left.md) — only left"))
    git(repo, "commit", "-qam", "left many")
    git(repo, "checkout", "-q", "main")
    write(repo, "MEMORY.md", index(*many[10:], "- [Main](main.md) — only main"))
    git(repo, "commit", "-qam", "main many")
    git(repo, "merge", "-q", "--no-edit", "left")
    text = (repo / MEM / "MEMORY.md").read_text()
    from merge_drivers.index import measure, parse

    lines, chars = measure(parse(text).items)
    assert lines <= 200 and chars <= 25_000
    for i in range(230):
        assert f"(e{i}.md)" in text
    assert "<!-- gitmem:archive" in text


def test_driver_exits_non_zero_when_it_cannot_read_or_the_files_are_binary(
    tmp_path: Path,
) -> None:
    o = tmp_path / "o"
    o.write_bytes(b"")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = [sys.executable, "-m", "merge_drivers"]

    def driver(ours: bytes, theirs: bytes, name: str) -> tuple[int, bytes]:
        a, b = tmp_path / "a", tmp_path / "b"
        a.write_bytes(ours)
        b.write_bytes(theirs)
        proc = subprocess.run([*run, str(o), str(a), str(b), "7", name], env=env, check=False)
        return proc.returncode, a.read_bytes()

    # damaged text (a NUL, a Latin-1 byte) is still text: merged, exit 0
    code, data = driver(b"caf\xe9 \x00 ours\n", b"other \x00 bytes\n", f"{MEM}/x.md")
    assert code == 0 and b"caf\xe9 \x00 ours\n" in data and b"other \x00 bytes\n" in data
    # real binary: exit 1, ours left as it was so git reports the conflict
    binary = bytes(range(256)) * 4
    code, data = driver(binary, binary[::-1], f"{MEM}/x.md")
    assert code == 1 and data == binary
    # two edits that together remove every line: a removal, written as the empty file git keeps
    o.write_bytes(b"# API\n\nalpha one\n\nbeta two\n")
    code, data = driver(b"# API\n", b"\nalpha one\n\nbeta two\n", ".claude/memory/team/api.md")
    assert code == 0 and data == b""
    missing = subprocess.run(
        [
            *run,
            str(tmp_path / "nope"),
            str(tmp_path / "a"),
            str(tmp_path / "b"),
            "7",
            f"{MEM}/x.md",
        ],
        env=env,
        check=False,
        capture_output=True,
    )
    assert missing.returncode == 1


def commit_on(r: Path, branch: str, name: str, data: bytes) -> None:
    git(r, "checkout", "-q", branch)
    (r / MEM / name).write_bytes(data)
    git(r, "add", "-A")
    git(r, "commit", "-qm", f"{branch}: {name}")


@pytest.mark.parametrize("direction", ["main<-left", "left<-main"])
def test_git_merge_binary_memory_conflicts_instead_of_dropping_a_side(
    repo: Path, direction: str
) -> None:
    install(repo)
    blob = bytes(range(256)) * 4
    commit_on(repo, "main", "diagram.md", blob)
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "diagram.md", blob[::-1])
    commit_on(repo, "main", "diagram.md", blob[1:])
    into, other = direction.split("<-")
    git(repo, "checkout", "-q", into)
    result = git(repo, "merge", "-q", "--no-edit", other, check=False)
    assert result.returncode != 0
    assert "diagram.md" in git(repo, "diff", "--name-only", "--diff-filter=U").stdout


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_merge_and_rebase_keep_both_edits_of_latin1_text_and_ignore_crlf(
    repo: Path, op: str
) -> None:
    install(repo)
    base = b"# Notes\n\ncaf\xe9 one\ntwo\nthree\n"
    commit_on(repo, "main", "notes.md", base)
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "notes.md", base.replace(b"three", b"THREE") + b"four\n")
    commit_on(repo, "main", "notes.md", base.replace(b"\n", b"\r\n").replace(b"one", b"ONE"))
    results = []
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        if op == "merge":
            git(repo, "merge", "-q", "--no-edit", other)
        else:
            git(repo, "rebase", "-q", other)
        results.append((repo / MEM / "notes.md").read_bytes())
        git(repo, "reset", "-q", "--hard", start)
    assert results[0] == results[1]
    assert results[0].replace(b"\r\n", b"\n") == b"# Notes\n\ncaf\xe9 ONE\ntwo\nTHREE\nfour\n"


BASE_INDEX = (
    "# Memory\n\nSome prose about the project.\n\n"
    "- [Alpha](alpha.md) — first\n- [Beta](beta.md) — second\n- [Gamma](gamma.md) — third\n"
    "\n## Feedback\n- [Delta](delta.md) — fourth\n"
)
BRANCH_EDITS = {
    # alpha edited (two sides: a conflict), gamma deleted here and edited on b (restored),
    # a paragraph added next to the prose, one entry added on two branches, a new section,
    # duplicates, and beta deleted on c.
    "a": BASE_INDEX.replace("— first", "— first, per a")
    .replace("- [Gamma](gamma.md) — third\n", "")
    .replace("project.\n", "project.\n\nMore prose, from a.\n")
    .replace("## Feedback\n", "## Feedback\n- [Left](left.md) — from a\n"),
    "b": BASE_INDEX.replace("— first", "— first, per b")
    .replace("— third", "— third, refined")
    .replace("- [Alpha]", "- [Delta](delta.md) — fourth\n- [Alpha]")
    + "\n## Notes\n- [Note](note.md) — from b\n",
    "c": BASE_INDEX.replace("- [Beta](beta.md) — second\n", "").replace(
        "project.\n", "project.\nSome prose about the project.\n"
    )
    + "- [Left](left.md) — from c\n- [Epsilon](epsilon.md) — fifth\n",
}


def test_three_clones_merging_in_different_orders_end_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three clones, each on one branch, `git merge` the other two in a different order with the
    driver registered: MEMORY.md ends byte-identical (same tree, whatever the history)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    origin = tmp_path / "origin"
    subprocess.run(["git", "init", "-q", "-b", "main", str(origin)], check=True)
    git(origin, "config", "user.name", "T")
    git(origin, "config", "user.email", "t@example.com")
    write(origin, "MEMORY.md", BASE_INDEX)
    for name in ("alpha", "beta", "gamma", "delta"):
        write(origin, f"{name}.md", topic("2026-01-01T00:00:00Z", name))
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "base")
    for branch, text in BRANCH_EDITS.items():
        git(origin, "checkout", "-qb", branch, "main")
        write(origin, "MEMORY.md", text)
        git(origin, "commit", "-qam", branch)
    results = []
    for start, first, second in (("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")):
        clone = tmp_path / f"clone-{start}"
        subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
        git(clone, "config", "user.name", "T")
        git(clone, "config", "user.email", "t@example.com")
        git(clone, "config", "merge.gitmem-index.driver", DRIVER)
        (clone / ".git" / "info" / "attributes").write_text("**/MEMORY.md merge=gitmem-index\n")
        git(clone, "checkout", "-q", start)
        for other in (first, second):
            git(clone, "merge", "-q", "--no-edit", f"origin/{other}")
        results.append((clone / MEM / "MEMORY.md").read_bytes())
    assert results[0] == results[1] == results[2], results
    text = results[0].decode()
    assert "<<<<<<<" not in text
    assert "— third, refined" in text and "(beta.md)" not in text  # restored; deleted
    for target in ("alpha", "delta", "left", "note", "epsilon"):
        assert text.count(f"({target}.md)") == 1
    assert "More prose, from a." in text and "## Notes" in text


def merged_both_ways(repo: Path, op: str) -> Iterator[tuple[str, str]]:
    """(the branch merged into, its MEMORY.md after `git merge` or `git rebase` of the other)
    for main <- left and left <- main; each is undone before the next."""
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, op, "-q", *(["--no-edit"] if op == "merge" else []), other)
        yield into, (repo / MEM / "MEMORY.md").read_text()
        git(repo, "reset", "-q", "--hard", start)


def commit_at(r: Path, branch: str, files: dict[str, str], when: int) -> None:
    git(r, "checkout", "-q", branch)
    for name, text in files.items():
        write(r, name, text)
    git(r, "add", "-A")
    date = f"@{when} +0000"
    subprocess.run(
        ["git", "-C", str(r), "commit", "-qm", f"{branch} at {when}"],
        check=True,
        env={**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date},
    )


@pytest.mark.parametrize("op", ["merge", "rebase"])
@pytest.mark.parametrize("newer", ["main", "left"])
def test_the_driver_ranks_by_commit_time_when_files_carry_no_date(
    repo: Path, op: str, newer: str
) -> None:
    """No `modified:` anywhere: the side whose commit changed the file last wins the line both
    rewrote (topic body and index hook), whichever side is ours — not the greater bytes."""
    install(repo)
    base = {"MEMORY.md": index("- [Notes](notes.md) — notes"), "notes.md": "one\ntwo\n"}
    commit_at(repo, "main", base, 1_800_000_000)
    git(repo, "branch", "-f", "left", "main")
    edits = {
        "main": {"MEMORY.md": index("- [Notes](notes.md) — notes, zz main"), "notes.md": "zz\n"},
        "left": {"MEMORY.md": index("- [Notes](notes.md) — notes, aa left"), "notes.md": "aa\n"},
    }
    older = "left" if newer == "main" else "main"
    commit_at(
        repo,
        older,
        {k: v + ("two\n" if k == "notes.md" else "") for k, v in edits[older].items()},
        1_800_000_100,
    )
    commit_at(
        repo,
        newer,
        {k: v + ("two\n" if k == "notes.md" else "") for k, v in edits[newer].items()},
        1_800_000_200,
    )
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, op, "-q", *(["--no-edit"] if op == "merge" else []), other)
        text = (repo / MEM / "MEMORY.md").read_text()
        assert f"notes, {'zz main' if newer == 'main' else 'aa left'}\n" in text, (into, text)
        assert (repo / MEM / "notes.md").read_text() == edits[newer]["notes.md"] + "two\n"
        git(repo, "reset", "-q", "--hard", start)


@pytest.mark.parametrize("newer", ["main", "left"])
def test_a_cherry_picked_sequence_ranks_by_the_picked_commits_time(repo: Path, newer: str) -> None:
    """`git cherry-pick main..left` names the commit it picks only in `sequencer/todo`: the
    driver reads it there, so the side whose commit changed the file last wins the line both
    rewrote — not the greater bytes ("zz main" would beat "aa left" on bytes)."""
    install(repo)
    base = {"MEMORY.md": index("- [Notes](notes.md) — notes"), "notes.md": "one\ntwo\n"}
    commit_at(repo, "main", base, 1_800_000_000)
    git(repo, "branch", "-f", "left", "main")
    edits = {
        "main": {"MEMORY.md": index("- [Notes](notes.md) — notes, zz main"), "notes.md": "zz\n"},
        "left": {"MEMORY.md": index("- [Notes](notes.md) — notes, aa left"), "notes.md": "aa\n"},
    }
    when = {newer: 1_800_000_200, "main" if newer == "left" else "left": 1_800_000_100}
    for branch in ("main", "left"):
        commit_at(repo, branch, {k: v + "two\n" for k, v in edits[branch].items()}, when[branch])
    commit_at(repo, "left", {"other.md": "unrelated\n"}, 1_800_000_300)  # a sequence of two
    git(repo, "checkout", "-q", "main")
    git(repo, "cherry-pick", "main..left")
    text = (repo / MEM / "MEMORY.md").read_text()
    assert f"notes, {'zz main' if newer == 'main' else 'aa left'}\n" in text, text
    assert (repo / MEM / "notes.md").read_text() == edits[newer]["notes.md"] + "two\n"
    assert (repo / MEM / "other.md").exists()


INTRO_INDEX = (
    "<!-- team memory: keep entries short -->\n# Memory\n\nThese are the build notes:\n"
    "one line per step,\nread them before a release.\n\n- [A](a.md) — a\n- [B](b.md) — b\n"
)


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_keeps_edited_paragraphs_and_comments_in_place(repo: Path, op: str) -> None:
    """One side edits the header comment and the first line of the intro paragraph, the other
    its last line and adds an entry: one copy of each block, in place, the same bytes whichever
    side is ours."""
    install(repo)
    commit_on(repo, "main", "MEMORY.md", INTRO_INDEX.encode())
    git(repo, "branch", "-f", "left", "main")
    left = INTRO_INDEX.replace("short", "short and linked").replace(
        "notes:", "notes, newest first:"
    )
    right = INTRO_INDEX.replace("a release", "any release") + "- [C](c.md) — c\n"
    commit_on(repo, "left", "MEMORY.md", left.encode())
    commit_on(repo, "main", "MEMORY.md", right.encode())
    expected = left.replace("a release", "any release") + "- [C](c.md) — c\n"
    for into, text in merged_both_ways(repo, op):
        assert text == expected, (into, op)


SECTIONED = "# Memory\n\n## Build\n- Run tests with -x\n- make -j8\n\n## Testing\n- keep it short\n"


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_keeps_the_same_plain_bullet_in_two_sections(repo: Path, op: str) -> None:
    install(repo)
    commit_on(repo, "main", "MEMORY.md", SECTIONED.encode())
    git(repo, "branch", "-f", "left", "main")
    left = SECTIONED.replace("- keep it short\n", "- keep it short\n- Run tests with -x\n")
    right = SECTIONED.replace("- make -j8\n", "- make -j8\n- lint first\n")
    commit_on(repo, "left", "MEMORY.md", left.encode())
    commit_on(repo, "main", "MEMORY.md", right.encode())
    expected = left.replace("- make -j8\n", "- make -j8\n- lint first\n")
    for into, text in merged_both_ways(repo, op):
        assert text == expected, (into, op)


FLAT = "# Memory\n\n- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n"


@pytest.mark.parametrize("op", ["merge", "rebase"])
@pytest.mark.parametrize("moved", [False, True], ids=["in-place", "moved"])
def test_git_keeps_a_regrouping_under_new_headings(repo: Path, op: str, moved: bool) -> None:
    """The issue's regrouping through git with the drivers: headings written above entries
    (in place, or with an entry moved into another group) on one branch, an entry appended
    and another edited on the other. The groups stay, the edit lands inside them, the appended
    entry stays in no group; the same bytes whichever branch is checked out."""
    install(repo)
    commit_on(repo, "main", "MEMORY.md", FLAT.encode())
    git(repo, "branch", "-f", "left", "main")
    if moved:
        left = "# Memory\n\n## Setup\n\n- [A](a.md) — a\n- [C](c.md) — c\n\n## Ship\n\n- [B](b.md) — b\n"
    else:
        left = FLAT.replace("- [A]", "## Setup\n\n- [A]").replace("- [C]", "\n## Ship\n\n- [C]")
    right = FLAT.replace("— b\n", "— b, edited\n") + "- [D](d.md) — d\n"
    commit_on(repo, "left", "MEMORY.md", left.encode())
    commit_on(repo, "main", "MEMORY.md", right.encode())
    expected = left.replace("— b\n", "— b, edited\n").replace(
        "# Memory\n", "# Memory\n- [D](d.md) — d\n", 1
    )
    # moved: the edited entry takes the blank line of its new place under `## Ship` (round
    # 22; before, it brought its side's spacing and the heading stood right over it)
    for into, text in merged_both_ways(repo, op):
        assert text == expected, (into, op)


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_keeps_a_renamed_heading_over_its_entries(repo: Path, op: str) -> None:
    """`## Build` renamed `## Building` on one branch, an entry appended to the last section
    on the other: one heading, the new title, its entries under it, both directions."""
    install(repo)
    base = "# Memory\n\n## Build\n\n- [A](a.md) — a\n\n## Test\n\n- [T](t.md) — t\n"
    commit_on(repo, "main", "MEMORY.md", base.encode())
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "MEMORY.md", base.replace("## Build", "## Building").encode())
    commit_on(repo, "main", "MEMORY.md", (base + "- [C](c.md) — c\n").encode())
    expected = base.replace("## Build", "## Building") + "- [C](c.md) — c\n"
    for into, text in merged_both_ways(repo, op):
        assert text == expected, (into, op)


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_merges_an_edited_plain_bullet_with_a_sub_bullet_under_it(repo: Path, op: str) -> None:
    """`-j8` → `-j16` on one branch, a sub-bullet under that bullet and an entry appended on
    the other: one bullet with both, in place, both directions."""
    install(repo)
    base = "# Memory\n\n## Build\n- Use make -j8 for every build\n- Lint with ruff first\n"
    commit_on(repo, "main", "MEMORY.md", base.encode())
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "MEMORY.md", base.replace("-j8", "-j16").encode())
    right = base.replace("build\n", "build\n  - CI uses -j4\n") + "- [D](d.md) — d\n"
    commit_on(repo, "main", "MEMORY.md", right.encode())
    expected = right.replace("-j8", "-j16")
    for into, text in merged_both_ways(repo, op):
        assert text == expected, (into, op)


PLAIN = "# Memory\n- zeta\n- alpha\n- mid\n"


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_keeps_headings_written_above_plain_bullets_in_order(repo: Path, op: str) -> None:
    """Headings written above plain bullets without moving them on one side, a bullet appended
    on the other: the groups stay, their bullets in the order written (not sorted by text)."""
    install(repo)
    commit_on(repo, "main", "MEMORY.md", PLAIN.encode())
    git(repo, "branch", "-f", "left", "main")
    left = "# Memory\n## Tools\n- zeta\n- alpha\n## Ship\n- mid\n"
    commit_on(repo, "left", "MEMORY.md", left.encode())
    commit_on(repo, "main", "MEMORY.md", (PLAIN + "- delta\n").encode())
    expected = left.replace("## Tools", "- delta\n## Tools")
    for into, text in merged_both_ways(repo, op):
        assert text == expected, (into, op)


@pytest.mark.slow
def test_the_driver_archives_the_oldest_entries_not_the_first_in_the_alphabet(repo: Path) -> None:
    """Over the caps, the driver's archive comment takes the entries whose topic files were
    committed longest ago (git log), though their names sort last."""
    install(repo)
    commit_at(repo, "main", {"MEMORY.md": index()}, 1_800_000_000)
    git(repo, "branch", "-f", "left", "main")
    line = "- [{0}]({0}.md) — a fact about {0} worth keeping in mind"
    older = [f"z{i:03}" for i in range(110)]
    newer = [f"a{i:03}" for i in range(110)]
    for branch, names, when in (("left", older, 1_800_000_100), ("main", newer, 1_800_000_200)):
        files = {f"{n}.md": f"about {n}\n" for n in names}
        files["MEMORY.md"] = index(*(line.format(n) for n in names))
        commit_at(repo, branch, files, when)
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, "merge", "-q", "--no-edit", other)
        text = (repo / MEM / "MEMORY.md").read_text()
        loaded, parked = text.split("<!-- gitmem:archive", 1)
        assert all(f"({n}.md)" in loaded for n in newer), into
        assert all(f"({n}.md)" in text for n in older)
        assert "(z000.md)" in parked and "(a000.md)" not in parked
        git(repo, "reset", "-q", "--hard", start)


def test_git_keeps_headings_both_sides_inserted_the_same(repo: Path) -> None:
    """The same headings inserted above the same entries on both branches (one also appends
    an entry, the other edits one): an agreed change, kept in both merge directions."""
    install(repo)
    commit_on(repo, "main", "MEMORY.md", FLAT.encode())
    git(repo, "branch", "-f", "left", "main")
    grouped = FLAT.replace("- [A]", "## Setup\n- [A]").replace("- [C]", "\n## Ship\n- [C]")
    commit_on(repo, "left", "MEMORY.md", (grouped + "- [D](d.md) — d\n").encode())
    commit_on(repo, "main", "MEMORY.md", grouped.replace("— b\n", "— b, edited\n").encode())
    expected = grouped.replace("— b\n", "— b, edited\n") + "- [D](d.md) — d\n"
    for into, text in merged_both_ways(repo, "merge"):
        assert text == expected, into


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_keeps_an_edit_of_the_last_line_and_a_line_appended_after_it(
    repo: Path, op: str
) -> None:
    """git alone conflicts here (one overlapping hunk); the driver keeps both, both ways."""
    install(repo)
    base = b"---\nname: build\ndescription: how to build\n---\nRun make.\nUse -j8.\n"
    commit_on(repo, "main", "build.md", base)
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "build.md", base.replace(b"-j8", b"-j16"))
    commit_on(repo, "main", "build.md", base + b"Then make test.\n")
    expected = base.replace(b"-j8", b"-j16") + b"Then make test.\n"
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, op, "-q", *(["--no-edit"] if op == "merge" else []), other)
        assert (repo / MEM / "build.md").read_bytes() == expected, (into, op)
        git(repo, "reset", "-q", "--hard", start)


FENCE_BASE = (
    "---\nname: release\ndescription: how we release\nconfidence: 0.5\n---\n"
    "Release steps:\n\n```sh\nmake test\nbump-version.sh patch\ngit push\n```\n\n"
    "| tool | version | owner |\n|:-----|:-------:|------:|\n| ruff | 0.4 | ana |\n\n"
    "The deploy script reads the token from the vault and retries three times.\n"
)
FINE_EDITS = {  # neighbouring lines, cells of one row, a re-wrap against a word (issue 24)
    "main": FENCE_BASE.replace("make test\n", "make test lint\n")
    .replace("| 0.4 |", "| 0.5 |")
    .replace("token from", "token\nfrom")
    .replace("confidence: 0.5", "confidence: 0.9"),
    "left": FENCE_BASE.replace("patch", "minor")
    .replace("| ana |", "| bo |")
    .replace("three", "five"),
}


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_merge_keeps_edits_of_neighbouring_lines_cells_and_words(repo: Path, op: str) -> None:
    install(repo)
    commit_on(repo, "main", "release.md", FENCE_BASE.encode())
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "release.md", FINE_EDITS["left"].encode())
    commit_on(repo, "main", "release.md", FINE_EDITS["main"].encode())
    results = []
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        if op == "merge":
            git(repo, "merge", "-q", "--no-edit", other)
        else:
            git(repo, "rebase", "-q", other)
        results.append((repo / MEM / "release.md").read_text(encoding="utf-8"))
        git(repo, "reset", "-q", "--hard", start)
    assert results[0] == results[1]
    assert results[0] == (
        FINE_EDITS["main"]
        .replace("patch", "minor")
        .replace("| ana |", "| bo |")
        .replace("three", "five")
    )


LOG_BASE = (
    "---\nname: log\ndescription: what happened\n---\n"
    "Tools:\n\n- ruff\n- mypy\n\n## 2026-11-19\n\nfirst release\n"
)
LOG_EDITS = {  # a list rewritten vs an item appended; a dated block each (issue 24)
    "main": LOG_BASE.replace("- ruff\n- mypy\n", "- ruff (lint)\n- mypy (types)\n")
    + "\n## 2026-11-21\n\nfrom main\n",
    "left": LOG_BASE.replace("- mypy\n", "- mypy\n- pytest\n") + "\n## 2026-11-20\n\nfrom left\n",
}


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_merge_keeps_a_list_whole_and_a_log_in_time_order(repo: Path, op: str) -> None:
    install(repo)
    commit_on(repo, "main", "log.md", LOG_BASE.encode())
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "log.md", LOG_EDITS["left"].encode())
    commit_on(repo, "main", "log.md", LOG_EDITS["main"].encode())
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, op, "-q", *(["--no-edit"] if op == "merge" else []), other)
        text = (repo / MEM / "log.md").read_text(encoding="utf-8")
        assert "- ruff (lint)\n- mypy (types)\n- pytest\n\n## 2026-11-19" in text, (into, op)
        assert text.endswith(
            "## 2026-11-19\n\nfirst release\n\n## 2026-11-20\n\nfrom left\n\n"
            "## 2026-11-21\n\nfrom main\n"
        ), (into, op)
        git(repo, "reset", "-q", "--hard", start)


TOPIC_BODY = (
    "---\nname: notes\ndescription: release notes\n---\n# Notes\n\n## Build\n\n"
    "```sh\nmake all\nmake test\n```\n\n## Deploy\n\n- ssh prod\n- restart\n- check logs\n\n"
    "## Test\n\n| tool | flags |\n|:--|--:|\n| pytest | -x |\n"
)


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_merges_a_topic_file_moved_on_one_branch_and_edited_on_the_other(
    repo: Path, op: str
) -> None:
    """A section and a bullet moved on one branch; on the other the moved ones edited, a cell
    changed and a line inserted right after a code line the first branch edited: moved AND
    edited, both code lines, the same bytes whichever branch is ours (issue 24)."""
    install(repo)
    commit_on(repo, "main", "notes.md", TOPIC_BODY.encode())
    git(repo, "branch", "-f", "left", "main")
    moved = TOPIC_BODY.replace(
        "- ssh prod\n- restart\n- check logs\n", "- check logs\n- ssh prod\n- restart\n"
    ).replace("make test\n", "make test -j8\n")
    test_section = "## Test\n\n| tool | flags |\n|:--|--:|\n| pytest | -x |\n"
    moved = moved.replace("\n\n" + test_section, "\n").replace(
        "# Notes\n\n", "# Notes\n\n" + test_section + "\n"
    )
    edited = (
        TOPIC_BODY.replace("- check logs", "- check logs for errors")
        .replace("| -x |", "| -x -q |")
        .replace("make test\n", "make test\nmake lint\n")
    )
    commit_on(repo, "left", "notes.md", moved.encode())
    commit_on(repo, "main", "notes.md", edited.encode())
    expected = (
        moved.replace("- check logs", "- check logs for errors")
        .replace("| -x |", "| -x -q |")
        .replace("make test -j8\n", "make test -j8\nmake lint\n")
    )
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, op, "-q", *(["--no-edit"] if op == "merge" else []), other)
        assert (repo / MEM / "notes.md").read_text() == expected, (into, op)
        git(repo, "reset", "-q", "--hard", start)


@pytest.mark.parametrize("op", ["merge", "rebase"])
def test_git_merges_moved_nested_items_steps_and_subsections_edited_on_the_other_branch(
    repo: Path, op: str
) -> None:
    """A nested item, a numbered step and a sub-section moved (to another section) and a
    section deleted on one branch; each edited on the other: moved AND edited, once, the
    deleted section back with its heading, the same bytes whichever branch is ours (#24)."""
    from tests.e2e.test_block_merges_in_sync import (
        EVERYDAY,
        EVERYDAY_MERGED,
        REORGANIZED,
        REWORDED,
    )

    head = "---\nname: release\ndescription: how we release\n---\n"
    install(repo)
    commit_on(repo, "main", "release.md", (head + EVERYDAY).encode())
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "release.md", (head + REORGANIZED).encode())
    commit_on(repo, "main", "release.md", (head + REWORDED).encode())
    want = head + EVERYDAY_MERGED.replace("ccache -j8", "ccache").replace(" with --depth 1", "")
    for into, other in (("main", "left"), ("left", "main")):
        git(repo, "checkout", "-q", into)
        start = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, op, "-q", *(["--no-edit"] if op == "merge" else []), other)
        assert (repo / MEM / "release.md").read_text() == want, (into, op)
        git(repo, "reset", "-q", "--hard", start)


def test_git_merge_over_the_caps_keeps_what_both_branches_appended(repo: Path) -> None:
    """A 300-line index over the caps, each branch appending two bullets under its own
    section: `git merge` with the driver, both directions, gives the same index; the new
    bullets stay where they were written, the oldest standing ones are parked in the
    trailing comment, and no heading is left with nothing under it."""
    from tests.merge_drivers.test_archive_value import appended, empty_headings, sectioned

    install(repo)
    lines = sectioned(10, 28)
    base = "\n".join(lines) + "\n"
    commit_on(repo, "main", "MEMORY.md", base.encode())
    git(repo, "branch", "-f", "left", "main")
    commit_on(repo, "left", "MEMORY.md", appended(lines, 3, ["- left one", "- left two"]).encode())
    commit_on(repo, "main", "MEMORY.md", appended(lines, 7, ["- main one", "- main two"]).encode())
    texts = dict(merged_both_ways(repo, "merge"))
    assert texts["main"] == texts["left"]
    loaded, parked = texts["main"].split("<!-- gitmem:archive", 1)
    assert all(f"- {b} {n}\n" in loaded for b in ("left", "main") for n in ("one", "two"))
    assert "- note 0-0 " in parked and "- note 9-27 " in loaded
    assert empty_headings(loaded) == []
