"""The UserPromptSubmit hook (`recall --hook`) beside the SessionStart hook (`pull --hook`) and
`python -c pass` (round 19: the floor of any Python hook), each as installed, alternated, on
the real corpus in a project's auto folder (no remote: the SessionStart hook's sync has
nothing to fetch, so this is the floor of both).

    python -m benchmarks.recall_hooks --runs 15
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.corpus import auto_folder, corpus_root, lay_out_corpus
from benchmarks.world import World
from gitmem.claude.hooks import gitmem_command, hook_command
from gitmem.recall.claudesetup import recall_command

PROMPT = "how do we deploy the gantry service"


def _timed(command: str, given: str, cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(
        command, shell=True, input=given, cwd=cwd, env=env, capture_output=True, text=True
    )
    return time.perf_counter() - start, proc.stdout


def measure(runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gitmem-hooks-bench-") as tmp:
        world = World(Path(tmp))
        clone = Path(tmp) / "proj"
        world.git("init", "-q", str(clone))
        world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=clone)
        env = dict(world.env)
        os.environ.update(env)  # the auto folder where the hooks' HOME places it
        lay_out_corpus(auto_folder(clone))
        prompt = recall_command(clone)
        start = hook_command(gitmem_command(), "SessionStart")
        asked = json.dumps(
            {"prompt": PROMPT, "cwd": str(clone), "hook_event_name": "UserPromptSubmit"}
        )
        opened = json.dumps({"cwd": str(clone), "hook_event_name": "SessionStart"})
        _timed(prompt, asked, clone, env)  # builds the index
        time.sleep(2.2)  # past git's racy window: the steady state a session lives in
        _timed(prompt, asked, clone, env)
        floor = f"{sys.executable} -c pass"
        answered, started, passed = [], [], []
        out = ""
        for _ in range(runs):
            took, out = _timed(prompt, asked, clone, env)
            answered.append(took)
            started.append(_timed(start, opened, clone, env)[0])
            passed.append(_timed(floor, "", clone, env)[0])
        a, s = statistics.median(answered), statistics.median(started)
        f = statistics.median(passed)
        return {
            "prompt_ms": a * 1000,
            "start_ms": s * 1000,
            "pass_ms": f * 1000,
            "ratio": a / s,
            "over_pass": a / f,
            "bytes": len(out.encode()),
            "units": len(out.encode("utf-16-le")) // 2,
        }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.recall_hooks")
    p.add_argument("--runs", type=int, default=15)
    args = p.parse_args(argv)
    if corpus_root() is None:
        print("the real corpus is not on this machine", file=sys.stderr)
        return 1
    r = measure(args.runs)
    print(f"hooks as installed (median of {args.runs}, alternated, load {os.getloadavg()[0]:.1f})")
    print(
        f"  UserPromptSubmit recall --hook  {r['prompt_ms']:7.1f} ms  ({r['bytes']:.0f} bytes, "
        f"{r['units']:.0f} UTF-16 units)"
    )
    print(f"  SessionStart pull --hook        {r['start_ms']:7.1f} ms")
    print(f"  python -c pass                  {r['pass_ms']:7.1f} ms")
    print(f"  prompt / SessionStart           {r['ratio']:7.2f}")
    print(f"  prompt / python -c pass         {r['over_pass']:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
