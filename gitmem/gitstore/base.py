"""A repository found on disk: where its git directory is, how to run git in it, its config.

The parts of `Repository` (objects, refs, history, transport) build on this class."""

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from gitmem.core.choices import PROTECTIVE, confirmed, lowers
from gitmem.errors import NotARepository, UsageError
from gitmem.gitstore.process import Completed, run_git, subcommand

if TYPE_CHECKING:
    from gitmem.gitstore.catfile import CatFile
    from gitmem.gitstore.process import Running

# the git commands that open a repository (`Opening`)
REV_PARSE = (
    "rev-parse",
    "--is-bare-repository",
    "--absolute-git-dir",
    "--git-common-dir",
    "--show-toplevel",
)
# with each value's scope (system, global, local, worktree, command): a question about one
# file (`drivers status`: the global attributes file) needs no second process
CONFIG_LIST = ("config", "-z", "--list", "--show-scope", "--show-origin")
OURS = ("refs/gitmem/", "refs/gitmem-remotes/")  # every ref gitmem reads or moves
REFS_LIST = ("for-each-ref", "--format=%(objectname) %(refname)")
# `:(top)` pathspecs are magic: a caller's GIT_LITERAL_PATHSPECS=1 must not make them literal
TRACKED_ENV = {"GIT_LITERAL_PATHSPECS": "0"}


# the latest commit time gitmem takes from git (9999-12-31, the last second Python's dates
# hold): a teammate's commit may say 2**64-1, a negative number or none at all, and git prints
# what the object holds (red team 11)
LAST_TIME = 253402300799


def commit_time(raw: str | bytes) -> int:
    """A commit time git printed (`%ct`, blame's `committer-time`, a committer line's): whole
    seconds in [0, LAST_TIME]; what is not such a number (empty, signed, a word) is 0."""
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    text = text.strip()
    if not text.isascii() or not text.isdigit():
        return 0
    return min(int(text[:13]) if len(text) > 12 else int(text), LAST_TIME)


def tracked_listing(paths: Sequence[str]) -> tuple[str, ...]:
    """`ls-files` of `paths` (from the top of the work tree whatever folder it runs in,
    literally): which of them the branch tracks."""
    return ("ls-files", "-z", "--full-name", "--", *(f":(top){p}" for p in paths))


HEX = "0123456789abcdef"
# the git commands through which gitmem moves refs: running one forgets the ref cache
REF_WRITERS = frozenset(("update-ref", "fetch", "push", "pull", "symbolic-ref", "pack-refs", "gc"))
# git commands that move objects between stores or point refs at them: they never see
# gitmem's private objects (`GitDir.private_objects`). An alternate there would let a fetch
# skip an object a teammate's ref needs (round 14), a push or a bundle carry plaintext
# personal memory, and update-ref accept a tip whose objects were never published.
SEALED_OFF = frozenset(
    (
        "fetch",
        "push",
        "pull",
        "bundle",
        "update-ref",
        "index-pack",
        "unpack-objects",
        "pack-objects",
        "repack",
        "gc",
        "prune",
        "fsck",
        "ls-remote",
        "clone",
    )
)


class TreeEntry(NamedTuple):  # a tuple: list_tree makes ten thousand of them per sync
    mode: str
    kind: str  # blob | tree | commit
    oid: str
    size: int | None = None  # blobs only, when asked for


class TreeShape(NamedTuple):
    """What a bounded walk of a tree found (gitstore `tree_shape`)."""

    last: str  # the last path read: the one past a bound, when `complete` is False
    depth: int  # levels read (1: the root's entries)
    entries: int  # entries read, folders included
    tree_bytes: int  # bytes of the tree objects read
    complete: bool  # False: the walk stopped at a bound
    # the first entry whose raw name holds "/": (its folder, "" at the top; its name). git
    # fsck refuses such a tree, and a listing shows it as a path it is not
    slashed: tuple[str, str] | None = None
    files: int = 0  # entries read that are not folders


