"""The SessionStart hook's quick start: when nothing is new, a fetch and three tiny git processes.

Every Claude Code session starts with `gitmem pull --hook`, and most find nothing new. The full
hook (gitmem/hookrun.py) opens the project, reads the folders and the sync state and merges;
this module starts first (`python -I -S`: no site, no `subprocess`), replays the fetch the
last full hook run recorded, and when that fetch would move no ref prints the same context (the
team index) and stops. Anything else — no record, another folder, changed git config, Claude
Code settings, environment or scope folders, a ref that moved, a failed fetch, a lock held —
hands over to the full hook, which runs exactly as before and records again.

The record, `<git-dir>/gitmem/hook-start` (gitmem/quickstart.py), is written by the full
hook inside the sync's lock at the end of a run that succeeded (`record`); it holds only what
that run decided (the fetch's command line, the refs after it, the team index's path), never
memory. The fetch is replayed as a dry run: it brings objects but moves no ref (the
remote-tracking refs are what the full hook checked, the pin of its rollback and key checks;
an unchecked commit must never become that pin), so a stale record can at worst delay a pull
to the next full run; it can never lose or overwrite a memory. When it finds something new,
the full hook does not fetch again: inside its lock it moves the tracking refs from the ids
the dry run reported to the ones it found, as its own fetch would have (a ref that moved
meanwhile, or another fetch plan, and it fetches), then checks them as any fetched tip.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not typing's: every import here is paid before the fetch starts
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitmem.scopes import Project

MARKER = "hook-start"  # the record, in <git-dir>/gitmem/ (gitmem/quickstart.py)
MAX_PAYLOAD = 1 << 20


class Handover:
    """What the quick start learnt, for the full hook it hands over to."""

    payload: bytes | None = None  # stdin, already read
    before: dict[str, str] | None = None  # our refs as the last full run left them
    # the recorded fetches the dry run replayed ([folder, *git arguments] each) and the
    # tracking refs they would move, ref -> (old, new): the full hook moves them instead of
    # fetching again (gitmem/synctransport.py)
    fetched: tuple[tuple[tuple[str, ...], ...], dict[str, tuple[str, str]]] | None = None
    started = 0.0  # time.monotonic() when the quick start began (the hook's time bound)


def main() -> int:
    """Entry of the installed hook command (`python -I -S -c …`) and of `gitmem pull --hook`."""
    from gitmem.gitstore.handed import forget

    Handover.started = time.monotonic()
    Handover.before = Handover.fetched = None  # of this run only (tests run several in-process)
    forget()
    argv = sys.argv[1:]
    code = None
    if argv == ["pull", "--hook"]:
        Handover.payload = read_stdin()
        try:
            lines = quick_pull(Handover.payload)
        except Exception:  # a hook never fails on our account: the full hook decides
            lines = None
        if lines is not None:
            if lines:
                sys.stdout.write("\n".join(lines) + "\n")
            code = 0
    if code is None:
        try:
            code = full(argv)
        finally:
            forget()  # what the quick start handed over was for this run's opening only
    if sys.argv[:1] == ["-c"]:  # the installed command: no interpreter teardown either
        from gitmem.__main__ import leave

        leave(code)
    return code


def full(argv: Sequence[str]) -> int:
    """The full hook, with site-packages (`-S` left them out) and the payload. Its own command
    line (`pull --hook`, matched whole above: nothing to parse) goes to the hook directly;
    any other to the one command-line parser."""
    if sys.flags.no_site:
        import site

        site.main()
    if list(argv) != ["pull", "--hook"]:
        from gitmem.cli import main as cli_main

        return cli_main(argv)
    try:
        return answer("pull", ".", None)
    except BrokenPipeError:
        return 141  # the reader went away, as the command line reports it
    except BaseException as exc:  # what the command line would say, in the same words
        from gitmem.errors import report

        return report(exc)


def answer(mode: str, directory: str, memory_dir: str | None) -> int:
    """Run the hook and say what it found: context on stdout, a note on stderr; always 0 — a
    hook's failure must not disturb the session."""
    from gitmem.hookrun import read_payload, run_hook

    data, Handover.payload = Handover.payload, None  # stdin, as the quick start read it
    if data is None:
        data = read_stdin()
    outcome = run_hook(mode, directory, memory_dir, read_payload(data))
    if outcome.context:
        sys.stdout.write("\n".join(outcome.context) + "\n")
    if outcome.note:
        sys.stderr.write(outcome.note + "\n")
    return 0


