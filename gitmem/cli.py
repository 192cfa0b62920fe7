"""The command line: parse, call one use case, print its result. No logic lives here.

Heavy modules are imported inside each command so that `gitmem --help` stays fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from gitmem import __version__

if TYPE_CHECKING:
    from gitmem.scopes import Project

app = typer.Typer(
    name="gitmem",
    help="Sync AI-agent memory (Claude Code's MEMORY.md and topic files) through the project's "
    "own git remote, on refs/gitmem/* — never on a branch, never in your working tree.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
drivers_app = typer.Typer(help="Register gitmem's merge drivers with git.", no_args_is_help=True)
app.add_typer(drivers_app, name="drivers")


class Globals:
    directory: Path = Path(".")
    memory_dir: Optional[str] = None  # noqa: UP045 - typer reads the annotation at runtime


G = Globals()

RemoteOpt = Annotated[
    str | None,
    typer.Option(
        "--remote", metavar="NAME", help="Remote to sync through (default: gitmem.remote, origin)."
    ),
]
ScopeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--scope", metavar="SCOPE", help="Only this scope (auto, team, agents); repeatable."
    ),
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print nothing unless something fails.")
]
DryOpt = Annotated[
    bool, typer.Option("--dry-run", "-n", help="Show what would move; change nothing.")
]
ForceKeyOpt = Annotated[
    bool, typer.Option("--force-key", help="Adopt a remote ref recorded for another project key.")
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gitmem {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    directory: Annotated[
        Path, typer.Option("-C", metavar="PATH", help="Run as if started in this directory.")
    ] = Path("."),
    memory_dir: Annotated[
        str | None,
        typer.Option(
            "--memory-dir", metavar="DIR", help="Use this folder as the auto memory folder."
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    G.directory = directory
    G.memory_dir = memory_dir


def _project(remote: str | None = None) -> Project:
    from gitmem.gitstore import Repository
    from gitmem.scopes import open_project

    return open_project(Repository(G.directory), remote=remote, memory_dir=G.memory_dir)


@app.command()
def init(remote: RemoteOpt = None) -> None:
    """Set up gitmem in this clone; show what syncs where."""
    from gitmem.status import init_project

    result = init_project(_project(remote))
    st = result.status
    typer.echo(f"gitmem: project {st.key} (remote: {st.remote or 'none'}, user: {st.user})")
    for s in st.scopes:
        typer.echo(f"  {s.name:<7} {s.path}  ->  {s.ref}" + (f"  ({s.note})" if s.note else ""))
    for pattern in result.excluded:
        typer.echo(f"  added /{pattern} to .git/info/exclude")
    for warning in result.warnings:
        typer.echo(f"note: {warning}")
    typer.echo("next: gitmem sync")


@app.command()
def status(
    remote: RemoteOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Show each scope: folder, ref, files, ahead/behind."""
    from gitmem.status import project_status

    st = project_status(_project(remote))
    if as_json:
        typer.echo(json.dumps(st.as_json(), indent=2))
        return
    typer.echo(f"project {st.key}  remote {st.remote or '-'}  user {st.user}")
    for s in st.scopes:
        sync = f"ahead {s.ahead}, behind {s.behind}" if s.synced else s.note
        if s.changed:
            sync += f", {s.changed} unsynced change{'s' if s.changed != 1 else ''}"
        typer.echo(f"  {s.name:<7} {s.files:>5} files  {s.ref:<32} {sync}\n          {s.path}")


def _sync(
    mode: str,
    remote: str | None,
    scope: list[str] | None,
    dry_run: bool,
    quiet: bool,
    force_key: bool,
) -> None:
    # shared with the typer-free fast path (gitmem/fastpath.py), which runs these commands
    from gitmem.synccmd import sync_command

    sync_command(
        G.directory,
        G.memory_dir,
        mode,
        remote,
        tuple(scope or ()),
        dry_run,
        quiet,
        force_key,
        typer.echo,
    )


def _sync_command(mode: str, summary: str) -> None:
    """pull, push and sync take the same options; register one function per mode."""

    def command(
        remote: RemoteOpt = None,
        scope: ScopeOpt = None,
        dry_run: DryOpt = False,
        quiet: QuietOpt = False,
        force_key: ForceKeyOpt = False,
    ) -> None:
        _sync(mode, remote, scope, dry_run, quiet, force_key)

    command.__doc__ = summary
    app.command(mode)(command)


