"""gitmem validate: every policy finding of memory refs, for CI and server hooks.

Works in any repository, bare or not, with or without a gitmem setup: it reads refs and objects
only. With a remote it fetches the objects of the remote's refs/gitmem/* without storing any
ref (nothing local moves). Returns data; the CLI prints it in text, JSON or GitHub format.
Never writes a ref, a file or the index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitmem.core.sanitize import command_word, shown_url
from gitmem.errors import EXIT_FINDINGS, UsageError
from gitmem.gitstore.store import Store
from gitmem.policy.rules import (
    ERROR,
    MAX_BLOB_BYTES,
    WARNING,
    Finding,
    must_be_signed,
    read_as_text,
    sealed_in,
    signature_findings,
    unsealed,
)
from gitmem.policy.treecheck import commit_findings

if TYPE_CHECKING:
    from gitmem.policy.secrets import AllowList

GITMEM_REFS = "refs/gitmem/"
BRANCH_LAYOUT = "refs/heads/gitmem/"  # the gitmem.refPrefix the branch-only refusal offers
JSON_VERSION = 1
EVERY_REF = "--all"  # commit_changes: not reachable from any ref of the repository
UNLISTED = ("GM102", "GM105", "GM109")  # the tip's tree was refused before it was read whole


@dataclass
class RefFindings:
    ref: str  # the ref's name (prefixed with the remote when it was fetched from one)
    commit: str
    findings: list[Finding] = field(default_factory=list)
    tip: bool = True  # False: an earlier commit new in the push (--base, --history)

    @property
    def label(self) -> str:
        """What a text line names: the ref, and the commit when it is not the ref's tip."""
        return self.ref if self.tip else f"{self.ref} (commit {self.commit[:12]})"


@dataclass
class Validation:
    refs: list[RefFindings] = field(default_factory=list)
    strict: bool = False
    unit: str = "ref"  # what each entry of `refs` is: a ref, or a file (--files)

    def count(self, severity: str) -> int:
        return sum(1 for r in self.refs for f in r.findings if f.severity == severity)

    @property
    def exit_code(self) -> int:
        """1 when an error was found (or, with --strict, a warning); else 0."""
        failing = self.count(ERROR) + (self.count(WARNING) if self.strict else 0)
        return EXIT_FINDINGS if failing else 0

    def as_json(self) -> dict[str, object]:
        """The documented JSON schema (docs/ci.md), version JSON_VERSION."""
        return {
            "version": JSON_VERSION,
            "exit_code": self.exit_code,
            "errors": self.count(ERROR),
            "warnings": self.count(WARNING),
            "refs": [
                {
                    "ref": r.ref,
                    "commit": r.commit,
                    "tip": r.tip,
                    "findings": [
                        {
                            "code": f.code,
                            "severity": f.severity,
                            "blocking": f.blocking,
                            "path": f.path,
                            "line": f.line,
                            "message": f.message,
                        }
                        for f in r.findings
                    ],
                }
                for r in self.refs
            ],
        }


@dataclass
class ValidateOptions:
    refs: Sequence[str] = ()  # names or revisions; empty: every ref under refs/gitmem/
    remote: str | None = None  # validate what this remote holds (fetched, no ref stored)
    base: str | None = None  # content unchanged since this revision is not re-read
    as_ref: str | None = None  # the ref name a bare revision stands for (server hooks)
    strict: bool = False
    history: bool = False  # every commit of each ref, not only what --base leaves out
    timeout: float | None = 120.0
    files: Sequence[str] = ()  # memory files on disk (pre-commit), checked instead of refs
    every: bool = False  # --all: every memory ref there is, as no REF says (round 23: one
    # answer for none — exit 0 where there is none to check, a remote's or a repository's
    # without remotes; exit 2 in a clone whose refs may all be on its remote)


@dataclass(frozen=True)
class Flood:
    """A remote's listing held more writer refs than a team makes: how many, how many checked."""

    total: int
    checked: int


