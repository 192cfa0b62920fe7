"""Every command that reports has --json (docs/json.md lists the fields), and it is JSON."""

from __future__ import annotations

import json
import re
from typing import Any

from gitmem.cli import build_parser
from gitmem.cli.completion import commands
from tests.support.world import BUILD_AND_DEPLOY, REPO_ROOT, World, write_files

# git's driver; a shell script; an MCP server on stdio; the prompt hook's context for the agent;
# the user guide (a document)
NOT_REPORTS = {("merge-driver",), ("completion",), ("mcp",), ("recall",), ("guide",)}
JSON_DOC = (REPO_ROOT / "docs" / "json.md").read_text()


def leaf_commands() -> list[tuple[str, ...]]:
    out = []
    for path, p in commands(build_parser()):
        if not path or path in NOT_REPORTS:
            continue
        if any(a.__class__.__name__ == "_SubParsersAction" for a in p._actions):
            continue  # a group: its subcommands report
        out.append(path)
    return out


def test_every_command_that_reports_has_json_and_documents_it() -> None:
    parsers = dict(commands(build_parser()))
    for path in leaf_commands():
        options = {o for a in parsers[path]._actions for o in a.option_strings}
        assert "--json" in options, path
        heading = f"`gitmem {' '.join(path)}"
        assert heading in JSON_DOC, f"docs/json.md does not document {heading}`"


def test_json_output_parses_and_has_the_documented_fields(world: World) -> None:
    a, b = world.clone("a"), world.clone("b")
    write_files(world.scope_path(a), BUILD_AND_DEPLOY)

    def run(clone: object, *args: str) -> Any:
        out = world.ok("-C", str(clone), *args, "--json")
        return json.loads(out)

    init = run(a, "init")
    assert {"key", "remote", "scopes", "excluded", "notes"} <= set(init)
    sync = run(a, "sync")
    assert isinstance(sync, dict) and {"mode", "refs", "skipped", "errors"} <= set(sync)
    team = next(r for r in sync["refs"] if r["ref"] == "refs/gitmem/team")
    assert {"status": "A", "path": "team/deploy.md"} in team["local_changes"]
    arrived = run(b, "sync")
    assert isinstance(arrived, dict)
    paths = {a["path"]: a for r in arrived["refs"] for a in r["arrived"]}
    assert paths["team/deploy.md"]["status"] == "A"
    assert paths["team/deploy.md"]["authors"] == ["Test User"]
    log = run(a, "log")
    assert isinstance(log, list) and {"commit", "time", "author", "subject", "resolved"} <= set(
        log[0]
    )
    assert isinstance(run(a, "diff"), dict)
    assert isinstance(run(a, "lost"), list)
    keys = run(a, "key", "list")
    assert isinstance(keys, list) and keys[0]["this_machine"] is True
    hooks = run(a, "hooks", "status")
    assert isinstance(hooks, list) and "installed" in hooks[0]
    messages = run(a, "drivers", "status")
    assert isinstance(messages, dict) and set(messages) == {"messages", "exit"}
    assert isinstance(run(a, "graph"), dict)
    assert isinstance(run(a, "doctor"), list)
    curate = run(a, "curate")
    assert isinstance(curate, dict) and curate["written"] is False
    promote = run(a, "promote", "auto/build.md")
    assert isinstance(promote, dict) and promote["target"] == "team/build.md"


def test_every_field_named_in_the_json_doc_is_printed_somewhere() -> None:
    """A field documented for sync must exist in what sync_json builds (a renamed field
    leaves the doc stale)."""
    source = (REPO_ROOT / "gitmem" / "cli" / "jsonout.py").read_text()
    section = JSON_DOC.split("### `gitmem sync", 1)[1].split("\n### ", 1)[0]
    for field in re.findall(r"^- `([a-z_]+)`", section, re.M):
        assert f'"{field}"' in source, field
