"""Exit-code dead ends named after round 19, at the doors its fixes did not cover: a fetch whose
pack git indexes (not unpacks) under the file-size limit, and `adopt` in a clone that never had
the refused ref (docs/reliability.md, round 20)."""

from __future__ import annotations

import json
import os

from tests.e2e.test_exit_codes_19 import PERSONAL, one_line, size_limited
from tests.support.world import World, write_files


def test_a_pack_indexed_under_the_file_size_limit_gets_the_space_hint(world: World) -> None:
    """Over fetch.unpackLimit (100 objects) git keeps the pack: index-pack, killed by SIGXFSZ
    as it writes it, dies without a word and git says only "fetch-pack: invalid index-pack
    output". Round 19 matched unpack-objects' "died of signal 25" alone: this one got "check
    the remote URL and your access" (no URL or access fixes a disk)."""
    a, b = world.clone("a"), world.clone("b")
    world.ok("-C", str(b), "sync")
    write_files(world.scope_path(a, "agents"), {"rev/big.md": os.urandom(100_000).hex() + "\n"})
    write_files(world.scope_path(a, "team"), {f"t{i}.md": f"note {i}\n" for i in range(120)})
    world.ok("-C", str(a), "sync")
    before = world.git("for-each-ref", "refs/gitmem", "refs/gitmem-remotes", cwd=b)

    for args in (("sync",), ("status", "--fetch")):
        run = size_limited(world, b, *args)
        one_line(run, 3, ("cannot fetch from origin: ", "invalid index-pack output"))
        assert "free some space" in run.err and "remote URL" not in run.err, run.err
    hook = size_limited(world, b, "pull", "--hook")  # a hook never fails the session: it says so
    assert hook.code == 0 and "free some space" in hook.err and "remote URL" not in hook.err
    assert world.git("for-each-ref", "refs/gitmem", "refs/gitmem-remotes", cwd=b) == before
    world.ok("-C", str(b), "sync")  # the limit lifted: all of it arrives
    assert (world.scope_path(b, "team") / "t119.md").read_text() == "note 119\n"


def test_index_pack_saying_why_keeps_the_remotes_hint() -> None:
    """index-pack that says why (a pack the server got wrong) is no disk's fault; nor is a
    server's own `remote:` line naming the words."""
    from gitmem.errors import SPACE_HINT
    from gitmem.gitstore.transport import remote_hint

    silent = "fatal: fetch-pack: invalid index-pack output"
    assert remote_hint(silent, "check the remote") == SPACE_HINT
    told = f"fatal: pack has bad object at offset 12: inflate returned -3; {silent}"
    assert remote_hint(told, "check the remote") == "check the remote"
    theirs = f"remote: {silent}"
    assert remote_hint(theirs, "check the remote") == "check the remote"


def test_adopt_in_a_fresh_clone_tells_a_refused_ref_by_its_error_alone(world: World) -> None:
    """A clone that never synced adopts while the remote's team ref is hostile: no line of
    adopt's for that ref ("nothing to adopt (no such ref here or on origin)" was its first
    word on it), its refusal after the report, exit 2, `--json` the same."""
    a = world.clone("a")
    write_files(world.scope_path(a, "team"), {"plan.md": "the team's plan\n"})
    world.ok("-C", str(a), "sync")
    team = world.git("rev-parse", "refs/gitmem/team", cwd=world.remote).strip()
    world.plumb(
        world.remote,
        "fast-import",
        "--quiet",
        data=(
            "commit refs/gitmem/team\ncommitter Eve <eve@example.com> 1700000000 +0000\n"
            f"data 4\ndeep\nfrom {team}\nM 100644 inline team/{'d/' * 20}x.md\ndata 2\nx\n\n"
        ).encode(),
    )
    c = world.clone("c")

    run = world.gitmem("-C", str(c), "adopt")

    one_line(run, 2, ("origin/refs/gitmem/team: ", "GM102"))
    assert "refs/gitmem/team: refused what origin holds" in run.out, run.out
    assert not [ln for ln in run.out.splitlines() if ln.startswith("refs/gitmem/team: no")]
    assert f"{PERSONAL}: " in run.out
    report = json.loads(world.gitmem("-C", str(c), "adopt", "--json").out)
    assert not [line for line in report["adopted"] if "refs/gitmem/team" in line], report
    assert ["GM102" in e["message"] for e in report["errors"]] == [True], report["errors"]
    assert world.git("for-each-ref", "refs/gitmem/team", cwd=c) == ""  # nothing taken
