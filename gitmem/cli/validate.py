"""gitmem validate: check memory refs against the policy and print the findings."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from gitmem.cli.common import command, echo, plural

if TYPE_CHECKING:
    from gitmem.commands.validate import Validation
    from gitmem.gitstore import Repository
    from gitmem.policy.rules import Finding

FORMATS = ("text", "json", "github")


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = command(
        sub,
        "validate",
        "check memory refs for unsafe names, bad YAML, secrets and broken links (for CI)",
        "Check memory refs against gitmem's policy (the rules every push and pull applies).\n"
        "Exit 0: clean, or no memory ref to check (a remote's, a repository's without remotes);\n"
        "1: an error (or, with --strict, a warning); 2: usage or unreadable input (a clone with\n"
        "none of its own: they may be on its remote, --remote checks them);\n"
        "3: a remote (--remote) that cannot be reached.\n"
        "gitmem validate --codes lists the codes (GM101…) and what each means.",
    )
    p.add_argument(
        "refs",
        nargs="*",
        metavar="REF",
        help="refs/gitmem/team, team, users/ID or a revision (default: every refs/gitmem/*)",
    )
    p.add_argument(
        "--remote", metavar="NAME", help="validate the remote's refs (fetched, no ref stored)"
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="every memory ref, as no REF says: none on a remote (--remote) or in a repository "
        "without remotes is nothing to check (exit 0), so a CI gate passes before the first sync",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="output format")
    p.add_argument(
        "--json", dest="format", action="store_const", const="json", help="= --format json"
    )
    p.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    p.add_argument(
        "--base",
        metavar="REV",
        help="check every commit new since REV, re-reading only content changed since it "
        "(server hooks: the ref's old value; all zeros: a new ref, every commit no ref holds)",
    )
    p.add_argument(
        "--history",
        action="store_true",
        help="check every commit of each ref, not only its tip (a secret a later commit "
        "removed is still in the history); with --base, every commit new since REV is",
    )
    p.add_argument(
        "--as",
        dest="as_ref",
        metavar="REFNAME",
        help="the ref a bare revision stands for (decides team or personal layout)",
    )
    p.add_argument(
        "--files",
        action="store_true",
        help="REF… are memory files on disk (a pre-commit hook for memory kept on a branch)",
    )
    p.add_argument(
        "--codes", action="store_true", help="list the finding codes and what each means, then exit"
    )
    p.set_defaults(handler=run)


def list_codes() -> int:
    """The code table (gitmem/policy/rules.py CODES, documented in docs/ci.md), which a pip
    install carries and its docs/ folder does not."""
    from gitmem.policy.rules import CODES

    for code, (severity, blocking, meaning) in CODES.items():
        echo(f"{code}  {severity:<7} {'blocks' if blocking else '      '}  {meaning}")
    return 0


def run(args: argparse.Namespace) -> int:
    from gitmem.cli.common import directory
    from gitmem.commands.validate import ValidateOptions, validate
    from gitmem.errors import UsageError
    from gitmem.gitstore import Repository

    if args.codes:
        return list_codes()
    if args.all and args.refs:
        raise UsageError("--all and REF… exclude each other (gitmem validate)", "choose one")
    options = ValidateOptions(
        refs=tuple(args.refs),
        remote=args.remote,
        base=args.base,
        as_ref=args.as_ref,
        strict=args.strict,
        every=args.all,
        history=args.history,
    )
    if args.files:
        options.files, options.refs = options.refs or ("",), ()
    # memory files on disk need no repository (a pre-commit hook may run anywhere); inside one,
    # its user's allow-list applies to them as to refs
    repo = _repository_if_any(directory(args)) if args.files else Repository(directory(args))
    result = validate(repo, options)
    if args.format == "json":
        import json

        from gitmem.core.sanitize import json_safe

        sys.stdout.write(
            json_safe(json.dumps(result.as_json(), indent=2, ensure_ascii=False)) + "\n"
        )
    elif args.format == "github":
        for line in github_lines(result):
            echo(line)
    else:
        for line in text_lines(result):
            echo(line)
    return result.exit_code


def text_lines(result: Validation) -> list[str]:
    lines = [_line(r.label, f) for r in result.refs for f in r.findings]
    errors, warnings = result.count("error"), result.count("warning")
    refs = plural(sum(1 for r in result.refs if r.tip), result.unit)
    if any(f.code == "GM140" for r in result.refs for f in r.findings):
        from gitmem.policy.secrets import ALLOW_HINT

        lines.append(f"hint: {ALLOW_HINT}")
    if errors or warnings:
        lines.append(f"{plural(errors, 'error')}, {plural(warnings, 'warning')} in {refs}")
    elif not result.refs:
        lines.append(f"ok: no memory {result.unit}s yet, nothing to check")
    else:
        lines.append(f"ok: {refs}, no findings")
    return lines


def github_lines(result: Validation) -> list[str]:
    """Workflow commands, GitHub's escaping: `::error file=…,line=…,title=GM1xx::message` for
    a file checked on disk; a memory on a ref is no file of the checked-out branch, and an
    annotation naming `file=team/deploy.md` pointed at a path that is not there (or is another
    file): it names the ref and path in its title instead, `GM1xx refs/gitmem/team team/x.md:7`."""
    out = []
    for r in result.refs:
        for f in r.findings:
            if r.label == f.path:  # a file on disk (--files): the path is the checkout's
                props = f"file={_prop(f.path)}" + (f",line={f.line}" if f.line else "")
                props += f",title={_prop(f.code)}"
            else:
                where = f"{f.path}:{f.line}" if f.line else f.path
                props = f"title={_prop(f'{f.code} {r.label} {where}')}"
            out.append(f"::{f.severity} {props}::{_data(_line(r.label, f))}")
    out.extend(text_lines(result)[-1:])
    return out


def _line(ref: str, finding: Finding) -> str:
    """`ref: path:line: GM1xx severity: message`; a file checked on disk is named once."""
    return str(finding) if ref == finding.path else f"{ref}: {finding}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _repository_if_any(where: str) -> Repository | None:
    from gitmem.errors import NotARepository
    from gitmem.gitstore import Repository

    try:
        return Repository(where)
    except NotARepository:
        return None
