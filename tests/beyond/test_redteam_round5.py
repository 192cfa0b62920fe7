"""Red-team round 5: what this round built, at every door (charter rules 4 and 5).

Servers that flood, sealed folders a hostile remote shapes, the first sync's checkout, recall
with hostile memory, the hub and adapters. Each test is a class of attacks with variants; it
passes when the attack is refused (docs/reliability.md, "Red team, round 5").
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.support.world import REPO_ROOT, Run, World, teammates_sharing, write_files

TEAM = "refs/gitmem/team"


def _peak_memory(world: World, *args: str) -> tuple[Run, int]:
    """Run `gitmem ARGS`; its result and the most memory its own process held (KiB, VmHWM)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitmem", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**world.env, "PYTHONPATH": str(REPO_ROOT)},
    )
    peak = 0
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with open(f"/proc/{proc.pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.05)
    out, err = proc.communicate(timeout=60)
    return Run(proc.returncode, out.decode(), err.decode()), peak


FLOOD = "yes 'remote flood line of forty-odd characters' | head -c 60000000 >&2\n"


@pytest.mark.parametrize("door", ["push", "fetch"])
def test_a_servers_endless_messages_cost_bounded_memory(world: World, door: str) -> None:
    """Worked (push): a server that answers with 60 MB of `remote:` lines (a pre-receive
    hook; for as long as the timeout lets it, in truth) made gitmem hold them all, and more in
    the lines split from them: 1.1 GB of memory for 200 MB. Now a git process's messages are
    kept as their first 64 KiB and last 256 KiB (`gitstore/spawn.Spawned`); the error still
    names the reason. The fetch (the early fetch before the lock): the same bound."""
    alice, bob, _team = teammates_sharing(world)
    world.ok("-C", str(bob), "sync")
    if door == "push":
        hook = world.remote / "hooks" / "pre-receive"
        hook.write_text(
            "#!/bin/sh\ncat >/dev/null\n" + FLOOD + "echo 'denied by policy' >&2\nexit 1\n"
        )
        hook.chmod(0o755)
        write_files(world.scope_path(bob, "team"), {"mine.md": "---\nname: m\n---\nmine\n"})
    else:
        write_files(world.scope_path(alice, "team"), {"new.md": "---\nname: n\n---\nnews\n"})
        world.ok("-C", str(alice), "push")
        hook = world.root / "flood-pack-objects"
        hook.write_text("#!/bin/sh\n" + FLOOD + 'exec "$@"\n')
        hook.chmod(0o755)
        with open(world.home / ".gitconfig", "a") as fh:  # upload-pack's own (file://) config
            fh.write(f"[uploadpack]\n\tpackObjectsHook = {hook}\n")

    run, peak = _peak_memory(world, "-C", str(bob), door if door == "push" else "pull")

    assert peak < 150_000, peak  # KiB; ~25 MB without a flood
    assert len(run.out + run.err) < 20_000
    if door == "push":
        assert run.code == 3 and "denied by policy" in run.err, run.err[-2000:]
    else:
        assert run.code == 0, run.err[-2000:]
        assert (world.scope_path(bob, "team") / "new.md").exists()
