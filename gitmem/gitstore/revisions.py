"""Questions about the commit graph: ancestry, logs, when a path last changed."""

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, NamedTuple

from gitmem.errors import GitError
from gitmem.gitstore.base import GitDir, commit_time
from gitmem.gitstore.process import run_git
from gitmem.gitstore.spawn import NO_ATTRIBUTES_FILE


class Commit(NamedTuple):
    """One commit as a log line: who, when, what it says and which paths it changed."""

    oid: str
    time: float
    author: str
    email: str
    subject: str
    paths: tuple[str, ...]


# a merge base is first looked for among this many commits behind each side, read in-process
# (a pull or push is mostly one side a few commits ahead of the other); then `git merge-base`
NEAR_ANCESTRY = 8


class History(GitDir):
    if TYPE_CHECKING:  # the object store's (gitstore/objects.py), beside this in Repository

        def read_commit(self, oid: str) -> tuple[str, list[str], str]: ...

    def _within(self, start: str, target: str) -> bool:
        """Whether `target` is `start` or one of its first NEAR_ANCESTRY ancestors (breadth
        first, read in-process); False also where a commit cannot be read here."""
        todo, seen = [start], set[str]()
        try:
            while todo and len(seen) < NEAR_ANCESTRY:
                commit = todo.pop(0)
                if commit == target:
                    return True
                if commit not in seen:
                    seen.add(commit)
                    todo += self.read_commit(commit)[1]
        except GitError:
            return False
        return False

    def merge_base(self, a: str, b: str) -> str | None:
        key = ("base", a, b)
        if key in self._ancestry:
            return self._ancestry[key]
        if self._is_oid(a) and self._is_oid(b):  # one side a few commits behind the other
            near = a if self._within(b, a) else b if self._within(a, b) else None
            if near is not None:
                self._ancestry[key] = near
                return near
        proc = self.git("merge-base", a, b, check=False)
        base = proc.stdout.decode().strip() or None if proc.returncode == 0 else None
        if self._is_oid(a) and self._is_oid(b):  # commits never change: remember the answer
            self._ancestry[key] = base
        return base

    def is_ancestor(self, a: str, b: str) -> bool:
        key = ("ancestor", a, b)
        if key in self._ancestry:
            return self._ancestry[key] is not None
        if not (self._is_oid(a) and self._is_oid(b)):
            return self.git("merge-base", "--is-ancestor", a, b, check=False).returncode == 0
        # two commits: their merge base answers both ways at once (a pull asks whether the
        # fetched tip is behind ours, then whether ours is behind it): one process, not two
        base = self.merge_base(a, b)
        self._ancestry[key] = "yes" if base == a else None
        self._ancestry[("ancestor", b, a)] = "yes" if base == b else None
        return base == a

    def ahead_behind(self, local: str | None, remote: str | None) -> tuple[int, int]:
        if local and local == remote:
            return 0, 0  # the usual answer after a sync: no process for it
        if not local or not remote:
            return (
                self.count_commits(local) if local else 0,
                self.count_commits(remote) if remote else 0,
            )
        out = self.git("rev-list", "--left-right", "--count", f"{local}...{remote}").stdout.split()
        return int(out[0]), int(out[1])

    def count_commits(self, rev: str, first_parent: bool = False) -> int:
        """Commits in `rev`'s history (`first_parent`: the chain `~N` walks)."""
        extra = ("--first-parent",) if first_parent else ()
        return int(self.git("rev-list", "--count", *extra, rev).stdout.strip())

    def has_own_commits(self, tip: str, held: Sequence[str]) -> bool:
        """Whether `tip` reaches a commit that is not a merge and that none of `held` reaches
        (an edit of its own, not only merges of what `held` already has). One process."""
        out = self.git("rev-list", "--no-merges", "-n1", tip, "--not", *held, "--").stdout
        return bool(out.strip())

    def first_wide(self, tips: Sequence[str], held: Sequence[str], parents: int) -> str | None:
        """A commit of at least `parents` parents that `tips` reach and none of `held` does,
        or None (one process)."""
        args = ["rev-list", f"--min-parents={parents}", "-n1", *tips, "--not", *held, "--"]
        return self.git(*args, check=False).stdout.decode("ascii", "replace").strip() or None

    def whole(self, tips: Sequence[str]) -> bool:
        """Whether every object the commits `tips` reach is here, as git checks a fetch
        (`rev-list --objects ... --not --all`): a commit alone says nothing of its tree — a
        fetch killed while unpacking leaves commits whose trees never came (round 21: a
        writer ref set to one, and the next sync stopped on the missing tree). One process."""
        if not tips:
            return True
        args = ["rev-list", "--objects", "--quiet", *sorted(set(tips)), "--not", "--all", "--"]
        return self.git(*args, check=False).returncode == 0

    def held(self, tips: Sequence[str], into: str) -> set[str]:
        """The commits of `tips` that commit `into` reaches (itself included). A tip this
        repository lacks, or that names no commit, is not held. Two processes for all tips."""
        asked = sorted(set(tips))
        if not asked:
            return set()
        here = self.git("rev-list", "--no-walk", "--ignore-missing", *asked, check=False)
        if here.returncode != 0:  # a tip that names a blob or a tree: nothing is taken as held
            return set()
        present = set(here.stdout.decode("ascii", "replace").split()) & set(asked)
        if not present:
            return set()
        out = self.git("rev-list", *sorted(present), "--not", into, "--", check=False)
        if out.returncode != 0:
            return set()
        return present - set(out.stdout.decode("ascii", "replace").split())

    def unreached(self, prefix: str, into: Sequence[str]) -> dict[str, str]:
        """ref -> tip of each ref under `prefix` whose tip none of the commits `into` reaches
        (not merged into any of them), in the order of names. One process for all the refs."""
        fmt = "--format=%(objectname) %(refname)"
        out = self.git("for-each-ref", fmt, *(f"--no-merged={c}" for c in into), prefix).stdout
        lines = out.decode("utf-8", "surrogateescape").split("\n")  # names: bytes (parse_refs)
        found = dict(line.split(" ", 1)[::-1] for line in lines if line)
        return {name: found[name] for name in sorted(found)}

    def log(
        self,
        rev: str,
        path: str | Sequence[str] | None = None,
        limit: int | None = None,
        full_history: bool = False,
        resolved: str | None = None,
    ) -> list[dict[str, str]]:
        """Commits of `rev` (touching `path`). `full_history`: every side of a merge, also
        the one whose version lost. `resolved`: only merges whose message mentions it."""
        # fields end with NUL, which git never prints from a commit (its text ends at one):
        # a teammate's author, subject or trailer may hold any other byte (issue: red team 6)
        trailers = "%(trailers:key=Gitmem-Resolved,valueonly,unfold,separator=%x0a)"
        fmt = f"%H%x00%ct%x00%an%x00%ae%x00%s%x00{trailers}%x00"
        args = ["log", f"--format={fmt}"] + ([f"-n{limit}"] if limit else [])
        if full_history:  # both sides, without the merges that only brought one side's
            # version (round 22: `log PATH` listed such a merge, no file under it)
            args += ["--full-history", "--simplify-merges"]
        if resolved is not None:  # "": every merge that resolved something
            args += ["--merges", "--fixed-strings", f"--grep=Gitmem-Resolved: {resolved}"]
        args.append(rev)
        if path:
            args += ["--", *literal([path] if isinstance(path, str) else path)]
        out = self.git(*args).stdout.decode("utf-8", "replace")
        rows = []
        for oid, ts, author, email, subject, values in nul_records(out, 6):
            rows.append(
                {
                    "commit": oid,
                    "time": str(commit_time(ts)),  # a teammate's may be any text
                    "author": author,
                    "email": email,
                    "subject": subject,
                    "resolved": "\x1d".join(
                        v.replace("\x1d", GROUP_SHOWN) for v in values.split("\n") if v
                    ),
                }
            )
        return rows

    def changed_files(
        self,
        commits: Sequence[str],
        limit: int,
        skip: Collection[str] = (),
        only: Collection[str] = (),
    ) -> dict[str, tuple[list[tuple[str, str, str]], int]]:
        """What each of `commits` changed against its parent, as `git log --name-status` says
        it (one process): {commit: ([(letter, path, old path of a rename or ""), …], count)},
        at most `limit` entries kept a commit, `count` all of them; paths in `skip` left out,
        and with `only`, every entry that names none of them (old or new path).
        Merges list nothing, as git's log: what they brought is listed under the commits they
        merged."""
        if not commits:
            return {}
        out = self.git(
            "diff-tree",
            "--stdin",
            "-z",
            "--name-status",
            "-M",
            "--root",
            "-r",
            input="".join(f"{c}\n" for c in commits).encode(),
        ).stdout
        wanted = set(commits)
        found: dict[str, tuple[list[tuple[str, str, str]], int]] = {}
        kept: list[tuple[str, str, str]] = []
        current = ""
        tokens = iter(out.decode("utf-8", "replace").split("\0"))  # shown, never opened
        for token in tokens:
            token = token.lstrip("\n")
            if token in wanted:  # a commit's id opens its entries (a letter is never one)
                current, kept = token, []
                found[current] = (kept, 0)
            elif token and current:
                path = next(tokens, "")
                old = ""
                if token[0] in "RC":  # a rename or copy: the old path, then the new
                    old, path = path, next(tokens, "")
                if path in skip or (only and path not in only and old not in only):
                    continue
                if len(kept) < limit:
                    kept.append((token[0], path, old))
                found[current] = (kept, found[current][1] + 1)
        return found

    def change_times(self, base: str | None, tip: str) -> dict[str, float]:
        """Commit time of the newest change to each path in base..tip (one process)."""
        rng = f"{base}..{tip}" if base else tip
        out = self.git(
            "-c",
            "core.quotePath=false",
            "log",
            "--format=%x00%ct",
            "--name-only",
            "--no-renames",
            rng,
            "--",
        ).stdout
        return _parse_change_times(out)

    def line_times(self, base: str | None, tip: str, path: str) -> dict[str, float]:
        """The commit time that wrote each line of `path` at `tip` (trailing whitespace aside;
        a line written twice: the later), from `git blame` — bounded by `base`: a line
        older than it gets the base's own time. Empty when git cannot say (one process).
        Empty too where a config names `blame.ignoreRevsFile`: git reads every file it names
        (a `.git/config` that came with the folder: /dev/zero grew git to gigabytes, a FIFO
        held the sync for the timeout), no option or `-c` takes it back, and the revisions
        it skips would give this replica ages no other one computes."""
        if self.config().get("blame.ignorerevsfile"):
            return {}
        rng = [f"{base}..{tip}"] if base else [tip]
        # blame reads the mailmap whatever it prints: `mailmap.file`/`mailmap.blob` of a config
        # and the work tree's `.mailmap` (a FIFO held the sync for the timeout, /dev/zero grew
        # git, red team 8): none named, run as a bare repository from the git dir (no work tree)
        argv = ["--git-dir", str(self.git_dir), "-c", "core.bare=true", "blame"]
        argv += ["--porcelain", "--no-textconv", *rng, "--", path]
        try:
            done = run_git(argv, cwd=self.git_dir, check=False, timeout=60)
        except GitError:  # too long a history to read in time: no ages
            return {}
        if done.returncode != 0:
            return {}
        return _parse_line_times(done.stdout)

    def commits_touching(
        self,
        base: str | Sequence[str] | None,
        tip: str | Sequence[str],
        limit: int = 50,
        paths: bool = True,
    ) -> list[Commit]:
        """Non-merge commits in base..tip, newest first, each with its author and changed paths
        (several tips or bases: what any tip holds that no base does). `paths=False`: who and
        what subject only, every `paths` empty — git diffs no commit's tree against its parent."""
        bases = [base] if isinstance(base, str) else list(base or ())
        tips = [tip] if isinstance(tip, str) else list(tip)
        rng = [*tips, *(f"^{b}" for b in bases)]
        listing = ["--name-only", "--no-renames"] if paths else []
        out = self.git(
            "-c",
            "core.quotePath=false",
            "log",
            "--no-merges",
            f"-n{limit}",
            "--format=%x00%H%x00%ct%x00%an%x00%ae%x00%s%x00",
            *listing,
            *rng,
            "--",
        ).stdout.decode("utf-8", "surrogateescape")
        commits = []
        # NUL-ended fields (`log`): an author or subject may hold any other byte
        for oid, ts, name, email, subject, names in nul_records(out.removeprefix("\0"), 6):
            changed = tuple(n for n in names.split("\n") if n)
            commits.append(Commit(oid, float(commit_time(ts)), name, email, subject, changed))
        return commits

    def path_history(
        self, rev: str | Sequence[str], path: str | Sequence[str], limit: int = 0
    ) -> list[tuple[str, str | None]]:
        """(commit, blob-or-None) for each commit of `rev` (or of any of several) that touched
        `path`, newest first, at most `limit` of them (0: all): one process. A commit's raw diff names the blob it leaves at `path` (all zeros: deleted);
        `-m` diffs a merge against each parent, and one that differs names the merge's blob.
        Several paths: the names one file had (a key rotation renames a hidden name), so a
        commit that deletes one and adds another names the blob it adds."""
        paths = [path] if isinstance(path, str) else list(path)
        revs = [rev] if isinstance(rev, str) else list(rev)
        out = self._raw_log("%x00%H", revs, paths, limit)
        targets = {p.encode("utf-8", "surrogateescape") for p in paths}
        result: dict[str, str | None] = {}
        commit = ""
        tokens = iter(out.split(b"\0"))
        for token in tokens:
            token = token.lstrip(b"\n")
            if token.startswith(b":"):  # ":oldmode newmode oldoid newoid status", then the path
                if next(tokens, b"") in targets and commit:
                    new_oid = token.split()[3].decode()
                    if new_oid.strip("0"):
                        result[commit] = new_oid
            elif token:
                commit = token.decode()
                result.setdefault(commit, None)
        return list(result.items())

    def blobs_in_history(self, revs: Sequence[str], folder: str) -> dict[str, set[str]]:
        """Every blob id each path under `folder` ever had in the history of `revs`, by path
        relative to `folder` (one process): how a folder without sync state finds the versions
        it already holds."""
        out = self._raw_log("", revs, [folder + "/"])
        start = folder + "/"
        seen: dict[str, set[str]] = {}
        tokens = iter(out.split(b"\0"))
        for token in tokens:
            token = token.lstrip(b"\n")
            if not token.startswith(b":"):
                continue
            path = next(tokens, b"").decode("utf-8", "surrogateescape")
            if path.startswith(start):
                fields = token.split()
                oids = {f.decode() for f in fields[2:4] if f.strip(b"0")}
                seen.setdefault(path[len(start) :], set()).update(oids)
        return seen

    def commit_changes(
        self, tip: str, exclude: Sequence[str] = ()
    ) -> list[tuple[str, dict[str, tuple[str, str]]]]:
        """Each commit of `tip` not reachable from `exclude` ("--all": from any ref), oldest first, with the entries
        it adds or changes against each of its parents: {path: (mode, object id)} (one
        process). What a check of every commit new in a push reads: a blob that only an
        intermediate commit holds is here, and nothing any other commit holds is repeated
        more than the commits that change it."""
        revs = [tip, *(f"^{x}" for x in exclude if x and x.strip("0") and x != "--all")]
        if "--all" in exclude:  # what no ref holds (a pre-receive hook: new to the server)
            revs += ["--not", "--all"]
        out = self.git(
            "log",
            "--reverse",
            "--format=%x00%H",
            "--full-history",
            "-m",
            "--raw",
            "-z",
            "--no-abbrev",
            "--no-renames",
            *revs,
            "--",
        ).stdout
        commits: dict[str, dict[str, tuple[str, str]]] = {}
        current: dict[str, tuple[str, str]] | None = None
        tokens = iter(out.split(b"\0"))
        for token in tokens:
            token = token.lstrip(b"\n")
            if token.startswith(b":"):  # ":oldmode newmode oldoid newoid status", then the path
                path = next(tokens, b"").decode("utf-8", "surrogateescape")
                fields = token.split()
                if current is not None and fields[3].strip(b"0"):
                    current[path] = (fields[1].decode(), fields[3].decode())
            elif token:
                current = commits.setdefault(token.decode(), {})
        return list(commits.items())

    def _raw_log(
        self, fmt: str, revs: Sequence[str], paths: Sequence[str], limit: int = 0
    ) -> bytes:
        """Every commit's raw diff at `path` against each of its parents (merges included),
        NUL-separated: what path_history and blobs_in_history read, in one process."""
        args = ["--full-history", "-m", "--raw", "-z", "--no-abbrev", "--no-renames"]
        if limit:
            args.append(f"--max-count={limit}")
        return self.git("log", f"--format={fmt}", *args, *revs, "--", *literal(paths)).stdout

    def diff(self, old: str, new: str, paths: Sequence[str] = (), stat: bool = False) -> str:
        # no program the repository's settings name (diff.external, a textconv): red team 6;
        # no attribute file of theirs (red team 21): git reads `.gitattributes` from the folder
        # it runs in, even as a bare repository (a FIFO there held `gitmem diff` for ever), so
        # it runs bare in the git folder, as blame does; a `core.attributesFile` of the
        # repository's config (a FIFO, /dev/zero) is replaced; `--text` shows a memory whatever
        # `-diff`, `binary` or core.bigFileThreshold call it ("Binary files differ" hid a
        # teammate's edit)
        args = ["-c", "core.bare=true", *NO_ATTRIBUTES_FILE, "diff"]
        args += ["--no-color", "--no-ext-diff", "--no-textconv", "--text", "--no-relative"]
        args += ["--stat" if stat else "-p", old, new]
        if paths:
            args += ["--", *literal(paths)]
        argv = ["--git-dir", str(self.git_dir), *args]
        done = run_git(argv, cwd=self.git_dir, env=self.reading_env(args, None))
        return done.stdout.decode("utf-8", "replace")