# settings gitmem takes from the user alone (gitmem's own; the programs `cli/pager` and
# `ObjectStore.signing_programs` run): never from a file of the working tree, in any scope
_USERS_ALONE = frozenset(
    ("core.pager", "gpg.program", "gpg.openpgp.program", "gpg.ssh.program", "gpg.x509.program")
)


def _users_alone(key: str) -> bool:
    return key.startswith("gitmem.") or key in _USERS_ALONE


# The files of a git folder git (and gitmem's own ref reader) opens on the way to our refs, the
# index and the config: one that is a FIFO or a device (an archive's `.git` can carry one) held
# every git — `for-each-ref` on `packed-refs`, `ls-files` on `index` — and so every command and
# the unasked hook past its bound (red team 11). One `stat` each, at the opening.
_COMMON_FILES = (
    "packed-refs",
    "config",
    "shallow",
    "objects/info/alternates",
    "info/attributes",
    "info/exclude",
    "info/sparse-checkout",
    "FETCH_HEAD",
    # red team 23: what git reads of the object store beside the objects themselves (a FIFO
    # commit-graph or multi-pack-index held every fetch to its timeout, "the remote did not
    # answer")
    "objects/info/commit-graph",
    "objects/info/commit-graphs/commit-graph-chain",
    "objects/pack/multi-pack-index",
)
_OWN_FILES = ("HEAD", "index", "config.worktree", "commondir", "gitdir")
# red team 23: the reflogs of our refs, which git appends to at each move of a ref whose log
# exists: a FIFO there held gitmem's `update-ref` for ever. Absent but for users of
# `core.logAllRefUpdates = always` (one `lstat` each then; the walk only where they are)
_OUR_LOGS = ("logs/refs/gitmem", "logs/refs/gitmem-remotes")


def _no_waiting_files(git_dir: Path, common_dir: Path) -> None:
    import stat

    paths = [
        f / n for f, names in ((common_dir, _COMMON_FILES), (git_dir, _OWN_FILES)) for n in names
    ]
    for path in paths + _our_logs(common_dir):
        try:
            st = os.stat(path)
        except OSError:
            continue  # absent (git's default), or a dangling link: git says so itself
        if not stat.S_ISREG(st.st_mode):
            from gitmem.core.sanitize import command_word  # only for this message
            from gitmem.errors import UsageError

            raise UsageError(
                f"{path} is not a regular file (a FIFO, a device, a folder): git would wait "
                "on it or fail, and gitmem with it",
                f"move it away if this repository is yours (mv {command_word(str(path))} "
                f"{command_word(str(path) + '.bad')}); nothing was read or written",
            )


def _our_logs(common_dir: Path) -> list[Path]:
    """The files under our refs' reflog folders (`_OUR_LOGS`) that are not folders: none
    and no walk where those folders are absent (git's default)."""
    found: list[Path] = []
    for name in _OUR_LOGS:
        folders = [common_dir / name]
        while folders:
            try:
                entries = list(os.scandir(folders.pop()))
            except OSError:
                continue  # absent, or not a folder (the stat above names a FIFO there)
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(Path(entry.path))
                else:
                    found.append(Path(entry.path))
    return found


# Files a setting names that git reads on gitmem's work where no `-c` takes the setting back
# (red team 21): fetch.fsck.skipList adds a list at each mention (with transfer.fsckObjects,
# /dev/zero in `.git/config` held every sync's fetch), core.attributesFile is the user's own
# global file where the merge driver asks git (pushes, bundles and diffs read none:
# spawn.NO_ATTRIBUTES_FILE). One that is not a regular file is refused as round 11's are.
_FILE_SETTINGS = ("fetch.fsck.skiplist", "core.attributesfile")


