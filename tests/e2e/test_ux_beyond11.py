"""Round 11: memory beyond one machine, as a user lives it — two machines (two temporary HOMEs)
of one user, a project remote and a hub, real git; what broke, each as its class."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitmem.privacy.layout import NOT_GRANTED
from tests.support.world import World, write_files

PAYMENTS = (
    "---\nname: payments\ndescription: Stripe webhook retries\ntype: project\n---\n"
    "Stripe webhooks are retried for 3 days; the handler must be idempotent.\n"
)


def two_machines(world: World) -> tuple[World, Path, World, Path]:
    """The user's laptop (`world`, its clone `a`) and desktop (a second HOME, its clone `b`),
    one hub; the laptop's personal memory holds `payments.md`, synced before the desktop's key
    was granted; the desktop then granted, trusted and synced. Returns laptop, a, desktop, b."""
    desktop = World(world.root / "desktop")
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    for w in (world, desktop):
        w.git("config", "--global", "gitmem.hub", str(hub))
    a = world.clone("a")
    b = desktop.clone("desktop/b", str(world.remote))
    write_files(
        world.scope_path(a, "auto"),
        {
            "MEMORY.md": "- [Payments](payments.md) — Stripe webhook retries\n",
            "payments.md": PAYMENTS,
        },
    )
    world.ok("-C", str(a), "sync")  # sealed for the laptop alone
    desktop.ok("-C", str(b), "key", "init")
    desktop_id = desktop.ok("-C", str(b), "key", "show").split()[0]
    world.ok("-C", str(a), "key", "grant", desktop_id)
    world.ok("-C", str(a), "sync")
    laptop_id = world.ok("-C", str(a), "key", "show").split()[0]
    desktop.ok("-C", str(b), "key", "trust", laptop_id)
    desktop.ok("-C", str(b), "sync")
    return world, a, desktop, b


def test_a_memory_deleted_on_one_machine_is_found_and_restored_on_the_other(
    world: World,
) -> None:
    """A personal memory written before the desktop was granted, then deleted on the laptop:
    on the desktop `query --deleted` listed nothing, `restore` said "this machine cannot open
    your encrypted personal memory (its key was not granted)" and `show` of that version too —
    the commit that last held the file was sealed before the grant, and a grant wraps the same
    key for one more machine. Each read of an older commit now opens with the key granted at
    the ref's tip (a wrong key still opens nothing: the refusal stands)."""
    laptop, a, desktop, b = two_machines(world)
    auto_a = laptop.scope_path(a, "auto")
    (auto_a / "payments.md").unlink()
    (auto_a / "MEMORY.md").write_text("")
    laptop.ok("-C", str(a), "sync")
    desktop.ok("-C", str(b), "sync")
    auto_b = desktop.scope_path(b, "auto")
    assert not (auto_b / "payments.md").exists()

    listed = desktop.ok("-C", str(b), "query", "--deleted")
    assert "auto/payments.md" in listed and "deleted" in listed, listed
    full = desktop.ok("-C", str(b), "query", "--deleted", "--format", "full")
    assert "must be idempotent" in full, full
    shown = desktop.gitmem("-C", str(b), "show", "~2:auto/payments.md")
    assert shown.code == 0 and "must be idempotent" in shown.out, shown
    desktop.ok("-C", str(b), "restore", "auto/payments.md")
    assert (auto_b / "payments.md").read_text() == PAYMENTS


def test_a_machine_never_granted_still_cannot_read_the_history(world: World) -> None:
    """The other side of the class: a third HOME whose key nobody granted is refused the same
    versions, with the one line that says so (no plaintext, no traceback)."""
    laptop, a, _desktop, _b = two_machines(world)
    stranger = World(world.root / "stranger")
    stranger.git("config", "--global", "gitmem.hub", str(world.root / "hub.git"))
    c = stranger.clone("stranger/c", str(world.remote))
    stranger.ok("-C", str(c), "key", "init")
    laptop_id = laptop.ok("-C", str(a), "key", "show").split()[0]
    stranger.ok("-C", str(c), "key", "trust", laptop_id)
    stranger.gitmem("-C", str(c), "sync")  # refused: not granted
    ref = "refs/gitmem/users/tester@example.com"
    hub_ref = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname)"],
        cwd=world.root / "hub.git",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[0]
    stranger.git("fetch", "-q", str(world.root / "hub.git"), f"+{hub_ref}:{ref}", cwd=c)
    shown = stranger.gitmem("-C", str(c), "show", "~1:auto/payments.md")
    assert shown.code != 0 and NOT_GRANTED in shown.err, shown
    assert "idempotent" not in shown.out + shown.err
    assert "Traceback" not in shown.err


def _page_nodes(page: Path) -> dict[str, dict[str, object]]:
    import json
    import re

    data = re.search(
        r'<script[^>]*type="application/json"[^>]*>(.*?)</script>', page.read_text(), re.S
    )
    assert data is not None
    return {n["id"]: n for n in json.loads(data.group(1))["nodes"]}