def literal(paths: Sequence[str]) -> list[str]:
    """Pathspecs that name exactly these paths: a memory's id is a file's name, never a pattern
    (`team/*`, `:(glob)…`, a leading `:` would match by wildcard or magic: red team 15)."""
    return [f":(literal){p}" for p in paths]


# how a Gitmem-Resolved value's own group separator (the one `log` joins values with) is kept
GROUP_SHOWN = "\u241d"


def nul_records(out: str, fields: int) -> list[list[str]]:
    """git log's output in `fields` NUL-ended fields a commit (`--format=...%x00`): git never
    prints a NUL from a commit's text, so no author, subject or body can end a field early or
    forge a commit of its own, whatever else it holds (the separators gitmem used before,
    \\x1e and \\x1f, among them). The newline git ends each commit with opens the next."""
    tokens = out.split("\0")
    records = []
    for start in range(0, len(tokens) - fields + 1, fields):
        record = tokens[start : start + fields]
        record[0] = record[0].lstrip("\n")
        records.append(record)
    return records


_HEX = frozenset(b"0123456789abcdef")


def _parse_line_times(out: bytes) -> dict[str, float]:
    """`git blame --porcelain`: a header line per line of the file (its commit first), the
    commit's fields the first time it is named, then the line itself after a tab."""
    times: dict[str, float] = {}
    when: dict[bytes, float] = {}
    commit = b""
    for raw in out.split(b"\n"):
        if raw.startswith(b"\t"):
            line = raw[1:].decode("utf-8", "surrogateescape").rstrip()
            t = when.get(commit)
            if t is not None and t > times.get(line, float("-inf")):
                times[line] = t
        elif raw.startswith(b"committer-time ") and raw[15:].isdigit():
            when[commit] = float(commit_time(raw[15:]))
        else:
            head = raw.split(b" ", 1)[0]
            if len(head) in (40, 64) and b" " in raw and all(c in _HEX for c in head):
                commit = head
    return times


def _parse_change_times(out: bytes) -> dict[str, float]:
    times: dict[str, float] = {}
    stamp = 0.0
    for line in out.split(b"\n"):
        if line.startswith(b"\0"):
            stamp = float(commit_time(line[1:]))
        elif line:
            times.setdefault(line.decode("utf-8", "surrogateescape"), stamp)
    return times
