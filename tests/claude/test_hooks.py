"""Installing gitmem's Claude Code hooks never clobbers a settings file, and uninstall undoes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.claude import hooks
from gitmem.errors import UsageError

CMD = "/opt/venv/bin/gitmem"

OTHER_HOOKS = {
    "permissions": {"allow": ["Bash(make:*)"]},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
    },
    "model": "opus",
}


def _settings(root: Path) -> Path:
    return root / ".claude" / "settings.local.json"


@pytest.mark.parametrize(
    "original",
    [
        json.dumps(OTHER_HOOKS, indent=2) + "\n",  # Claude Code's own style
        json.dumps(OTHER_HOOKS, indent=4),  # four spaces, no final newline
        json.dumps(OTHER_HOOKS, indent="\t") + "\n",
        json.dumps({"model": "opus", "env": {"A": "é"}}, separators=(",", ":")),  # one line
        json.dumps(OTHER_HOOKS, indent=2).replace("\n", "\r\n") + "\r\n",
        "{}",
        "",
    ],
    ids=["two", "four-no-eol", "tabs", "compact", "crlf", "empty-object", "empty-file"],
)
def test_install_keeps_everything_and_uninstall_restores_bytes(
    tmp_path: Path, original: str
) -> None:
    path = _settings(tmp_path)
    path.parent.mkdir()
    path.write_bytes(original.encode())
    change = hooks.install("project", tmp_path, CMD)
    assert change.changed
    after = json.loads(path.read_text())
    before = json.loads(original) if original.strip() else {}
    for key, value in before.items():  # every setting kept, in the same order
        if key != "hooks":
            assert after[key] == value
    assert [k for k in after if k in before] == list(before)
    for event, groups in (before.get("hooks") or {}).items():
        assert after["hooks"][event][: len(groups)] == groups  # the user's hooks come first
    start = after["hooks"]["SessionStart"][-1]
    assert start["matcher"] == hooks.SESSION_START_MATCHER
    assert start["hooks"][0]["command"] == f"{CMD} pull --hook"
    assert after["hooks"]["SessionEnd"][-1]["hooks"][0]["command"] == f"{CMD} push --hook"
    installed = path.read_bytes()
    assert not hooks.install("project", tmp_path, CMD).changed  # twice: nothing changes
    assert path.read_bytes() == installed
    assert hooks.uninstall("project", tmp_path).changed
    assert path.read_bytes() == original.encode()


def test_install_keeps_the_files_indentation(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER_HOOKS, indent=4) + "\n")
    hooks.install("project", tmp_path, CMD)
    text = path.read_text()
    assert text == json.dumps(json.loads(text), indent=4) + "\n"


def test_uninstall_after_other_edits_removes_only_gitmems_hooks(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER_HOOKS, indent=2) + "\n")
    hooks.install("project", tmp_path, CMD)
    data = json.loads(path.read_text())
    data["theme"] = "dark"  # the user (or Claude Code) changed something since
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert hooks.uninstall("project", tmp_path).changed
    assert json.loads(path.read_text()) == {**OTHER_HOOKS, "theme": "dark"}
    assert not hooks.uninstall("project", tmp_path).changed


def test_install_into_a_missing_file_and_uninstall_removes_it(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    hooks.install("project", tmp_path, CMD)
    assert set(json.loads(path.read_text())["hooks"]) == {"SessionStart", "SessionEnd"}
    hooks.uninstall("project", tmp_path)
    assert not path.exists()


def test_reinstall_from_another_path_updates_the_command_once(tmp_path: Path) -> None:
    path = _settings(tmp_path)
    path.parent.mkdir()
    original = json.dumps(OTHER_HOOKS, indent=2) + "\n"
    path.write_text(original)
    hooks.install("project", tmp_path, CMD)
    hooks.install("project", tmp_path, "/new/bin/gitmem")
    data = json.loads(path.read_text())
    commands = [h["command"] for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    assert commands == ["echo hi", "/new/bin/gitmem pull --hook"]
    hooks.uninstall("project", tmp_path)
    assert path.read_text() == original  # the bytes before the first install


@pytest.mark.parametrize(
    "bad",
    ['{"hooks": {', "[1, 2]", '{"hooks": []}', '{"hooks": {"SessionEnd": {}}}', "\xff\xfe"],
    ids=["truncated", "array", "hooks-list", "event-object", "not-utf8"],
)
def test_refuses_a_settings_file_that_is_not_valid_writing_nothing(
    tmp_path: Path, bad: str
) -> None:
    path = _settings(tmp_path)
    path.parent.mkdir()
    raw = bad.encode("latin-1")
    path.write_bytes(raw)
    with pytest.raises(UsageError) as err:
        hooks.install("project", tmp_path, CMD)
    assert str(path) in err.value.message and "\n" not in err.value.message
    assert path.read_bytes() == raw
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_user_settings_follow_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path.home()
    assert hooks.settings_path("user", None) == home / ".claude" / "settings.json"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    hooks.install("user", None, CMD)
    assert (tmp_path / "cfg" / "settings.json").exists()
    [user] = hooks.status(None)
    assert user.complete and user.installed["SessionEnd"] == f"{CMD} push --hook"


def test_status_reports_absent_partial_and_unrunnable(tmp_path: Path) -> None:
    [project, _user] = hooks.status(tmp_path)
    assert not any(project.installed.values())
    hooks.install("project", tmp_path, CMD)
    [project, _user] = hooks.status(tmp_path)
    assert project.complete and "not executable" in project.note


@pytest.mark.parametrize(
    ("command", "event", "ours"),
    [
        ("/x/bin/gitmem pull --hook", "SessionStart", True),
        ("'/a b/gitmem' pull --hook", "SessionStart", True),
        ("/usr/bin/python3 -m gitmem push --hook", "SessionEnd", True),
        ("gitmem push --hook", "SessionStart", False),
        ("gitmem pull", "SessionStart", False),
        ("notgitmem pull --hook", "SessionStart", False),
        ("echo gitmem", "SessionStart", False),
    ],
)
def test_recognizes_only_gitmems_own_hooks(command: str, event: str, ours: bool) -> None:
    assert hooks.is_gitmem_hook(command, event) is ours


def test_default_command_is_an_absolute_path() -> None:
    import shlex

    assert Path(shlex.split(hooks.gitmem_command())[0]).is_absolute()


def test_a_linked_project_settings_file_is_never_written_through(tmp_path: Path) -> None:
    """A committed `.claude/settings.local.json -> ~/.claude/settings.json` must not lead
    `hooks install --project` into the user's settings (issue 22): refused with one line
    naming the link, nothing written anywhere, the link left as the branch has it."""
    user = tmp_path / "home" / ".claude" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text('{"model": "opus"}\n')
    path = _settings(tmp_path)
    path.parent.mkdir()
    path.symlink_to(user)
    for change in (hooks.install, hooks.uninstall):
        with pytest.raises(UsageError, match=r"settings.local.json is a symbolic link"):
            change("project", tmp_path, *([CMD] if change is hooks.install else []))
    assert path.is_symlink() and user.read_text() == '{"model": "opus"}\n'
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.local.json"]


def test_the_users_own_linked_settings_file_is_written_where_it_points_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's own settings file may be a dotfiles link (theirs, not a repository's): the
    file really written is the one the message names."""
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}\n')
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").symlink_to(dotfiles)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    change = hooks.install("user", None, CMD)
    assert change.settings == dotfiles and str(dotfiles) in change.what
    assert (config / "settings.json").is_symlink() and "SessionStart" in dotfiles.read_text()
    hooks.uninstall("user", None)
    assert dotfiles.read_text() == '{"model": "opus"}\n'


