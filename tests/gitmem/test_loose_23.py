"""Round 23's loose ends in everyday use (#24), each fixed as a class: a folder setting refused
when it is written, one answer for nothing to validate, `help` in shell completion, and a
group's default subcommand's errors in the name of what was typed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.world import World


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("/etc", "a folder of the system"),
        ("~", "it is the home folder"),
        ("../../outside", "outside the working tree"),
        ("{auto}", "the auto scope's folder too"),
    ],
)
def test_a_team_dir_the_scopes_refuse_is_refused_when_it_is_set(
    world: World, value: str, why: str
) -> None:
    """`gitmem config teamDir /etc` was accepted and refused only by each later status and
    sync: the same confinement rule (project.scopes.confine) now refuses it at once, exit 2,
    nothing written; a folder of the project's own is still set."""
    clone = world.clone("a")
    value = value.replace("{auto}", str(world.scope_path(clone)))
    run = world.gitmem("-C", str(clone), "config", "teamDir", value)
    assert run.code == 2, run
    first, hint = run.err.splitlines()
    assert first.startswith("gitmem: error: gitmem config: teamDir ") and why in first, first
    assert hint.startswith("hint: name a folder of this project's own"), hint
    assert world.git("config", "--get", "gitmem.teamDir", cwd=clone, check=False) == ""
    world.ok("-C", str(clone), "config", "teamDir", "team-memory")
    assert world.git("config", "--get", "gitmem.teamDir", cwd=clone).strip() == "team-memory"


def test_nothing_to_validate_is_one_answer_with_or_without_all(world: World) -> None:
    """`validate --all` and plain `validate` answered "no memory refs" differently (0 and 2):
    one answer now, decided by what can be known. A remote with none, a repository without
    remotes: nothing to check, 0. A CI checkout with none of its own: they may all be on
    origin (a checkout fetches no refs/gitmem/*) — `--all` passed it unchecked; both say 2
    and name `--remote`."""
    ci = world.clone("ci")
    for remote in ((), ("--remote", "origin")):
        plain = world.gitmem("-C", str(ci), "validate", *remote)
        every = world.gitmem("-C", str(ci), "validate", "--all", *remote)
        assert (plain.code, plain.out, plain.err) == (every.code, every.out, every.err), remote
        if remote:
            assert plain.code == 0 and plain.out == "ok: no memory refs yet, nothing to check\n"
        else:
            assert plain.code == 2 and "hint: gitmem validate --remote origin " in plain.err
    alone = world.root / "alone"
    world.git("init", "-q", str(alone))
    for flags in ((), ("--all",)):
        run = world.gitmem("-C", str(alone), "validate", *flags)
        assert (run.code, run.out) == (0, "ok: no memory refs yet, nothing to check\n"), run
    assert world.gitmem("-C", str(alone), "validate", "team").code == 2


def test_shell_completion_knows_help_and_the_commands_after_it(
    world: World, tmp_path: Path
) -> None:
    """`gitmem help <TAB>` offered files: `help` (newcomer23) was no word of the completion."""
    script = tmp_path / "gitmem.bash"
    script.write_text(world.ok("completion", "bash"))

    def complete(*words: str) -> list[str]:
        driver = (
            f"source {script}\n"
            'COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _gitmem\n'
            'printf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        out = subprocess.run(["bash", "-c", driver, "bash", *words], capture_output=True, text=True)
        assert out.returncode == 0 and out.stderr == "", out
        return out.stdout.split()

    assert complete("gitmem", "he") == ["help"]
    assert complete("gitmem", "help", "sy") == ["sync"]
    assert complete("gitmem", "help", "hooks", "") == ["install", "uninstall", "status"]
    fish = world.ok("completion", "fish")
    assert "-n __fish_use_subcommand -a help " in fish
    assert "__fish_seen_subcommand_from help; and not" in fish


def test_a_group_alone_refuses_in_the_name_of_what_was_typed(world: World) -> None:
    """`gitmem hooks --user` was refused "(gitmem hooks status)", a command the user did not
    type: the group is named, with the subcommands that take the option."""
    run = world.gitmem("hooks", "--user", cwd=world.root)
    assert run.code == 2
    first, hint = run.err.splitlines()
    assert first == "gitmem: error: unrecognized arguments: --user (gitmem hooks)", first
    assert hint.startswith("hint: --user goes with a subcommand: gitmem hooks install --user"), hint
    assert "gitmem hooks alone runs gitmem hooks status" in hint
    other = world.gitmem("key", "--bogus", cwd=world.root)
    assert other.err.startswith("gitmem: error: unrecognized arguments: --bogus (gitmem key)\n")
    assert "gitmem key alone runs gitmem key list: gitmem key list takes" in other.err
    typed = world.gitmem("hooks", "status", "--user", cwd=world.root)  # the subcommand typed
    assert "(gitmem hooks status)" in typed.err.splitlines()[0], typed.err