def test_the_page_shows_the_history_of_memory_beyond_the_project(world: World) -> None:
    """`gitmem view` showed "not yet synced" under `~/.claude/CLAUDE.md` (user/CLAUDE.md)
    synced through the hub for months: the page read each scope's history on the project's
    refs, and a user scope's is in the store `sync --user` keeps (as `gitmem log
    user/CLAUDE.md` reads it). Its changes are listed now, like a project memory's."""
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    world.git("config", "--global", "gitmem.hub", str(hub))
    a = world.clone("a")
    claude = world.home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "CLAUDE.md").write_text("# Me\n- I prefer uv over pip.\n")
    write_files(world.scope_path(a, "team"), {"MEMORY.md": "- [X](x.md) — x\n", "x.md": "x\n"})
    world.ok("-C", str(a), "sync")
    (claude / "CLAUDE.md").write_text("# Me\n- I prefer uv over pip.\n- Tabs, never spaces.\n")
    world.ok("-C", str(a), "sync", "--user")
    logged = world.ok("-C", str(a), "log", "user/CLAUDE.md")
    page = world.root / "view.html"
    world.ok("-C", str(a), "view", "--out", str(page))
    nodes = _page_nodes(page)
    history = nodes["user/CLAUDE.md"]["history"]
    assert isinstance(history, list) and len(history) == 2, history
    assert all(str(h["commit"])[:10] in logged for h in history), (history, logged)
    assert nodes["team/x.md"]["history"]  # a project memory's, as before


def test_a_reader_gone_before_a_short_output_left_is_a_quiet_141(world: World) -> None:
    """`gitmem query --recent 3 | head -0`, `gitmem status` into a closed pipe, the prompt
    hook whose caller stopped waiting: a short output leaves at exit, and its flush ended in
    Python's "Exception ignored … BrokenPipeError" on stderr and exit 120 (undocumented).
    Now quiet and 141, as the README says and as a long output (mid-command) already did."""
    import sys

    from tests.support.world import REPO_ROOT, teammates_sharing

    alice, _bob, _team = teammates_sharing(world)
    # a user's shell: stdout block-buffered into a pipe (this session may set unbuffered)
    env = {k: v for k, v in world.env.items() if k != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    for args in (["query", "--recent", "3"], ["status"], ["recall", "--hook"], ["log"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "gitmem", *args],
            cwd=alice,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        proc.stdout.close()  # the reader is gone before gitmem writes a byte
        _, err = proc.communicate(b'{"prompt": "what do we deploy on tuesdays?"}', timeout=60)
        assert proc.returncode == 141, (args, proc.returncode, err)
        assert err == b"", (args, err)


def test_a_version_sealed_under_a_rotated_key_stays_closed_to_a_machine_granted_after(
    world: World,
) -> None:
    """The bound of the fix above: the key granted at the tip opens an older commit only when
    it is the key that commit was sealed with. After `key rotate` (what a revoke does) a
    machine granted the new key is refused the versions sealed under the old one — one line,
    no plaintext — and reads every version since."""
    desktop = World(world.root / "desktop")
    hub = world.root / "hub.git"
    world.git("init", "-q", "--bare", str(hub))
    for w in (world, desktop):
        w.git("config", "--global", "gitmem.hub", str(hub))
    a = world.clone("a")
    b = desktop.clone("desktop/b", str(world.remote))
    write_files(world.scope_path(a, "auto"), {"MEMORY.md": "", "payments.md": PAYMENTS})
    world.ok("-C", str(a), "sync")  # sealed under the first key
    world.ok("-C", str(a), "key", "rotate")
    world.ok("-C", str(a), "sync")  # re-encrypted under the second
    desktop.ok("-C", str(b), "key", "init")
    world.ok("-C", str(a), "key", "grant", desktop.ok("-C", str(b), "key", "show").split()[0])
    world.ok("-C", str(a), "sync")
    desktop.ok("-C", str(b), "key", "trust", world.ok("-C", str(a), "key", "show").split()[0])
    desktop.ok("-C", str(b), "sync")
    assert (desktop.scope_path(b, "auto") / "payments.md").read_text() == PAYMENTS
    ref = "refs/gitmem/users/tester@example.com"
    commits = desktop.git("rev-list", "--first-parent", ref, cwd=b).split()
    oldest, newest = commits[-1], commits[0]  # the first sync's (the first key), the tip
    refused = desktop.gitmem("-C", str(b), "show", f"{oldest}:auto/payments.md")
    assert refused.code != 0 and NOT_GRANTED in refused.err, refused
    assert "idempotent" not in refused.out + refused.err and "Traceback" not in refused.err
    assert "idempotent" in desktop.ok("-C", str(b), "show", f"{newest}:auto/payments.md")