def test_claude_codes_kill_timeout_stays_above_gitmems_own_bound(tmp_path: Path) -> None:
    hooks.install("project", tmp_path, CMD)
    data = json.loads(_settings(tmp_path).read_text())
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] == hooks.CLAUDE_HOOK_TIMEOUT
    hooks.install("project", tmp_path, CMD, hook_timeout=45)  # gitmem.hookTimeout raised
    data = json.loads(_settings(tmp_path).read_text())
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] == 55
    assert not hooks.install("project", tmp_path, CMD, hook_timeout=45).changed


def test_project_install_never_writes_through_a_committed_claude_link(tmp_path: Path) -> None:
    """A repository that commits `.claude -> elsewhere` must not lead `--project` out of it,
    nor a link that stays inside the project (no write through any link)."""
    root, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (root / ".claude").symlink_to(elsewhere)
    for change in (hooks.install, hooks.uninstall):
        with pytest.raises(UsageError, match="outside the project"):
            change("project", root)
    assert list(elsewhere.iterdir()) == []
    (root / ".claude").unlink()
    (root / "dot-claude").mkdir()
    (root / ".claude").symlink_to("dot-claude")  # inside the project: still never followed
    with pytest.raises(UsageError, match=r"\.claude is a symbolic link"):
        hooks.install("project", root, command="/opt/gitmem")
    assert not (root / "dot-claude" / "settings.local.json").exists()