def validate(repo: Store | None, options: ValidateOptions) -> Validation:
    """Check each chosen ref's commit against the policy; UsageError for a ref not there."""
    if options.files or repo is None:
        checked = validate_files(options.files, options.strict)
        return checked if repo is None else _allowed_out(checked, repo)
    flood = None
    if options.remote:
        targets, flood = _remote_targets(repo, options)
    else:
        targets = _local_targets(repo, options)
    known = _base_blobs(repo, options.base)
    result = Validation(strict=options.strict)
    signed = repo.config_get("gitmem.requireSigned")
    old = repo.resolve(options.base) if options.base and set(options.base) != {"0"} else None
    # a new ref (the hook's all-zero old value): every commit no other ref holds is new
    new_ref = bool(options.base) and set(options.base or "") == {"0"}
    if flood is not None:
        result.refs.append(_flood_finding(repo, options.remote or "", flood))
    for name, commit in targets:
        findings = commit_findings(repo, commit, name, known)
        if "/users/" in name and repo.object_type(commit) == "commit":
            findings += _downgrades(repo, commit, name)
        if must_be_signed(name, signed) and repo.object_type(commit) == "commit":
            findings += signature_findings(repo.unverified_commits(commit, old), name)
        result.refs.append(RefFindings(name, commit, findings))
        if (options.history or old or new_ref) and repo.object_type(commit) == "commit":
            since = [old] if old else [EVERY_REF] if new_ref and not options.history else []
            result.refs += _earlier_commits(repo, name, commit, since, known, findings)
    return _allowed_out(result, repo)


def _flood_finding(repo: Store, remote: str, flood: Flood) -> RefFindings:
    from gitmem.project.scopes import TEAM_REF, ref_prefix
    from gitmem.project.writerrefs import WRITERS

    folder = ref_prefix(repo) + WRITERS
    team = ref_prefix(repo) + TEAM_REF[len(GITMEM_REFS) :]
    message = (
        f"{flood.total} writer refs of {TEAM_REF} on {shown_url(remote)}, more than a team "
        f"makes (planted?); checked {flood.checked} distinct commits of them, one ref each. "
        f"Clear what the team ref holds, on the server: git for-each-ref --merged {team} "
        f"--format='delete %(refname) %(objectname)' {folder} | git update-ref --stdin"
    )
    return RefFindings(f"{remote}/{folder}", "", [Finding(folder, 0, "GM180", message)])


def _allowed_out(result: Validation, repo: Store) -> Validation:
    """Secrets the user's own configuration accepts as false positives are not findings."""
    if not any(f.code == "GM140" for r in result.refs for f in r.findings):
        return result
    from gitmem.policy.secrets import user_allow_list

    allow = user_allow_list(repo.config())
    if not allow.fingerprints and not allow.path_globs:
        return result
    for r in result.refs:
        r.findings = [f for f in r.findings if not _allowed(f, allow)]
    return result


def _allowed(finding: Finding, allow: AllowList) -> bool:
    if finding.code != "GM140":
        return False
    mark = finding.message.rpartition("(")[2].rstrip(")")
    return mark in allow.fingerprints or allow.path_allowed(finding.path)


def _earlier_commits(
    repo: Store,
    name: str,
    tip: str,
    since: list[str],
    known: frozenset[str],
    reported: list[Finding],
) -> list[RefFindings]:
    """The errors of each commit of `tip` not reachable from `since` (empty: the whole
    history; EVERY_REF: any ref) that the tip's check did not show: a secret a later commit
    removed is still in the history pushed."""
    from gitmem.policy.commits import intermediate_findings

    checked = known
    if not any(f.code in UNLISTED for f in reported):  # the tip's tree was listed and read
        checked |= read_as_text({p: e.oid for p, e in repo.list_tree(tip).items()})[0]
    found = intermediate_findings(repo, tip, name, since, checked, reported)
    return [RefFindings(name, commit, errors, tip=False) for commit, errors in found]


def _downgrades(repo: Store, commit: str, name: str) -> list[Finding]:
    """GM160 where a personal commit stores in plaintext what its parent encrypted and
    gitmem.encrypt here seals (the rule sync's pull applies: gitmem.policy.rules.unsealed)."""
    from gitmem.privacy.sealedfolders import sealed_prefixes

    parents = repo.read_commit(commit)[1]
    if not parents:
        return []
    paths = repo.list_tree(commit)
    wanted = {*sealed_prefixes(repo), "local"}
    found = []
    for prefix in unsealed(wanted, sealed_in(repo.list_tree(parents[0])), sealed_in(paths), paths):
        found.append(
            Finding(
                f"{prefix}/",
                0,
                "GM160",
                f"plaintext under {prefix}/, which commit {parents[0][:12]} encrypted "
                "(gitmem.encrypt seals it)",
            )
        )
    return found