_sync_command("pull", "Fetch memory from the remote and merge it into your folders.")
_sync_command("push", "Commit, merge and push local memory (never forced).")
_sync_command("sync", "Pull then push.")


@app.command()
def log(
    path: Annotated[
        str | None, typer.Argument(help="A memory (auto/NAME.md or its path on disk).")
    ] = None,
    limit: Annotated[
        int | None, typer.Option("-n", "--max-count", metavar="N", help="Show at most N commits.")
    ] = None,
) -> None:
    """Show the history of the memory refs, or of one memory."""
    import time

    from gitmem.history import memory_log

    for row in memory_log(_project(), path, limit):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(int(row["time"])))
        typer.echo(f"{row['commit'][:10]} {when} {row['author']}: {row['subject']}")
        for res in filter(None, row["resolved"].split("\x1d")):
            typer.echo(f"    resolved {res}")


@app.command()
def diff(
    rev: Annotated[
        str | None,
        typer.Argument(help="Compare this revision with the ref (default: your unsynced edits)."),
    ] = None,
    path: Annotated[
        str | None, typer.Option("--path", metavar="PATH", help="Only this memory or scope.")
    ] = None,
) -> None:
    """Show unsynced local edits, or what changed since REV."""
    from gitmem.history import memory_diff

    out = memory_diff(_project(), rev, path)
    typer.echo(out.rstrip("\n") if out else "no changes", nl=True)


@app.command()
def restore(
    path: Annotated[
        str, typer.Argument(help="The memory to bring back (auto/NAME.md or its path).")
    ],
    at: Annotated[
        str | None,
        typer.Option("--at", metavar="REV", help="The revision to take it from (see gitmem log)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite unsynced edits of the file.")
    ] = False,
) -> None:
    """Bring back a deleted or overwritten memory."""
    from gitmem.history import restore as do_restore

    restored = do_restore(_project(), path, at, force)
    typer.echo(f"restored {restored.path} from {restored.commit[:10]}; run gitmem sync to share it")


@app.command("merge-driver")
def merge_driver(
    base: Annotated[str, typer.Argument(help="%O")],
    ours: Annotated[str, typer.Argument(help="%A")],
    theirs: Annotated[str, typer.Argument(help="%B")],
    marker_size: Annotated[str, typer.Argument(help="%L")] = "7",
    path: Annotated[str, typer.Argument(help="%P")] = "",
) -> None:
    """Merge one file for git (see `gitmem drivers install`)."""
    from merge_drivers.__main__ import main as driver_main

    raise typer.Exit(driver_main([base, ours, theirs, marker_size, path]))


@drivers_app.command("install")
def drivers_install(
    global_: Annotated[
        bool, typer.Option("--global", help="For every repository of this user.")
    ] = False,
    pattern: Annotated[
        list[str] | None,
        typer.Option("--pattern", metavar="GLOB", help="Extra glob for the frontmatter driver."),
    ] = None,
) -> None:
    """Register the MEMORY.md and frontmatter merge drivers in git config and attributes."""
    from gitmem.drivers import install

    for line in install(G.directory, global_, tuple(pattern or ())):
        typer.echo(line)


@drivers_app.command("uninstall")
def drivers_uninstall(
    global_: Annotated[bool, typer.Option("--global", help="The user-wide registration.")] = False,
) -> None:
    """Remove what `drivers install` wrote."""
    from gitmem.drivers import uninstall

    for line in uninstall(G.directory, global_):
        typer.echo(line)


@drivers_app.command("status")
def drivers_status() -> None:
    """Show which drivers and attributes are registered."""
    from gitmem.drivers import describe

    for line in describe(G.directory):
        typer.echo(line)


@app.command()
def demo(
    keep: Annotated[
        bool, typer.Option("--keep", help="Leave the throwaway world on disk to inspect.")
    ] = False,
) -> None:
    """Watch memory flow and merge in a throwaway world."""
    from gitmem.demo import run_demo

    run_demo(typer.echo, keep=keep)


def run(argv: list[str] | None = None) -> int:
    """Entry point: map every error to its exit code and one line (no tracebacks)."""
    from gitmem.errors import GitmemError, report

    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    args = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--debug"]
    try:
        app(args, prog_name="gitmem", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except (GitmemError, KeyboardInterrupt) as exc:
        if debug:
            raise
        return report(exc)
    except Exception as exc:
        show, code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(code, int):  # click's usage errors print themselves
            show()
            return code
        if debug:
            raise
        return report(exc)
    return 0
