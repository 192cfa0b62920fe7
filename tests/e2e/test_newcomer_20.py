"""A newcomer's first hour, twentieth round: what a user tries without reading, on a fresh
machine. Each failed before its fix (docs/testing.md "Newcomer walk, round 20")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.cli import main
from gitmem.project.scopes import Project
from gitmem.recall.query import Query, unheld_filter
from gitmem.recall.searchindex import locate
from tests.support.synced import SyncedA, _synced_a, synced_a
from tests.support.world import git, isolated_env

__all__ = ["_synced_a", "synced_a"]  # the fixtures: one synced clone, built once a module


def _said(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "takers", "instead"),
    [
        (("log", "--scope", "team"), "--scope is an option of pull, push, sync", "gitmem log team"),
        (("diff", "--scope", "team"), "--scope is an option of pull,", "gitmem diff --path team"),
        (("status", "--scope", "team"), "not of status", "shows every scope"),
        (("log", "--fetch"), "--fetch is an option of status, not of log", "status --fetch"),
        (("status", "--verbose"), "--verbose is an option of pull, push, sync", "status --help"),
    ],
)
def test_an_option_another_command_takes_is_no_typo_of_this_ones(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], takers: str, instead: str
) -> None:
    """`gitmem log --scope team` (sync takes --scope) was told "did you mean --json?", `status
    --scope team` "did you mean --user?": a near miss of words that share only their "--".
    Now the commands that take it are named, and this command's own way where it has one."""
    code, err = _said(capsys, *argv)
    assert code == 2, err
    hint = next(ln for ln in err.splitlines() if ln.startswith("hint: "))
    assert takers in hint and instead in hint, hint
    assert "did you mean" not in hint, hint


def test_a_typo_of_an_option_is_still_a_near_miss_and_an_unrelated_one_no_guess(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "did you mean --dry-run?" in _said(capsys, "sync", "--dryrun")[1]
    assert "did you mean --oneline?" in _said(capsys, "log", "--one-line")[1]
    # no command of gitmem takes it, and it is like none of show's: no guess
    err = _said(capsys, "key", "show", "--scope", "x")[1]
    assert "did you mean" not in err and "see 'gitmem key show --help'" in err, err


def test_a_config_value_refused_is_the_one_typed_not_the_setting_in_effect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gitmem config encrypt of` said "gitmem.encrypt is 'of'": the newcomer read it as the
    repository's setting (it was not set) and looked for where. Now it names the value typed
    as refused, and nothing is written."""
    env = isolated_env(tmp_path / "home")
    clone = tmp_path / "p"
    git("init", "-q", str(clone), env=env)
    for name, value, hint in (
        ("encrypt", "of", "give personal, local or off (gitmem config encrypt personal)"),
        ("sign", "maybe", "give true or false (gitmem config sign true)"),
        ("requireSigned", "sure", "give true or false (gitmem config requireSigned true)"),
    ):
        code, err = _said(capsys, "-C", str(clone), "config", name, value)
        assert code == 2, err
        assert f"error: gitmem config: {value!r} is not a value of {name}" in err, err
        assert f"hint: {hint}" in err, err
        assert git("config", "--get", f"gitmem.{name}", cwd=clone, env=env, check=False) == ""


def test_a_fresh_clone_of_a_project_with_memory_is_not_behind_0_before_its_first_fetch(
    synced_a: SyncedA, capsys: pytest.CaptureFixture[str]
) -> None:
    """`git clone` of a project whose remote holds memory, then `gitmem status`: every scope
    said "ahead 0, behind 0" (as of the last fetch, which never was): the newcomer read it as
    "the remote has no memory". Now the rows say "not fetched yet" (JSON `never_fetched`), the
    footnote what to run; once fetched, the counts as before."""
    world, _a, _auto = synced_a
    b = world.clone("b")
    assert main(["-C", str(b), "status"]) == 0
    out = capsys.readouterr().out
    team = next(ln for ln in out.splitlines() if ln.startswith("  team "))
    assert "not fetched yet" in team and "behind 0" not in team, out
    assert "(nothing fetched from origin yet: gitmem status --fetch" in out, out
    assert "as of the last fetch" not in out, out
    main(["-C", str(b), "status", "--json"])
    assert json.loads(capsys.readouterr().out)["never_fetched"] is True
    main(["-C", str(b), "status", "--fetch", "--json"])
    fetched = json.loads(capsys.readouterr().out)
    assert fetched["never_fetched"] is False
    assert next(s for s in fetched["scopes"] if s["name"] == "team")["behind"] >= 1, fetched
    main(["-C", str(b), "status"])
    out = capsys.readouterr().out
    assert "not fetched yet" not in out and "as of the last fetch from origin" in out, out


def _repository(tmp_path: Path, *, commit: bool) -> tuple[Path, dict[str, str]]:
    env = isolated_env(tmp_path / "home")
    repo = tmp_path / "p"
    git("init", "-q", "-b", "main", str(repo), env=env)
    git("config", "user.email", "you@example.com", cwd=repo, env=env)
    git("config", "user.name", "You", cwd=repo, env=env)
    if commit:
        git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo, env=env)
    return repo, env


def test_inside_the_git_folder_is_told_as_such_not_as_no_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cd .git` (to look at the refs) then `gitmem status`: "not a git repository:
    …/p/.git" — of the one folder that surely is one. Now it says where the working tree is."""
    repo, _ = _repository(tmp_path, commit=True)
    for inside in (repo / ".git", repo / ".git" / "refs"):
        code, err = _said(capsys, "-C", str(inside), "status")
        assert code == 2, err
        assert f"{inside} is inside the git folder of a clone, not its working tree" in err, err
        assert f"hint: run gitmem in its working tree (-C {repo}), or pass -C PATH" in err, err
    # a folder that is no repository at all is told as before
    code, err = _said(capsys, "-C", str(tmp_path), "status")
    assert code == 2 and f"not a git repository: {tmp_path}" in err, err


@pytest.mark.parametrize("commit", [False, True])
def test_record_next_step_is_one_that_works_without_a_remote_or_a_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], commit: bool
) -> None:
    """`gitmem record` in a new repository said "next: gitmem sync to share it": with no commit
    every sync refuses, and with no remote a sync shares nothing. Now the step that works."""
    repo, _ = _repository(tmp_path, commit=commit)
    assert main(["-C", str(repo), "record", "--title", "Build", "make -j"]) == 0
    step = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("next: "))
    if commit:
        assert step.startswith("next: gitmem sync commits it on this machine"), step
        assert "git remote add origin URL, then gitmem sync" in step, step
    else:
        assert step.startswith("next: make a first commit"), step
    assert "to share it (or record --sync)" not in step, step


