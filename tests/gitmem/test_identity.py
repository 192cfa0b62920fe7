"""Project keys, user ids, canonical roots and Claude Code's folder rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.policy.treecheck import RefMeta, merged_meta, parse_meta, render_meta
from gitmem.project.identity import auto_memory_dir, claude_slug, normalize_remote_url, user_id
from tests.support.world import World


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:owner/repo.git",
        "ssh://git@github.com:22/owner/repo",
        "ssh://git@github.com/owner/repo.git",
        "https://user:token@GitHub.com/owner/repo.git/",
        "https://github.com:443/owner/repo",
        "http://github.com/owner/repo",
        "git://github.com/owner/repo.git",
        "github.com:owner/repo",
    ],
)
def test_every_spelling_of_a_remote_gives_one_key(url: str) -> None:
    assert normalize_remote_url(url) == "github.com/owner/repo"


def test_non_default_ports_and_local_paths_are_kept_apart(tmp_path: Path) -> None:
    assert normalize_remote_url("https://git.example.com:8443/o/r") == "git.example.com:8443/o/r"
    assert normalize_remote_url("ssh://git@[::1]:2222/o/r.git") == "[::1]:2222/o/r"
    bare = tmp_path / "remote.git"
    bare.mkdir()
    assert normalize_remote_url(str(bare)) == normalize_remote_url(f"file://{bare}")
    assert normalize_remote_url(str(bare) + "/") == normalize_remote_url(str(bare))
    assert normalize_remote_url("remote.git", base=tmp_path) == normalize_remote_url(str(bare))


# Long paths and the slugs the real Claude Code 2.1.330 made for them: `claude -p` run in each
# folder (tests/oracle's harness, HOME in a temporary folder), slug read back from the
# ~/.claude/projects/<slug>/ it created. Over 200 characters: first 200, "-", base-36 hash.
ORACLE = "/tmp/core_oracle/w/"
REAL_CLIENT_SLUGS = {
    ORACLE + "a" * 210: "-tmp-core-oracle-w-" + "a" * 181 + "-20snu8",
    ORACLE + "Ünïcødé-😀-" + "b" * 190 + "-end": (
        "-tmp-core-oracle-w--n-c-d-----" + "b" * 170 + "-nmrt6a"
    ),
    ORACLE + "proj_" * 45 + "x": "-tmp-core-oracle-w-" + "proj-" * 36 + "p-nhayfu",
}


def test_slug_matches_claude_code() -> None:
    # checked against the real Claude Code 2.1.330 (docs/design.md §1)
    assert claude_slug("/home/dev/wé ird.path+😀/proj_1") == "-home-dev-w--ird-path----proj-1"


@pytest.mark.parametrize("path", sorted(REAL_CLIENT_SLUGS))
def test_long_path_slug_equals_what_the_real_client_made(path: str) -> None:
    expected = REAL_CLIENT_SLUGS[path]
    assert len(expected.rsplit("-", 1)[0]) == 200
    assert claude_slug(path) == expected


@given(st.text())
def test_utf16_units_of_any_text_are_the_codecs(text: str) -> None:
    """The slug's UTF-16 code units: ASCII read without the codec, the rest through it."""
    from gitmem.project.identity import _utf16_units

    data = text.encode("utf-16-le", "surrogatepass")
    assert _utf16_units(text) == [data[i] | data[i + 1] << 8 for i in range(0, len(data), 2)]


def test_user_id_keeps_the_whole_address() -> None:
    assert user_id("John@Example.com") == "john@example.com"
    assert user_id("john@other.org") != user_id("john@example.com")
    assert user_id("a b..c@x.lock") == "a-b-.c@x-lock"


def test_auto_memory_dir_rules(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    home_claude = Path.home() / ".claude"
    assert auto_memory_dir(root, {}) == home_claude / "projects" / claude_slug(str(root)) / "memory"
    cfg = tmp_path / "cfg"
    assert auto_memory_dir(root, {"CLAUDE_CONFIG_DIR": str(cfg)}).parent.parent == cfg / "projects"
    named = auto_memory_dir(
        root, {"CLAUDE_CONFIG_DIR": str(cfg), "CLAUDE_CODE_PROJECT_DIR_NAME": "x"}
    )
    assert named == cfg / "projects" / "x" / "memory"
    assert auto_memory_dir(root, {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "/o"}) == Path("/o")
    remote = auto_memory_dir(root, {"CLAUDE_CODE_REMOTE_MEMORY_DIR": str(tmp_path / "r")})
    assert remote.parent.parent == tmp_path / "r" / "projects"
    home_claude.mkdir(parents=True, exist_ok=True)
    (home_claude / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/mem"}))
    assert auto_memory_dir(root, {}) == Path.home() / "mem"


def test_project_setting_counts_only_in_a_trusted_workspace(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"autoMemoryDirectory": "/proj-mem"})
    )
    assert auto_memory_dir(root, {}) != Path("/proj-mem")
    state = {"projects": {str(root): {"hasTrustDialogAccepted": True}}}
    (Path.home() / ".claude.json").write_text(json.dumps(state))
    assert auto_memory_dir(root, {}) == Path("/proj-mem")