def _local_targets(repo: Store, options: ValidateOptions) -> list[tuple[str, str]]:
    if not options.refs:
        from gitmem.project.scopes import ref_prefix

        # and where gitmem.refPrefix keeps them (a server of branch-only memory sets it too)
        prefixes = dict.fromkeys((GITMEM_REFS, ref_prefix(repo)))
        found = sorted({n: c for p in prefixes for n, c in repo.refs(p).items()}.items())
        # none, and none anywhere gitmem can tell (no remote): nothing to check, exit 0; with a
        # remote they may be there (a CI checkout fetches no refs/gitmem/*): passing would
        # check nothing, so exit 2 names --remote. One answer, --all or not (round 23: --all
        # passed a checkout whose memory was all on origin, unchecked)
        if not found and repo.remotes():
            raise UsageError(
                f"no memory refs ({', '.join(p + '*' for p in prefixes)}) in {repo.git_dir}",
                _where_they_are(repo),
            )
        return found
    targets = []
    for given in options.refs:
        name = given if given.startswith("refs/") else _full_name(given)
        if not repo.resolve(name) and repo.config_get(f"remote.{given}.url"):
            # `validate origin` read origin/HEAD, a branch: its files reported as bad memory
            raise UsageError(
                f"{given!r} is a remote, not a memory ref",
                f"gitmem validate --remote {command_word(given)} checks the memory refs it holds",
            )
        commit = repo.resolve(name) or repo.resolve(given)
        if commit is None:
            raise UsageError(
                f"no ref or revision {given!r} in {repo.git_dir}",
                _where_they_are(repo, given)
                if name.startswith(GITMEM_REFS) and not any(c in given for c in "~^:@{")
                else "name a memory ref such as refs/gitmem/team (gitmem validate with no REF "
                "checks every one here)",
            )
        label = options.as_ref or (name if repo.resolve(name) else given)
        targets.append((label, commit))
    return targets


def _where_they_are(repo: Store, given: str = "") -> str:
    """Where memory refs missing here are: on the remote (a CI checkout fetches no
    refs/gitmem/*), which `--remote` checks without fetching. Round 23: "fetch them first"
    (how?) and, for a named ref, "name a ref such as refs/gitmem/team" — the very one typed."""
    import shlex

    remotes = repo.remotes()
    if not remotes:
        return "gitmem sync commits the memory folders onto them first"
    remote = "origin" if "origin" in remotes else sorted(remotes)[0]
    named = f" {shlex.quote(given)}" if given else ""
    return (
        f"gitmem validate --remote {shlex.quote(remote)}{named} checks what {remote} holds "
        f"(a CI checkout fetches no {GITMEM_REFS}*)"
    )


def _full_name(given: str) -> str:
    """`team` and `users/x` are short for refs/gitmem/team and refs/gitmem/users/x."""
    return given if given.startswith(GITMEM_REFS) else GITMEM_REFS + given


def _remote_targets(
    repo: Store, options: ValidateOptions
) -> tuple[list[tuple[str, str]], Flood | None]:
    """The refs the remote holds for us, where sync would find them (project.route): under
    gitmem.refPrefix on the remote, and our personal ref on gitmem.hub when one is set; and
    the flood of writer refs its listing held, if any."""
    from gitmem.project.scopes import ref_prefix

    remote = options.remote
    assert remote is not None
    if remote not in repo.remotes() and not any(c in remote for c in "/:\\"):
        from pathlib import Path

        from gitmem.project.scopes import choose_remote

        if not (Path(repo.toplevel or repo.git_dir) / remote).exists():  # git's folder rule
            choose_remote(repo, remote)  # a name that is no remote: one line, as every --remote
    prefix = ref_prefix(repo)
    wanted = [_full_name(r) for r in options.refs] or [GITMEM_REFS + "*"]
    hub_ref = _hub_route(repo, remote)
    places: dict[str, dict[str, str]] = {}  # where -> {name there: our name}
    for ref in wanted:
        if hub_ref and ref == hub_ref[0]:
            places.setdefault(hub_ref[1], {})[hub_ref[2]] = ref
        else:
            places.setdefault(remote, {})[prefix + ref[len(GITMEM_REFS) :]] = ref
    if hub_ref and not options.refs:
        places.setdefault(hub_ref[1], {})[hub_ref[2]] = hub_ref[0]
    targets: list[tuple[str, str]] = []
    missing: list[str] = []
    flood = None
    for where, names in places.items():
        listed, flooded = _writer_flood_cut(
            prefix, repo.ls_remote(where, sorted(names), timeout=options.timeout)
        )
        flood = flood or flooded
        found: dict[str, str] = {}
        fetched: list[str] = []
        for there, oid in listed.items():
            if there in names:
                found[names[there]] = oid
            elif there.startswith(prefix) and any(n.endswith("*") for n in names):
                found[GITMEM_REFS + there[len(prefix) :]] = oid
            else:
                continue
            fetched.append(there)
        lacking = [
            ours for there, ours in names.items() if not there.endswith("*") and ours not in found
        ]
        if lacking and where != remote:
            # the hub's, not the remote's (round 23 said "origin has no refs/gitmem/users/…")
            raise UsageError(
                f"the hub ({shown_url(where)}) has no {', '.join(lacking)}",
                "gitmem sync pushes your personal memory there (gitmem.hub keeps it); "
                f"gitmem validate --remote {command_word(remote)} team checks the team's meanwhile",
            )
        missing += lacking
        if found:
            # objects only: a refspec without a destination stores no ref
            repo.fetch(where, sorted(fetched), timeout=options.timeout)
        label = remote if where == remote else "hub"
        targets += [(f"{label}/{name}", oid) for name, oid in sorted(found.items())]
    if missing or not targets:
        hint = (
            f"check the ref name (git ls-remote {command_word(remote)} "
            f"{command_word(prefix + '*')} lists them)"
        )
        if prefix == GITMEM_REFS and repo.ls_remote(
            remote, [BRANCH_LAYOUT + "team"], options.timeout
        ):
            hint = (  # memory kept on branches by teammates with gitmem.refPrefix set
                f"{remote} keeps memory under {BRANCH_LAYOUT}: "
                f"git config gitmem.refPrefix {BRANCH_LAYOUT}, then retry"
            )
        elif not missing:
            return [], flood  # a remote no one has synced to yet: nothing to check
        raise UsageError(f"{remote} has no {', '.join(missing) or prefix + '*'}", hint)
    return targets, flood