def _no_waiting_settings(
    config: Mapping[str, list[str]],
    where: Path,
    common_dir: Path,
    origins: Mapping[str, list[str]] | None = None,
) -> None:
    """`where`: the folder gitmem runs git in (the work tree), where git opens a relative
    path (review 21: `fetch.fsck.skipList = skip` and a FIFO `skip` of the work tree held
    every sync's fetch as an absolute one did); `origins`: each value's file
    (`--show-origin`, relative to `where`)."""
    import stat

    named = [(key, where, value) for key in _FILE_SETTINGS for value in config.get(key, ())]
    # red team 22: an included file, which every git reads at its start: `/dev/stdin` was a
    # local remote's `upload-pack`'s own protocol pipe, read as config, and every fetch failed
    # ("check the remote URL"). One that makes `config --list` itself wait is bounded by the
    # opening's timeout (round 10). A relative one is the including file's folder's, as git
    # reads it (review 22: the global config's is beside it, not in the git folder)
    for key, values in config.items():
        if key == "include.path" or (key.startswith("includeif.") and key.endswith(".path")):
            froms = (origins or {}).get(key, [])
            for n, value in enumerate(values):
                origin = froms[n] if n < len(froms) else ""
                base = common_dir
                if origin.startswith("file:"):
                    base = Path(os.path.dirname(os.path.join(where, origin[5:])))
                named.append((key, base, value))
    for key, base, value in named:
        path = os.path.join(base, os.path.expanduser(value))  # an absolute one as it is
        if path == os.devnull:
            continue  # nothing to wait on
        try:
            st = os.stat(path)
        except OSError:
            continue  # absent: git says so itself, or reads none
        if not stat.S_ISREG(st.st_mode):
            from gitmem.core.sanitize import command_word, terminal

            raise UsageError(
                f"{terminal(key)} names {terminal(path)}, not a regular file (a FIFO, a "
                "device, a folder): git would wait on it or read it without end, and gitmem "
                "with it",
                f"unset it if this repository is yours (git config --unset {command_word(key)}); "
                "nothing was read or written",
            )


# A partial clone (`git clone --filter=blob:none`) fetches a missing object on its own, from
# within whatever git reads it (`cat-file`, `rev-list`, `diff`): `git fetch <promisor>` with
# the remote's own settings, past the `--upload-pack` gitmem's fetches give (red team 22: an
# archive's `.git/config` with `extensions.partialClone = origin`, origin a local path and
# `remote.origin.uploadpack = ./evil` ran it at bob's next sync, reading a teammate's new
# memory). gitmem's own fetches take every object (`transport.FETCH`: `--no-filter`); a
# program the repository's own config names for such a fetch is refused at the opening.
def _no_lazy_programs(config: Mapping[str, list[str]], scopes: Mapping[str, list[str]]) -> None:
    promisors = set(config.get("extensions.partialclone", ()))
    promisors.update(
        key[len("remote.") : -len(".promisor")]
        for key, values in config.items()
        if key.startswith("remote.")
        and key.endswith(".promisor")
        and values
        and _git_true(values[-1])
    )
    for name in sorted(promisors):
        key = f"remote.{name}.uploadpack"
        values = config.get(key)
        if values and values[-1] != "git-upload-pack" and scopes[key][-1] in ("local", "worktree"):
            from gitmem.core.sanitize import command_word, terminal

            raise UsageError(
                f"{terminal(key)} names {terminal(values[-1])!r} in the repository's own config: "
                "git would run it to fetch a missing object of this partial clone",
                f"unset it if this repository is yours (git config --unset {command_word(key)}); "
                "nothing was read or written",
            )


def _git_true(value: str) -> bool:
    """A boolean setting as git reads it: true, yes, on, empty, or any nonzero integer (`2`,
    `-1`, `1k`, `0x1`: base 0, a unit suffix). Review 22: a promisor spelled `2` was taken for
    false, its remote's uploadpack let through. A value git cannot read counts as true: git
    stops at it, and a refusal here costs one line."""
    word = value.strip().lower()
    if word in ("false", "no", "off"):
        return False
    try:
        return int(word.rstrip("kmg") or "1", 0) != 0  # `` is true
    except ValueError:  # `007` (octal to git) or no number at all
        return True