def test_worktree_and_bare_repository_roots(world: World) -> None:
    a = world.clone("a")
    world.git("worktree", "add", "-q", str(world.root / "wt"), cwd=a)
    status_a = world.ok("-C", str(a), "status", "--json")
    status_wt = world.ok("-C", str(world.root / "wt"), "status", "--json")
    assert json.loads(status_a)["root"] == json.loads(status_wt)["root"] == str(a.resolve())
    bare_status = json.loads(world.ok("-C", str(world.remote), "status", "--json"))
    assert bare_status["root"] == str(world.remote.resolve())


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("git@github.com:Owner/Repo.git", "https://github.com/owner/repo"),
        ("ssh://git@ssh.github.com:443/OWNER/repo.git", "git@github.com:owner/repo"),
        ("https://www.GitHub.com/Owner/Repo/", "github.com:owner/repo"),
        ("git@gitlab.com:Group/Sub/Proj.git", "https://gitlab.com/group/sub/proj"),
        ("ssh://git@altssh.gitlab.com:443/g/p.git", "https://gitlab.com/g/p"),
        ("git@bitbucket.org:Team/Repo.git", "https://bitbucket.org/team/repo"),
    ],
)
def test_case_insensitive_forges_fold_path_case_and_host_aliases(one: str, other: str) -> None:
    assert normalize_remote_url(one) == normalize_remote_url(other)


def test_other_hosts_keep_path_case() -> None:
    assert (
        normalize_remote_url("https://git.example.com/Owner/Repo") == "git.example.com/Owner/Repo"
    )
    assert normalize_remote_url("ssh://git@ssh.github.com:2222/o/r") == "github.com/o/r"


@pytest.mark.parametrize("aliases", [(), ("file:/x/r",), ('we"ird\\key', "127.0.0.1:9/r", "z")])
def test_meta_with_aliases_round_trips(aliases: tuple[str, ...]) -> None:
    meta = parse_meta(render_meta("github.com/o/r", aliases))
    assert meta == RefMeta(1, "github.com/o/r", aliases)
    assert meta.knows("github.com/o/r") and all(meta.knows(a) for a in aliases)
    assert not meta.knows("github.com/o/other")


def test_an_older_meta_without_aliases_still_reads() -> None:
    old = b'# gitmem ref\nversion = 1\nkey = "file:/x/r"\n'
    assert parse_meta(old) == RefMeta(1, "file:/x/r", ())


METAS = [
    RefMeta(1, "a", ()),
    RefMeta(1, "b", ("a",)),
    RefMeta(1, "a", ("c",)),
    RefMeta(1, "c", ("b", "d")),
]


@pytest.mark.parametrize("x", METAS)
@pytest.mark.parametrize("y", METAS)
def test_merged_identity_is_symmetric_idempotent_and_loses_no_spelling(
    x: RefMeta, y: RefMeta
) -> None:
    merged = merged_meta([x, y])
    assert merged == merged_meta([y, x])
    assert merged_meta([merged, merged]) == merged
    assert merged_meta([merged, x]) == merged
    for k in (x.key, *x.aliases, y.key, *y.aliases):
        assert merged.knows(k)
    adopted = merged_meta([x], adopt="new")
    assert adopted.key == x.key and adopted.knows("new"), "adopting never replaces the key"


@pytest.mark.parametrize(
    "key",
    [
        "github.com/o/r",
        "file:/tmp/x/remote",
        "127.0.0.1:9418/remote",
        "local:/home/me/wé ird.path+😀/proj",
        "host/a..b/~c^d:e?f*g[h\\i@{j}.lock",
        ".hidden/x.",
    ],
)
def test_hub_ref_names_are_valid_and_distinct_for_any_key(key: str) -> None:
    import subprocess

    from gitmem.project.scopes import hub_component

    component = hub_component(key)
    ref = f"refs/gitmem/projects/{component}/users/me"
    assert subprocess.run(["git", "check-ref-format", ref]).returncode == 0, ref
    assert "/" not in component
    from urllib.parse import unquote

    assert unquote(component) == key, "one key, one name: nothing collapsed"