def test_doctor_names_a_memory_index_longer_than_claude_code_loads(
    synced_a: SyncedA, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code's memory folder already full (250 index lines) synced without a word, and
    `gitmem doctor` said "no problems found": the last 50 lines were never loaded in a session.
    Now the doctor names the index and the curate that brings it within the limits."""
    _world, a, auto = synced_a
    index = "".join(f"- [T{i}](t{i}.md) — topic {i}\n" for i in range(250))
    (auto / "MEMORY.md").write_text(index)
    main(["-C", str(a), "doctor", "--offline"])
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("advice  index auto: "))
    assert line.endswith("/MEMORY.md: 250 lines; Claude Code loads the first 200"), line
    assert "fix: gitmem curate --scope auto --dry-run" in out, out
    main(["-C", str(a), "curate", "--scope", "auto", "--yes"])
    capsys.readouterr()
    main(["-C", str(a), "doctor", "--offline"])
    assert "index auto" not in capsys.readouterr().out


def test_a_query_filter_no_memory_holds_names_the_values_held(
    synced_a: SyncedA, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gitmem query --type projct` (or a tag misspelt) answered "no memory matches (gitmem
    query --recent lists the newest)": the newcomer took the memory for missing. Now the
    empty answer names the value no memory holds, with the nearest held one or those held."""
    _world, a, _auto = synced_a
    for argv, said in (
        (("--type", "projct"), "no memory has type 'projct': did you mean --type project?"),
        (("--type", "nope"), "no memory has type 'nope' (types held: project)"),
        (("--tag", "ci"), "no memory has tag 'ci' (no memory has a tag)"),
    ):
        assert main(["-C", str(a), "query", *argv]) == 0
        captured = capsys.readouterr()
        assert captured.out == "" and f"no memory matches: {said}" in captured.err, captured
    # a filter some memory holds, with words none matches: the answer as before
    main(["-C", str(a), "query", "--type", "project", "zzzqqq"])
    assert "no memory matches (gitmem query --recent" in capsys.readouterr().err


def test_a_filter_held_past_the_values_listed_is_no_typo_and_values_print_safe(
    synced_a: SyncedA, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 20: the held values stopped at 50 (in no order), so a tag some memory holds
    past them was told "no memory has tag"; and a teammate's tag was printed raw (a terminal
    escape in it reached the screen). Now a held value is found over every memory, and the
    values shown are safe for a terminal."""
    _world, a, auto = synced_a
    made = [auto / f"tagged{i}.md" for i in range(60)]
    try:
        made[0].write_text('---\nname: T0\ntype: project\ntags: ["red\\x1b[2Jtag"]\n---\nbody\n')
        main(["-C", str(a), "query", "--tag", "blue"])
        err = capsys.readouterr().err
        assert "no memory has tag 'blue'" in err and "\x1b" not in err, err
        assert "red\\033[2jtag" in err, err  # as git shows a control character
        for i, path in enumerate(made[1:], 1):
            path.write_text(f"---\nname: T{i}\ntype: project\ntags: [tag{i:02d}]\n---\nbody\n")
        # a held tag: the empty answer is the words', not the tag's (the query refreshes
        # the index; the others are asked of it directly, as the CLI asks)
        assert main(["-C", str(a), "query", "--tag", "tag01", "zzzqqq"]) == 0
        assert "no memory matches (gitmem query --recent" in capsys.readouterr().err
        place = locate(str(a), None, _no_project)
        unheld = {i: unheld_filter(place, Query(tag=f"tag{i:02d}")) for i in range(1, 60)}
        assert all(said is None for said in unheld.values()), unheld
    finally:
        for path in made:
            path.unlink(missing_ok=True)
        main(["-C", str(a), "query", "--recent"])  # the index without them again
        capsys.readouterr()


def _no_project() -> Project:
    raise AssertionError("the place is remembered: no project opened")