def read_stdin(wait: float = 1.0) -> bytes:
    """Claude Code writes the payload and closes stdin; anyone else may leave it open and
    silent: read until EOF or until nothing came for `wait` seconds (1 MiB at most)."""
    import select

    try:
        fd = sys.stdin.fileno() if sys.stdin is not None else -1
        if fd < 0 or os.isatty(fd):
            return b""
    except (OSError, ValueError):
        return b""
    chunks: list[bytes] = []
    size = 0
    while size < MAX_PAYLOAD:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


# -- the quick path ----------------------------------------------------------------------------


def quick_pull(payload: bytes) -> list[str] | None:
    """The context lines when the fetch brought nothing new, else None (hand over)."""
    from gitmem.quickstart import find_record, moves, refs_of, replay

    here = payload_cwd(payload)
    record = find_record(here, MARKER) if here is not None else None
    if here is None or record is None or len(record.get("team", ())) != 1:
        return None
    from gitmem.gitstore.spawn import quiet_git

    quiet_git()
    deadline = Handover.started + float(record["timeout"][0][0])
    said: list[bytes] = []
    settled = replay(record, here, deadline, said)
    if settled is False:  # the fetch moved a ref: the full hook tells what since the record
        Handover.before = refs_of(record)
        found = moves(said)
        if found:
            Handover.fetched = (tuple(tuple(f) for f in record.get("fetch", ())), found)
    if not settled:
        return None
    if not record["team"][0]:
        return []
    from gitmem.hookcontext import CONTEXT_BUDGET, index_block

    index, header = record["team"][0]
    return index_block(index, header, CONTEXT_BUDGET)


def payload_cwd(payload: bytes) -> str | None:
    """The folder the full hook would work in (the payload's `cwd` when it is a folder, else
    this process's), read without a JSON parser — its import costs as much as the fetch.
    Recognized: `"cwd"` once, as `"cwd": "<text without escapes>"`; anything else is None,
    and the full hook, which parses the payload, decides."""
    key = b'"cwd"'
    found = payload.count(key)
    if found == 0:
        return os.getcwd()
    if found != 1:
        return None
    rest = payload.split(key, 1)[1].lstrip(b" \t\r\n")
    if not rest.startswith(b":"):
        return None
    rest = rest[1:].lstrip(b" \t\r\n")
    if not rest.startswith(b'"'):
        return None
    raw, quote, _ = rest[1:].partition(b'"')
    if not quote or b"\\" in raw or any(c < 0x20 for c in raw):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return os.path.abspath(text) if text and os.path.isdir(text) else os.getcwd()


# -- the record, written by the full hook -------------------------------------------------------


def record(project: Project, timeout: float) -> None:
    """Write what the quick start replays; called inside the lock at the end of a sync that
    succeeded (SyncOptions.settled), when what it left is exactly what it synced."""
    from gitmem.hookcontext import team_header
    from gitmem.quickstart import base_fields, forget, write_record

    if any(s.refused for s in project.scopes):
        forget(project, MARKER)  # the full hook has a note to print every time
        return
    fields: list[tuple[str, Sequence[str]]] = base_fields(project, timeout)
    team = next((s for s in project.scopes if s.name == "team"), None)
    fields.append(("team", [str(team.path / "MEMORY.md"), team_header(team.path)] if team else []))
    write_record(project, MARKER, fields)


def forget(project: Project) -> None:
    from gitmem.quickstart import forget as forget_record

    forget_record(project, MARKER)
