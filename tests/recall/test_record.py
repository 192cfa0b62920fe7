"""gitmem record: Claude Code's layout, the sync's doors (atomic, CAS, policy, caps by curating)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.claude.graph import describe_memory
from gitmem.errors import SecretsFound
from gitmem.recall.record import EditedMeanwhile, replace_over, with_entry, yaml_scalar
from merge_drivers.frontmatter import split
from merge_drivers.rank import rank_fields
from tests.support.world import World, write_files

SECRET = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY AKIAIOSFODNN7EXAMPLE"


def record(world: World, clone: Path, *args: str, text: str = "Body text.") -> dict[str, object]:
    out = world.ok("-C", str(clone), "record", *args, "--json", text)
    data: dict[str, object] = json.loads(out)
    return data


def test_a_recorded_memory_is_a_topic_file_and_its_index_line(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    done = record(
        world,
        clone,
        "--title",
        "Deploys: Tuesdays only",
        "--description",
        "never deploy on a Friday",
        "--type",
        "feedback",
        "--confidence",
        "0.9",
        text="We deploy on Tuesdays.\n",
    )
    auto = world.scope_path(clone, "auto")
    topic = auto / "deploys_tuesdays_only.md"
    assert done["file"] == str(topic) and done["created"] is True
    data = topic.read_bytes()
    node, body = describe_memory("deploys_tuesdays_only.md", data)
    assert (node.title, node.description, node.type) == (
        "Deploys: Tuesdays only",
        "never deploy on a Friday",
        "feedback",
    )
    confidence, updated = rank_fields(data)
    assert confidence == 0.9 and updated is not None
    assert body == "We deploy on Tuesdays.\n"
    index = (auto / "MEMORY.md").read_text()
    assert index == (
        "- [Deploys: Tuesdays only](deploys_tuesdays_only.md) — never deploy on a Friday\n"
    )
    found = json.loads(
        world.ok("-C", str(clone), "query", "--search", "Friday", "--format", "json")
    )
    # the topic file, once: the index naming it is no answer of its own (round 21)
    assert [n["id"] for n in found["nodes"]] == ["auto/deploys_tuesdays_only.md"]


def test_the_line_goes_under_its_heading_and_an_update_replaces_it(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    team = world.scope_path(clone, "team")
    write_files(
        team,
        {
            "MEMORY.md": "# Team memory\n\n## Feedback\n- [A](a.md) — a\n\n"
            "## Project\n- [B](b.md) — b\n",
            "a.md": "---\nname: A\ndescription: a\ntype: feedback\n---\na\n",
            "b.md": "---\nname: B\ndescription: b\ntype: project\n---\nb\n",
        },
    )
    record(world, clone, "--scope", "team", "--title", "C", "--type", "feedback", "--file", "c.md")
    record(world, clone, "--scope", "team", "--title", "D", "--heading", "Project")
    record(world, clone, "--scope", "team", "--title", "E", "--heading", "Runbooks")
    assert (team / "MEMORY.md").read_text() == (
        "# Team memory\n\n## Feedback\n- [A](a.md) — a\n- [C](c.md) — Body text.\n\n"
        "## Project\n- [B](b.md) — b\n- [D](d.md) — Body text.\n\n"
        "## Runbooks\n- [E](e.md) — Body text.\n"
    )
    world.ok("-C", str(clone), "sync")  # replacing what no sync carried is refused
    again = record(
        world, clone, "--scope", "team", "--title", "C", "--file", "c.md", "--description", "new"
    )
    assert again["created"] is False
    index = (team / "MEMORY.md").read_text()
    assert index.count("(c.md)") == 1 and "- [C](c.md) — new\n" in index


def test_a_secret_is_refused_and_nothing_is_written(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {"MEMORY.md": "- [A](a.md) — a\n"})
    run = world.gitmem("-C", str(clone), "record", "--title", "Keys", SECRET)
    assert run.code == SecretsFound.exit_code and "not recorded" in run.err
    assert "wJalr" not in run.err  # the secret is never echoed
    assert sorted(p.name for p in auto.iterdir()) == ["MEMORY.md"]
    assert (auto / "MEMORY.md").read_text() == "- [A](a.md) — a\n"


def test_bad_names_and_links_are_refused(
    project: tuple[World, Path],
    tmp_path: Path,
) -> None:
    world, clone = project
    for name in ("../x.md", ".hidden/x.md", "MEMORY.md", "x.txt", "/etc/x.md"):
        run = world.gitmem("-C", str(clone), "record", "--title", "t", "--file", name, "x")
        assert run.code == 2, (name, run.err)
    auto = world.scope_path(clone, "auto")
    auto.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (auto / "sub").symlink_to(outside)
    run = world.gitmem("-C", str(clone), "record", "--title", "t", "--file", "sub/x.md", "x")
    assert run.code == 2 and "symbolic link" in run.err
    assert list(outside.iterdir()) == []


def test_a_memory_given_in_bytes_that_are_not_utf8_is_refused_in_one_line(
    project: tuple[World, Path],
) -> None:
    """Every field of a record given as bytes that are not UTF-8 (a Latin-1 terminal: Python
    holds the bad byte as a lone surrogate) is bad input — exit 2, one line naming the field
    and the byte, nothing written — never an internal error (exit 4) from encoding it."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(auto, {"MEMORY.md": "- [A](a.md) — a\n"})
    bad = "caf\udce9"  # b"caf\xe9" as argv decodes it
    cases = {
        "--title": ["--title", bad, "x"],
        "text": ["--title", "t", bad],
        "--description": ["--title", "t", "--description", bad, "x"],
        "--heading": ["--title", "t", "--heading", bad, "x"],
        "--file": ["--title", "t", "--file", bad + ".md", "x"],
    }
    for what, args in cases.items():
        run = world.gitmem("-C", str(clone), "record", *args)
        assert run.code == 2, (what, run.err)
        assert f"the memory's {what} is not UTF-8 text: 0xE9 at character 4" in run.err, what
        assert "hint: give it as UTF-8" in run.err
        assert sorted(p.name for p in auto.iterdir()) == ["MEMORY.md"], what
    assert (auto / "MEMORY.md").read_text() == "- [A](a.md) — a\n"