def _writer_flood_cut(prefix: str, listed: dict[str, str]) -> tuple[dict[str, str], Flood | None]:
    """A remote's listing with a flood of writer refs cut to its first FLOOD_WINDOW distinct
    tips (one name a tip): 30,000 planted refs were each fetched by name and checked (> 120 s);
    the flood itself is a finding (GM180), said once with how to clear it (`flood_note`)."""
    from gitmem.project.writerrefs import FLOOD, FLOOD_WINDOW, WRITERS

    folder = prefix + WRITERS
    writers = [name for name in sorted(listed) if name.startswith(folder)]
    if len(writers) <= FLOOD:
        return listed, None
    kept: dict[str, str] = {}  # tip -> its first name
    for name in writers:
        if len(kept) >= FLOOD_WINDOW:
            break
        kept.setdefault(listed[name], name)
    cut = {n: oid for n, oid in listed.items() if not n.startswith(folder)}
    cut.update({name: tip for tip, name in kept.items()})
    return cut, Flood(len(writers), len(kept))


def _hub_route(repo: Store, remote: str) -> tuple[str, str, str] | None:
    """(our personal ref, the hub, its name there) when gitmem.hub keeps it, else None."""
    if not repo.config_get("gitmem.hub") or repo.toplevel is None:
        return None
    from gitmem.errors import GitmemError
    from gitmem.project.scopes import open_project

    try:
        project = open_project(repo, remote)
    except GitmemError:
        return None  # no user to name a personal ref after: the remote's refs only
    route = project.route(project.user_ref)
    return project.user_ref, route.remote, route.name


def _base_blobs(repo: Store, base: str | None) -> frozenset[str]:
    if not base or set(base) == {"0"}:
        return frozenset()  # a new ref (the hook's all-zero old value): everything is new
    commit = repo.resolve(base)
    if commit is None or repo.object_type(commit) != "commit":
        raise UsageError(f"--base {base!r} is not a commit in {repo.git_dir}", "name a commit")
    # the blobs it read as memory text: never its ciphertext, key files or gitmem.toml
    return read_as_text({p: e.oid for p, e in repo.list_tree(commit).items()})[0]


def validate_files(paths: Sequence[str], strict: bool = False) -> Validation:
    """The content checks for memory files kept on a branch (what pre-commit hands over)."""
    from pathlib import Path

    from gitmem.policy.rules import check_content

    result = Validation(strict=strict, unit="file")
    for given in paths:
        path = Path(given)
        from gitmem.core.fileread import TOO_LARGE, NotAFile, read_followed

        try:  # the file named, its links followed, but only a regular file, checked when open
            data = read_followed(path)
        except NotAFile as exc:
            if exc.what != TOO_LARGE:
                raise UsageError(
                    f"cannot read {given}: it is {exc.what}", "check the path"
                ) from None
            data = b"\0" * (MAX_BLOB_BYTES + 1)  # reported as too large, never read whole
        except OSError as exc:
            raise UsageError(f"cannot read {given}: {exc.strerror}", "check the path") from None
        result.refs.append(RefFindings(given, "", check_content(given, data)))
    return result