class GitDir:
    """One git repository (any worktree of it, or a bare one)."""

    def __init__(
        self,
        path: str | os.PathLike[str] = ".",
        tracked: Sequence[str] = (),
        refs: bool = False,
        opening: "Opening | None" = None,
    ) -> None:
        """`tracked`: paths (from the top of the work tree) whose `is_tracked` answer is asked
        now, beside the config, while `rev-parse` finds the repository: three small git
        processes at once instead of one after the other (every command starts with them).
        `refs`: our refs are read at the same time too (a sync asks for them next).
        `opening`: those processes, started earlier (while the caller imported the rest)."""
        if opening is None:
            opening = Opening(path, tracked, refs)
        start, early = opening.start, opening.early
        try:
            proc = opening.where.wait()
        except BaseException:
            opening.cancel()
            raise
        finally:
            opening.where.cancel()
        out = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
        if proc.returncode != 0 and not (out and out[0] == "true"):
            early.cancel()
            named = _named_by_environment(start)
            if not named and len(out) > 1 and out[0] == "false":
                # git found the repository but no working tree: a folder inside its .git (round
                # 20: "not a git repository: …/shop/.git", of the one folder that surely is)
                from gitmem.core.sanitize import command_word

                git_dir = Path(out[1])
                # quoted: the hint is copied into a shell (a checkout path with a space)
                tree = (
                    f" (-C {command_word(str(git_dir.parent))})" if git_dir.name == ".git" else ""
                )
                named = [
                    NotARepository(
                        f"{start.resolve()} is inside the git folder of a clone, not its "
                        "working tree",
                        f"run gitmem in its working tree{tree}, or pass -C PATH",
                    )
                ]
            raise (
                named[0]
                if named
                else NotARepository(
                    f"not a git repository: {start.resolve()}",
                    "run gitmem inside a clone, or pass -C PATH",
                )
            )
        self.is_bare = out[0] == "true"
        self.git_dir = Path(out[1])
        common = Path(out[2])
        self.common_dir = (common if common.is_absolute() else (start / common)).resolve()
        self.toplevel = Path(out[3]).resolve() if len(out) > 3 and not self.is_bare else None
        try:
            _no_waiting_files(
                self.git_dir if self.git_dir.is_absolute() else start / self.git_dir,
                self.common_dir,
            )
        except BaseException:
            early.cancel()
            raise
        self.started_in = start  # the folder git looked for the repository from
        refused = _named_by_environment(start, self.git_dir, self.common_dir, self.toplevel)
        if refused:
            early.cancel()
            raise refused[0]
        from gitmem.core.statedir import note_work_tree

        note_work_tree(self.common_dir, self.toplevel)
        self._config: dict[str, list[str]] | None = None
        self._config_listing: bytes | None = None
        self._config_scopes: dict[str, list[str]] = {}
        self._reader: CatFile | None = None
        self.object_format = "sha1"
        self._hash_len = 40
        # Caches that save one git process per question (a sync asks dozens): our refs, read
        # at once and kept until a ref-moving command runs; and answers about immutable objects.
        self._refs: dict[str, str] | None = None
        self._trees: dict[tuple[str, bool], dict[str, TreeEntry]] = {}
        self._ancestry: dict[tuple[str, str, str], str | None] = {}
        # tree and commit objects read or written in this run, by id (a push reads the
        # folder's tree once per file it edits, then diffs what it wrote; a pull reads its two
        # tips' commits a dozen times): (kind, bytes), bounded (gitstore/objects.py)
        self._kept_objects: dict[str, tuple[str, bytes]] = {}
        self._kept_bytes = 0
        self._tracked: dict[str, bool] = {}
        self._signed: set[str] = set()  # commits `commit-tree -S` wrote (objects.publish)
        # gitmem.* settings read from a file of the work tree (red team 6), left out
        self.config_from_tree: list[tuple[str, str]] = []
        # protection-lowering values of the repository's own config not confirmed (core/choices)
        self.lowered_by_repo: list[tuple[str, str]] = []
        opened = early.results(bare=self.is_bare)
        if opened.config is not None:
            self._set_config(opened.config)
        self._tracked.update(opened.tracked)
        self._refs = opened.refs

    def git(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        in_git_dir: bool = False,
    ) -> Completed:
        """`in_git_dir`: run in the git folder, not the work tree (red team 21): git reads a
        `.gitattributes` of the folder it runs in and of each folder of a path it packs
        (`pack-objects` asks every path's `delta` attribute), and a FIFO there — an unpacked
        archive's, at the top or in a `team/` folder — held every push and bundle for ever."""
        if subcommand(args) in REF_WRITERS:
            self._refs = None
        argv, cwd = self.command(*args)
        env = self.reading_env(args, env)
        cwd = self.git_dir if in_git_dir else cwd
        return run_git(argv, cwd=cwd, input=input, check=check, timeout=timeout, env=env)

    def command(self, *args: str) -> tuple[list[str], Path]:
        """git's arguments (after `git`) and the folder to run them in, for `git(*args)`."""
        # cwd = the worktree (as if the user ran git there): relative remote URLs resolve alike
        return ["--git-dir", str(self.git_dir), *args], self.toplevel or self.git_dir

    def relative_url(self, remote: str) -> bool:
        """Does `remote` (a name or a URL) reach a local path named relative to the work
        tree? Such a remote is reached from the work tree, as git does; any other from the
        git folder (`in_git_dir`)."""
        urls = (
            self.config().get(f"remote.{remote}.pushurl")
            or self.config().get(f"remote.{remote}.url")
            or [remote]
        )
        return any(
            not (url.startswith("/") or "://" in url or ":" in url.split("/", 1)[0]) for url in urls
        )

    def start(self, *args: str, timeout: float, env: Mapping[str, str] | None = None) -> "Running":
        """`git(...)` started in the background; `.wait()` for its result. The ref cache is
        kept while it runs (what the caller reads meanwhile is as it was when it started: a
        fetch moves only remote-tracking refs, and only at its end); a caller whose command
        moves refs calls `forget_refs` once it is done, as `PendingFetch` does."""
        from gitmem.gitstore.process import Running

        argv, cwd = self.command(*args)
        return Running(argv, cwd, timeout, self.reading_env(args, env))

    _private: str | None = None
    _private_absent = False

    def private_objects(self, create: bool = False) -> str | None:
        """gitmem's own loose objects of this clone: `<state>/objects` (0700, beside the
        recall index), never the repository's object store. What gitmem writes goes there
        first; only what a ref it moves reaches is copied into the repository (`publish`),
        so the plaintext of personal memory (sealed on its ref) is never an object of the
        repository: no `git push --mirror`, `git bundle --all`, backup or teammate reading
        the shared `.git/objects` finds it (red team 15). None: none yet (`create` makes it)."""
        if self._private is None and (create or not self._private_absent):
            from gitmem.core.statedir import state_dir
            from gitmem.errors import UsageError

            try:
                path = state_dir(self.common_dir, "objects")
            except UsageError:
                if create:
                    raise
                return None  # a reader's question: the writer names the folder
            if not os.path.isdir(path):
                if not create:
                    # asked once a run: what another process writes there is read through
                    # the refs it moves, which publish it
                    self._private_absent = True
                    return None
                os.makedirs(path, mode=0o700, exist_ok=True)
            self._private = os.fspath(path)
        return self._private

    def reading_env(
        self, args: Sequence[str], env: Mapping[str, str] | None
    ) -> Mapping[str, str] | None:
        """`env` for git running `args`: a command that reads objects sees the private ones
        too (an alternate, by the environment only: no file of the repository names them);
        one that moves objects or refs (SEALED_OFF) sees the repository's alone."""
        if subcommand(args) in SEALED_OFF or "GIT_QUARANTINE_PATH" in os.environ:
            return env
        private = self.private_objects()
        if private is None:
            return env
        return {**(env or {}), "GIT_ALTERNATE_OBJECT_DIRECTORIES": private}

    def publish(self, tip: str) -> None:
        """Copy into the repository the private objects `tip` reaches (before a ref moves
        there); a store without private objects has nothing to do."""

    def forget_refs(self) -> None:
        """Read the refs again on the next question (a background command moved them)."""
        self._refs = None

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _is_oid(self, name: str) -> bool:
        return len(name) == self._hash_len and not name.strip(HEX)  # in C

    # -- configuration -----------------------------------------------------------------------

    def config(self) -> dict[str, list[str]]:
        """All effective git config, keys lower-cased as git reports them (one process)."""
        if self._config is None:
            return self._set_config(self.git(*CONFIG_LIST, check=False).stdout)
        return self._config

    def _set_config(self, out: bytes) -> dict[str, list[str]]:
        cfg: dict[str, list[str]] = {}
        scopes: dict[str, list[str]] = {}
        origins: dict[str, list[str]] = {}
        self.config_from_tree, self.lowered_by_repo = [], []
        items = out.split(b"\0")
        for scope, origin, item in zip(items[0::3], items[1::3], items[2::3], strict=False):
            key, _, value = item.decode("utf-8", "surrogateescape").partition("\n")
            # the repository's own settings, and (red team 10) the user's own ones that
            # include a file of this work tree (`[includeIf "gitdir:~/work/"] path =
            # ~/work/repo/tools/gitconfig`, a company's shared settings): the branch wrote
            # them. A home folder that is a work tree itself (dotfiles) keeps its global ones.
            local = scope in (b"local", b"worktree")
            if (
                _users_alone(key)
                and (local or not self._home_is_work_tree())
                and self._in_work_tree(origin)
            ):
                self.config_from_tree.append((key, origin.decode("utf-8", "replace")))
                continue
            # a choice that lowers protection, in the repository's own config (a `.git` that
            # came with an archive): the user's only once `gitmem config` recorded it
            if (
                local
                and key in PROTECTIVE
                and lowers(key, value, self.toplevel)
                and not confirmed(self.common_dir, key, value)
            ):
                self.lowered_by_repo.append((key, value))
                continue
            cfg.setdefault(key, []).append(value)
            scopes.setdefault(key, []).append(scope.decode())
            origins.setdefault(key, []).append(os.fsdecode(origin))
        self._config, self._config_scopes, self._config_listing = cfg, scopes, out
        _no_waiting_settings(cfg, self.toplevel or self.git_dir, self.common_dir, origins)
        _no_lazy_programs(cfg, scopes)
        if cfg.get("extensions.objectformat", ["sha1"])[-1].lower() == "sha256":
            self.object_format, self._hash_len = "sha256", 64
        return cfg

    def _home_is_work_tree(self) -> bool:
        from gitmem.core.userdirs import home

        try:
            return self.toplevel is not None and Path(home()).resolve() == self.toplevel
        except OSError:
            return False

    def _in_work_tree(self, origin: bytes) -> bool:
        """Whether a setting's origin (`file:PATH`; relative: to the top of the work tree,
        where git works from once it found the repository, whatever folder it started in) is a file
        of the work tree (not of the git folder): one the branch can carry, so anyone who
        can change the branch writes it. A clone that includes a committed file of shared
        settings (`include.path = ../shared.gitconfig`) takes no gitmem setting from it:
        the branch would turn personal encryption off or allow secrets (charter rules 4-5)."""
        if self.toplevel is None or not origin.startswith(b"file:"):
            return False
        path = Path(os.fsdecode(origin[5:]))
        try:
            real = (path if path.is_absolute() else self.toplevel / path).resolve()
            inside = real.is_relative_to(self.toplevel)
            return inside and not any(
                real.is_relative_to(d.resolve()) for d in (self.git_dir, self.common_dir)
            )
        except (OSError, ValueError):
            return False

    def config_listing(self) -> bytes:
        """`git config -z --list --show-scope` as git printed it (when the config was read)."""
        self.config()
        return self._config_listing or b""

    def config_get(self, key: str, scope: str | None = None) -> str | None:
        """The value git uses; with `scope` ("global"...), the value set in that scope."""
        values = self.config().get(config_name(key))
        if values and scope is not None:
            where = self._config_scopes.get(config_name(key), [])
            values = [v for v, s in zip(values, where, strict=True) if s == scope]
        return values[-1] if values else None

    def config_set(self, key: str, value: str) -> None:
        self.git("config", key, value)
        self._config = None

    def config_add(self, key: str, value: str) -> None:
        """Add `value` to the multi-valued `key` of this repository (once)."""
        if value not in self.config().get(config_name(key), []):
            self.git("config", "--add", key, value)
            self._config = None

    def config_remove(self, key: str, value: str) -> None:
        """Take `value` out of the multi-valued `key` of this repository."""
        import re

        self.git("config", "--unset-all", key, f"^{re.escape(value)}$", check=False)
        self._config = None

    def remotes(self) -> list[str]:
        names = {
            k.split(".")[1] for k in self.config() if k.startswith("remote.") and k.endswith(".url")
        }
        return sorted(names)

    def remote_url(self, name: str) -> str | None:
        """The remote's URL after url.<base>.insteadOf rewriting, as git would use it."""
        cfg = self.config()
        url = cfg.get(f"remote.{name}.url", [None])[-1]
        if url is None:
            return None
        best = ""
        replacement = ""
        for key, values in cfg.items():
            if key.startswith("url.") and key.endswith(".insteadof"):
                base = key[4 : -len(".insteadof")]
                for prefix in values:
                    if url.startswith(prefix) and len(prefix) > len(best):
                        best, replacement = prefix, base
        return replacement + url[len(best) :] if best else url

    def identity(self) -> tuple[str, str]:
        name = self.config_get("user.name") or "gitmem"
        email = self.config_get("user.email") or "gitmem@localhost"
        return _ident_part(name) or "gitmem", _ident_part(email)


