"""Editors appending to memory files every 10 ms while every clone syncs at once: no appended
line is lost, no sync fails, and the clones converge once the editors stop (docs/sync.md,
write-back). CI size by default; `--soak` runs longer with more clones."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.reliability.conftest import Record, Sizes
from tests.reliability.harness import memory_folder, run_together
from tests.support.world import World, folder_bytes

APPEND_EVERY = 0.01


class Editor(threading.Thread):
    """Appends a numbered line to its own file and to one file every clone shares, the way an
    editor saves: open, append, close."""

    def __init__(self, name: str, folder: Path, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.tag, self.folder, self.stop = name, folder, stop
        self.lines: dict[str, list[str]] = {f"notes-{name}.md": [], "shared.md": []}

    def run(self) -> None:
        n = 0
        while not self.stop.wait(APPEND_EVERY):
            file = "shared.md" if n % 4 == 0 else f"notes-{self.tag}.md"
            line = f"{self.tag} line {n}"
            with open(self.folder / file, "a") as fh:
                fh.write(line + "\n")
            self.lines[file].append(line)
            n += 1


@pytest.mark.slow
def test_editors_appending_during_concurrent_syncs_lose_no_line(
    world: World, sizes: Sizes, record: Record
) -> None:
    clones = [world.clone(f"e{i:02d}") for i in range(sizes.editor_clones)]
    folders = [memory_folder(world, c) for c in clones]
    for folder in folders:
        folder.mkdir(parents=True)
    stop = threading.Event()
    editors = [Editor(f"e{i:02d}", f, stop) for i, f in enumerate(folders)]
    started = time.monotonic()
    failed: list[str] = []
    for editor in editors:
        editor.start()

    def sync_everyone() -> None:
        outcomes = run_together(world, [["-C", str(c), "sync"] for c in clones])
        failed.extend(
            f"{c.name}: exit {o.code}: {o.err.strip()[-200:]}"
            for c, o in zip(clones, outcomes, strict=True)
            if o.code != 0
        )

    try:
        for _ in range(sizes.rounds if sizes.soak else 1):  # CI: one round under editors
            sync_everyone()
    finally:
        stop.set()
        for editor in editors:
            editor.join()
    # the editors stopped: one round brings every clone's lines to the remote (each push merges
    # what was there), the next brings the last push back to everyone
    sync_everyone()
    sync_everyone()
    assert failed == [], f"{len(failed)} syncs failed while editors typed: {failed[:3]}"
    final = folder_bytes(folders[0])
    differing = [c.name for c, f in zip(clones, folders, strict=True) if folder_bytes(f) != final]
    assert differing == [], f"clones differ from {clones[0].name}: {differing}"
    lost = [
        f"{file}: {line}"
        for editor in editors
        for file, lines in editor.lines.items()
        for line in lines
        if f"{line}\n".encode() not in final.get(file, b"")
    ]
    appended = sum(len(lines) for e in editors for lines in e.lines.values())
    assert lost == [], f"{len(lost)} of {appended} appended lines lost, e.g. {lost[:5]}"
    record(
        clones=sizes.editor_clones,
        rounds=sizes.rounds if sizes.soak else 1,
        lines_appended=appended,
        lines_lost=len(lost),
        total_s=round(time.monotonic() - started, 1),
    )