def test_an_edit_made_meanwhile_is_never_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    target = folder / "MEMORY.md"
    target.write_bytes(b"theirs\n")
    with pytest.raises(EditedMeanwhile):
        replace_over(target, b"what we read\n", b"ours\n")
    assert target.read_bytes() == b"theirs\n"
    with pytest.raises(EditedMeanwhile):
        replace_over(target, None, b"ours\n")  # we read no file; one appeared
    assert target.read_bytes() == b"theirs\n"
    replace_over(target, b"theirs\n", b"ours\n")
    assert target.read_bytes() == b"ours\n"
    assert sorted(p.name for p in folder.iterdir()) == ["MEMORY.md"]  # no temp left


def test_an_index_over_the_caps_is_curated_not_cut(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    auto = world.scope_path(clone, "auto")
    files = {
        f"n{i}.md": f"---\nname: N{i}\ndescription: note {i}\ntype: project\n---\nx{i}\n"
        for i in range(205)
    }
    files["MEMORY.md"] = "".join(f"- [N{i}](n{i}.md) — note {i}\n" for i in range(205))
    write_files(auto, files)
    done = record(world, clone, "--title", "Newest", "--file", "newest.md")
    assert done["curated"]
    index = (auto / "MEMORY.md").read_text()
    archive = (auto / "MEMORY-archive.md").read_text()
    assert len(index.splitlines()) <= 200
    for name in [*(f"n{i}.md" for i in range(205)), "newest.md"]:
        assert f"({name})" in index or f"({name})" in archive, name


def test_record_sync_commits_it_on_the_team_ref(
    project: tuple[World, Path],
) -> None:
    world, clone = project
    world.ok("-C", str(clone), "record", "--scope", "team", "--title", "Shared", "--sync", "x")
    shown = world.git("show", "refs/gitmem/team:team/shared.md", cwd=clone)
    assert "name: Shared" in shown
    assert "(shared.md)" in world.git("show", "refs/gitmem/team:team/MEMORY.md", cwd=clone)


def test_with_entry_keeps_every_other_line() -> None:
    index = "intro\n\n## Project\n- [B](b.md) — b\n<!-- note -->\n\n## Other\n- x\n"
    out = with_entry(index, "- [N](n.md) — n", "n.md", None, "project")
    assert out == (
        "intro\n\n## Project\n- [B](b.md) — b\n<!-- note -->\n- [N](n.md) — n\n\n## Other\n- x\n"
    )


@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=60))
def test_any_title_reads_back_through_the_one_frontmatter_parser(text: str) -> None:
    value = " ".join(text.split())
    front, _ = split(f"---\nname: {yaml_scalar(value)}\n---\nbody\n")
    assert front is not None and front.fields["name"].value == value