def needs_git(store: object, what: str) -> GitDir:
    """`store` (a `gitstore.store.Store`) as the git repository it is, for `what` only git does (a bundle, a listing
    of refs read afresh): the in-memory fake of the tests has none, and is told so."""
    if not isinstance(store, GitDir):
        raise TypeError(f"{what} needs a git repository, not {type(store).__name__}")
    return store


def parse_refs(out: bytes) -> dict[str, str]:
    """{ref: id} of what `REFS_LIST` printed."""
    # a name is bytes, any but a control character (a hostile remote's writer ref may hold
    # U+2028, which `splitlines` splits on): lines are what ends in "\n"
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    return {ref: oid for oid, ref in (ln.split(" ", 1) for ln in lines if ln)}


# the variables by which a user (or git, for its hooks) names the repository git works on;
# GIT_INDEX_FILE is not among them: gitmem never reads or writes the user's index, whichever
ENVIRONMENT_NAMES = ("GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE")


def _named_by_environment(
    start: Path,
    git_dir: Path | None = None,
    common_dir: Path | None = None,
    toplevel: Path | None = None,
) -> list[UsageError]:
    """The refusal (one, or none) when GIT_DIR, GIT_COMMON_DIR or GIT_WORK_TREE name another
    repository than the one gitmem opened from `start` (None: it opened none). gitmem finds
    the repository from the folder it runs in, as pre-commit does; a git hook's variables
    name that same repository and pass. One that names another is refused, never ignored: the
    user asked git's meaning of it, and gitmem would sync the memory of another project."""

    def real(value: str) -> str:
        return os.path.realpath(os.path.join(start, value))

    here = {
        "GIT_DIR": {real(str(p)) for p in (git_dir, common_dir) if p is not None},
        "GIT_COMMON_DIR": {real(str(common_dir))} if common_dir is not None else set(),
        "GIT_WORK_TREE": {real(str(toplevel))} if toplevel is not None else set(),
    }
    for name in ENVIRONMENT_NAMES:
        value = os.environ.get(name)
        if not value or real(value) in here[name]:
            continue
        opened = (
            f"the repository of {start.resolve()}"
            if git_dir is not None
            else f"none: {start.resolve()} is in no git repository"
        )
        kind = UsageError if git_dir is not None else NotARepository  # (a hook: not ours)
        return [
            kind(
                f"{name} names {value}, but gitmem works on the repository of the folder it "
                f"runs in ({opened}), never on the one {name} names",
                f"unset {name} and run gitmem in that repository (gitmem -C PATH …); "
                "nothing was read or written",
            )
        ]
    return []


