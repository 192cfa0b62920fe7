"""Other agents as adapters: their project folders ride the team ref under their own top,
through the same confinement and policy; nothing of an agent not enabled leaves the machine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.errors import ConfigError
from gitmem.policy.rules import ADAPTER_TEAM_TOPS, TEAM_TOPS, check_name
from gitmem.project.adapters import (
    ADAPTERS,
    PROJECT_SHARED,
    USER,
    enabled_agents,
)
from tests.support.world import World, folder_bytes, write_files


def team_paths(world: World, bare: Path) -> list[str]:
    if not world.git("for-each-ref", "refs/gitmem/team", cwd=bare):
        return []
    return world.git("ls-tree", "-r", "--name-only", "refs/gitmem/team", cwd=bare).split()


def test_every_adapter_top_is_one_the_policy_knows() -> None:
    shared = {
        f.top
        for a in ADAPTERS.values()
        for f in a.folders
        if f.scope == PROJECT_SHARED and a.name != "claude"
    }
    assert shared == ADAPTER_TEAM_TOPS <= TEAM_TOPS
    for a in ADAPTERS.values():
        for f in a.folders:
            if f.scope == USER:
                assert f.top.startswith("local/")  # the always-encrypted folder
                name = f"{f.top}/.root/{f.file}" if f.file else f"{f.top}/x{f.kinds[0]}"
                assert check_name(name) == [], name


def test_file_kinds_are_the_adapters_own_only() -> None:
    assert check_name("goose/build.txt") == []
    assert check_name("cline/notes.txt")[0].code == "GM104"
    assert check_name("team/build.txt")[0].code == "GM104"
    assert check_name("goose/.hidden/x.txt")[0].code == "GM104"


def test_gitmem_agents_names_known_agents_only() -> None:
    assert enabled_agents(None) == ("claude",)
    assert enabled_agents("Claude, codex  gemini,codex") == ("claude", "codex", "gemini")
    with pytest.raises(ConfigError):
        enabled_agents("claude,cursor")


def test_cline_and_goose_project_memory_converge_between_clones(world: World) -> None:
    world.git("config", "--global", "gitmem.agents", "claude,cline,goose")
    a, b = world.clone("a"), world.clone("b")
    write_files(a / "memory-bank", {"projectbrief.md": "# Brief\nA shop.\n"})
    write_files(a / ".goose" / "memory", {"build.txt": "# make\nrun make -j\n\n", "x.bin": "b"})
    world.ok("-C", str(a), "sync")
    world.ok("-C", str(b), "sync")
    assert folder_bytes(b / "memory-bank") == folder_bytes(a / "memory-bank")
    assert (b / ".goose/memory/build.txt").read_text() == "# make\nrun make -j\n\n"
    assert not (b / ".goose/memory/x.bin").exists()  # not a kind of goose's memory
    with open(b / ".goose/memory/build.txt", "a") as fh:
        fh.write("# test\nrun make test\n\n")
    (a / "memory-bank" / "progress.md").write_text("Checkout done.\n")
    world.ok("-C", str(b), "sync")
    world.ok("-C", str(a), "sync")
    assert "make test" in (a / ".goose/memory/build.txt").read_text()
    assert (b / "memory-bank" / "progress.md").exists() is False  # b has not synced since
    world.ok("-C", str(b), "sync")
    assert folder_bytes(b / "memory-bank") == folder_bytes(a / "memory-bank")
    assert set(team_paths(world, world.remote)) >= {
        "cline/projectbrief.md",
        "cline/progress.md",
        "goose/build.txt",
    }
    # git status stays clean: the folders are memory, not project files
    assert world.git("status", "--porcelain", cwd=a) == ""


def test_a_disabled_agent_syncs_nothing(world: World) -> None:
    a = world.clone("a")
    write_files(a / "memory-bank", {"projectbrief.md": "# Brief\n"})
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- team\n"})
    world.ok("-C", str(a), "sync")
    assert team_paths(world, world.remote) and not [
        p for p in team_paths(world, world.remote) if p.startswith("cline/")
    ]
    status = json.loads(world.ok("-C", str(a), "status", "--json"))
    assert [s["name"] for s in status["scopes"]] == ["auto", "team", "agents", "local"]


def test_a_tracked_memory_bank_is_left_to_git(world: World) -> None:
    world.git("config", "--global", "gitmem.agents", "claude,cline")
    a = world.clone("a")
    write_files(a / "memory-bank", {"projectbrief.md": "# Brief\n"})
    world.git("add", "memory-bank", cwd=a)
    world.git("commit", "-q", "-m", "memory bank", cwd=a)
    world.ok("-C", str(a), "sync")
    assert not [p for p in team_paths(world, world.remote) if p.startswith("cline/")]
    out = world.ok("-C", str(a), "status")
    assert "tracked on the branch: left to git" in out


def test_a_memory_bank_that_links_out_of_the_tree_is_refused(world: World) -> None:
    world.git("config", "--global", "gitmem.agents", "claude,cline")
    a = world.clone("a")
    ssh = world.home / ".ssh"
    ssh.mkdir()
    (ssh / "id.md").write_text("PRIVATE\n")
    (a / "memory-bank").symlink_to(ssh)
    run = world.gitmem("-C", str(a), "sync")
    assert "PRIVATE" not in world.git("log", "-p", "--all", cwd=world.remote)
    assert not [p for p in team_paths(world, world.remote) if p.startswith("cline/")]
    assert run.code == 0  # the other scopes still sync
    assert "skipped cline: not synced (refused" in run.err
    assert "memory-bank is a symbolic link" in run.err


def test_secrets_in_an_adapter_folder_are_refused_like_any_memory(world: World) -> None:
    world.git("config", "--global", "gitmem.agents", "claude,cline")
    a = world.clone("a")
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    write_files(a / "memory-bank", {"techContext.md": f"# Tech\nToken {token}\n"})
    run = world.gitmem("-C", str(a), "push")
    assert run.code == 1 and "cline/techContext.md" in run.err
    assert token not in world.git("log", "-p", "--all", cwd=world.remote)


def test_status_lists_what_each_enabled_agent_keeps_where(world: World) -> None:
    world.git("config", "--global", "gitmem.agents", "claude,codex,gemini,cline")
    a = world.clone("a")
    out = world.ok("-C", str(a), "status")
    assert "Codex CLI" in out and "~/.codex/memories" in out  # as the user knows them
    assert "~/.gemini/GEMINI.md" in out
    assert "project-shared    memory-bank" in out  # inside the work tree: from its top
    data = json.loads(world.ok("-C", str(a), "status", "--json"))
    assert {row["agent"] for row in data["agents"]} == {"claude", "codex", "gemini", "cline"}


FOLDERS = ["team", "agents", "cline", "goose", "auto", "local", "x", ".hidden", "goose.txt"]


@given(
    st.lists(st.sampled_from(FOLDERS), min_size=1, max_size=4),
    st.sampled_from([".txt", ".md", ".MD", ".json", ".sh", ""]),
)
def test_a_kind_other_than_markdown_passes_only_inside_its_adapters_folder(
    parts: list[str], ext: str
) -> None:
    path = "/".join(parts) + "/name" + ext
    inside_goose = path.startswith(("goose/", "local/goose/"))
    expected = not any(p.startswith(".") for p in parts) and (
        ext.lower() == ".md" or (ext == ".txt" and inside_goose)
    )
    assert (check_name(path) == []) == expected, path


def test_other_agents_files_are_not_held_to_claude_codes_frontmatter() -> None:
    from gitmem.policy.rules import check_content

    for path in ("cline/projectbrief.md", "goose/build.txt", "local/gemini/.root/GEMINI.md"):
        assert [f.code for f in check_content(path, b"# Brief\nA shop.\n")] == []
    assert [f.code for f in check_content("team/x.md", b"# Brief\n")] == ["GM121"]
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert "GM140" in [f.code for f in check_content("cline/x.md", token.encode())]


def test_a_teammate_without_the_adapter_keeps_its_memory_on_the_ref(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    world.ok("-C", str(a), "config", "agents", "claude,cline")  # a alone uses Cline
    write_files(a / "memory-bank", {"projectbrief.md": "# Brief\n"})
    world.ok("-C", str(a), "sync")
    write_files(world.scope_path(b, "team"), {"MEMORY.md": "- from b\n"})
    world.ok("-C", str(b), "sync")
    assert not (b / "memory-bank").exists()  # b did not enable it: nothing written
    assert "cline/projectbrief.md" in team_paths(world, world.remote)
    world.ok("-C", str(a), "sync")
    assert (a / "memory-bank" / "projectbrief.md").read_text() == "# Brief\n"
    assert (world.scope_path(a, "team") / "MEMORY.md").exists()