class Opening:
    """The git processes that open a repository, started now: `rev-parse` (where it is) and,
    with `tracked`, the config listing, `ls-files` of those paths and (`refs`) our refs.
    `GitDir(opening=...)` collects them; a caller can import what it needs meanwhile."""

    def __init__(
        self, path: str | os.PathLike[str], tracked: Sequence[str] = (), refs: bool = False
    ) -> None:
        from gitmem.gitstore.process import Running

        self.start = Path(path)
        if not self.start.is_dir():
            raise NotARepository(
                f"not a directory: {self.start}", "pass -C with a path inside a git repository"
            )
        self.early = _Early(self.start, tracked, refs)
        try:
            # bounded as its siblings are (red team 23: a FIFO `HEAD` held it, and gitmem by
            # hand, for ever; the check of that file comes after it finds the folder)
            self.where = Running(REV_PARSE, self.start, 60.0)
        except BaseException:
            self.early.cancel()
            raise

    def cancel(self) -> None:
        self.where.cancel()
        self.early.cancel()


class _Early:
    """The config listing and `ls-files` of some paths, started before the repository is
    found (both find it from `start` as rev-parse does) and collected once it is."""

    def __init__(
        self,
        start: Path,
        tracked: Sequence[str],
        refs: bool = False,
    ) -> None:
        from gitmem.gitstore.process import Running

        self.paths = list(tracked)
        self.config: Running | None = None
        self.listing: Running | None = None
        self.refs: Running | None = None
        if not self.paths:
            return  # a caller that names no paths opens the repository as before: lazily
        self.config = Running(CONFIG_LIST, start, 60.0)
        try:
            self.listing = Running(tracked_listing(self.paths), start, 60.0, TRACKED_ENV)
            if refs:
                self.refs = Running((*REFS_LIST, *OURS), start, 60.0)
        except BaseException:
            self.cancel()
            raise

    def results(self, bare: bool) -> "Opened":
        """What git answered: the config listing, which paths are tracked (of those git
        answered for), our refs (None: not asked, or git could not tell), raw answers."""
        opened = Opened()
        if self.config is None or self.listing is None:
            return opened
        try:
            config, listing = self.config.wait(), self.listing.wait()
            listed = self.refs.wait() if self.refs is not None else None
        except BaseException:
            self.cancel()
            raise
        if config.returncode == 0:
            opened.config = config.stdout
        if listing.returncode == 0 and not bare:
            names = listing.stdout.decode("utf-8", "surrogateescape").split("\0")
            for path in self.paths:
                inside = path + "/"
                opened.tracked[path] = any(n == path or n.startswith(inside) for n in names)
        if listed is not None and listed.returncode == 0:
            opened.refs = parse_refs(listed.stdout)
        return opened

    def cancel(self) -> None:
        for running in (self.config, self.listing, self.refs):
            if running is not None:
                running.cancel()


class Opened:
    """What the opening processes answered (`_Early.results`)."""

    def __init__(self) -> None:
        self.config: bytes | None = None
        self.tracked: dict[str, bool] = {}
        self.refs: dict[str, str] | None = None


def _ident_part(text: str) -> str:
    return text.replace("<", "").replace(">", "").replace("\n", " ").strip()


def config_name(key: str) -> str:
    """`key` as git lists it: section and name in lower case, a subsection as it is (review
    23: `remote.Up.url` looked up as `remote.up.url` found no remote named Up)."""
    section, _, rest = key.partition(".")
    sub, dot, name = rest.rpartition(".")
    return f"{section.lower()}.{sub}.{name.lower()}" if dot else key.lower()
