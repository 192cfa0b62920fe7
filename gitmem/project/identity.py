"""Who and what a memory belongs to: the project key, the user id, Claude Code's folder.

Pure string rules plus reading Claude Code's settings files; never writes anything.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from gitmem.core import jsondata

DEFAULT_PORTS = {"ssh": 22, "git+ssh": 22, "ssh+git": 22, "https": 443, "http": 80, "git": 9418}
# Forges whose owner/repo paths are case-insensitive, with the other host names (ssh over port
# 443, www.) they answer to: one repository, one key.
FORGE_HOSTS = {
    "github.com": "github.com",
    "www.github.com": "github.com",
    "ssh.github.com": "github.com",
    "gitlab.com": "gitlab.com",
    "www.gitlab.com": "gitlab.com",
    "altssh.gitlab.com": "gitlab.com",
    "bitbucket.org": "bitbucket.org",
    "www.bitbucket.org": "bitbucket.org",
    "altssh.bitbucket.org": "bitbucket.org",
}
# compiled on first use (re's cache), as the patterns below: the prompt hook imports this
# module for its settings and never names a remote (round 19)
_SCP_LIKE = r"^(?:(?P<user>[^@/]+)@)?(?P<host>\[[^\]]+\]|[^:/]+):(?P<path>(?!//).*)$"


def normalize_remote_url(url: str, base: Path | None = None) -> str:
    """`host/owner/repo` for any spelling of a remote URL (docs/design.md §2).

    Local paths and file:// URLs become `file:` + the resolved path, so that `/x/r.git`,
    `file:///x/r.git` and `/x/r` name one repository.
    """
    url = url.strip()
    if url.startswith("file://"):
        return _local_key(urlsplit(url).path, base)
    if "://" in url:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").lower()
        if ":" in host:
            host = f"[{host}]"
        try:
            port = parts.port
        except ValueError:
            port = None
        if port is not None and port != DEFAULT_PORTS.get(scheme) and host not in FORGE_HOSTS:
            host = f"{host}:{port}"
        return _join_key(host, parts.path)
    m = re.match(_SCP_LIKE, url)
    if m and not _looks_local(url):
        return _join_key(m.group("host").lower(), m.group("path"))
    return _local_key(url, base)


# Azure DevOps serves one repository under four spellings that share no host/path shape:
# https://dev.azure.com/ORG/PROJECT/_git/REPO, git@ssh.dev.azure.com:v3/ORG/PROJECT/REPO, and the
# older https://ORG.visualstudio.com/PROJECT/_git/REPO, ORG@vs-ssh.visualstudio.com:v3/ORG/PROJECT/REPO
# (names case-insensitive). Their keys stay as they are (no key changes under a synced ref);
# `same_project` says they name one project.
_AZURE = (
    r"^dev\.azure\.com/([^/]+)/([^/]+)/_git/([^/]+)$",
    r"^(?:vs-)?ssh\.dev\.azure\.com/v3/([^/]+)/([^/]+)/([^/]+)$",
    r"^vs-ssh\.visualstudio\.com/v3/([^/]+)/([^/]+)/([^/]+)$",
)
_AZURE_LEGACY = r"^([^./]+)\.visualstudio\.com/([^/]+)/_git/([^/]+)$"


def _azure(key: str) -> tuple[str, ...] | None:
    for pattern in _AZURE:
        m = re.match(pattern, key)
        if m:
            return tuple(g.lower() for g in m.groups())
    m = re.match(_AZURE_LEGACY, key)
    return tuple(g.lower() for g in m.groups()) if m else None


def same_project(a: str, b: str) -> bool:
    """Two project keys name one repository: equal, or two of a forge's spellings that
    normalize_remote_url cannot bring to one shape (Azure DevOps https and ssh)."""
    if a == b:
        return True
    azure = _azure(a)
    return azure is not None and azure == _azure(b)


def project_identity(key: str) -> str:
    """One name for every key `same_project` takes as one project, where a name must be one (the
    project's folder of refs on a hub): an Azure DevOps key as its https spelling, lower-cased;
    any other key as it is."""
    azure = _azure(key)
    if azure is None:
        return key
    org, project, repo = azure
    return f"dev.azure.com/{org}/{project}/_git/{repo}"


def _looks_local(url: str) -> bool:
    # git treats "a:b" as scp-like only when no slash comes before the colon.
    return url.startswith(("/", "./", "../", "~")) or "/" in url.split(":", 1)[0]


def _join_key(host: str, path: str) -> str:
    path = path.strip("/")
    if path.startswith("~"):
        path = path[1:]
    path = re.sub(r"/+", "/", path).rstrip("/")
    if path.endswith(".git"):
        path = path[:-4]
    path = path.strip("/")
    forge = FORGE_HOSTS.get(host)
    if forge:
        return f"{forge}/{path.lower()}"
    return f"{host}/{path}"


def _local_key(path: str, base: Path | None) -> str:
    p = Path(os.path.expanduser(path))
    if not p.is_absolute() and base is not None:
        p = base / p
    resolved = os.path.realpath(p)
    resolved = resolved.rstrip("/") or "/"
    if resolved.endswith("/.git"):
        resolved = resolved[:-5]
    elif resolved.endswith(".git"):
        resolved = resolved[:-4]
    return "file:" + resolved


def local_key(canonical_root: Path) -> str:
    return f"local:{canonical_root}"


_REF_UNSAFE = r"[^a-z0-9._@+\-]"


def is_user_id(text: str) -> bool:
    """Whether `text` could be what `user_id` made (a bounded run of its characters)."""
    return 0 < len(text) <= 254 and re.search(_REF_UNSAFE, text) is None


def user_id(email: str) -> str:
    """A ref-safe id from a whole e-mail address (lower-cased; nothing collapsed)."""
    uid = re.sub(_REF_UNSAFE, "-", email.strip().lower())
    uid = uid.replace("..", "-.").replace("@{", "-{")
    uid = uid.strip(".")
    if uid.endswith(".lock"):
        uid = uid[: -len(".lock")] + "-lock"
    return uid or "-"


def canonical_root(
    toplevel: Path | None, git_dir: Path, common_dir: Path, start: Path | None = None
) -> Path:
    """The main worktree: every linked worktree of a clone maps to it (as Claude Code does).
    `start`: the folder git found the repository from, which must lie in its work tree."""
    if toplevel is not None and start is not None:
        _work_tree_holds_start(toplevel, git_dir, start)
    if git_dir.resolve() != common_dir.resolve():  # a linked worktree
        return common_dir.parent if common_dir.name == ".git" else common_dir
    if toplevel is not None:
        _not_anothers_checkout(toplevel, git_dir)
        return toplevel
    return common_dir  # a bare repository


def _work_tree_holds_start(toplevel: Path, git_dir: Path, start: Path) -> None:
    """Red team 10: the repository git found from a folder serves a work tree elsewhere
    (`core.worktree` in a `.git` folder, or in a git folder of any name a `.git` file names,
    or in a bare-looking folder itself): that checkout's memory would sync as this folder's
    — its team memory to the archive's remote, the archive's memory into it. gitmem runs
    in the work tree of the repository it finds (or in its git folder), as git's own
    commands expect (`cd .git` lies in the work tree too)."""
    try:
        here = start.resolve()
    except OSError:
        return
    top = toplevel.resolve()
    if here.is_relative_to(top):
        return
    from gitmem.errors import ConfigError

    raise ConfigError(
        f"{here} uses a repository ({git_dir}) whose work tree is another checkout ({top}, "
        "core.worktree): its memory is that folder's, not this one's",
        f"work in {top}, or make this folder a clone of its own; a core.worktree set by "
        "mistake: git config --unset core.worktree",
    )


def _not_anothers_checkout(toplevel: Path, git_dir: Path) -> None:
    """Red team 9: a folder holding only a `.git` *file* (`gitdir: ~/src/work/.git`: an
    unpacked archive) borrowed another checkout's repository. The SessionStart hook there
    pulled that project's memory — personal too, decrypted — into this folder's memory and
    context, and what a session there wrote was pushed to that project's refs, on to every
    machine of it. Red team 10: the same by two other spellings — `.git` a symbolic link to
    that `.git` folder, and a `.git` folder whose `core.worktree` names another checkout (its
    memory, personal and team, then synced through the archive's remote). A repository named
    `.git` serves the folder it lies in, whatever points to it: one serving another folder is
    refused; a linked worktree, a submodule (`.git/modules/…`), a separate git dir of another
    name (a dotfiles repository) are what git makes."""
    if git_dir.name != ".git":
        return
    owner = git_dir.resolve().parent
    if owner != toplevel.resolve():
        from gitmem.errors import ConfigError

        raise ConfigError(
            f"{toplevel} borrows the repository of another checkout ({owner}/.git, through a "
            "`.git` file or link, or core.worktree): its memory is that folder's, not this one's",
            f"work in {owner}, or make this folder a clone or a worktree of its own "
            "(git worktree add); a core.worktree set by mistake: git config --unset core.worktree",
        )


# -- Claude Code's project folder -------------------------------------------------------------

MAX_SLUG = 200


def _java_hash(text: str) -> int:
    h = 0
    for unit in _utf16_units(text):
        h = (h * 31 + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def _utf16_units(text: str) -> list[int]:
    if text.isascii():  # one unit a character; the UTF-16 codec not loaded (every opening)
        return list(map(ord, text))
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def claude_slug(path: str) -> str:
    """Claude Code's project folder name for an absolute path (checked against 2.1.330)."""
    slug = "".join(
        chr(u) if (48 <= u <= 57 or 65 <= u <= 90 or 97 <= u <= 122) else "-"
        for u in _utf16_units(path)
    )
    if len(slug) <= MAX_SLUG:
        return slug
    return f"{slug[:MAX_SLUG]}-{_base36(abs(_java_hash(path)))}"


# the variables that place Claude Code's folders (and the home folder every agent's): a relative
# one places them in whatever folder Claude Code (or gitmem, or a hook) starts in — a project's
# working tree, one `git add -A` from the branch
PLACING_VARIABLES = (
    "HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
)


def refuse_relative(env: Mapping[str, str], names: tuple[str, ...] = PLACING_VARIABLES) -> None:
    """One line, before any folder is read or made, when a variable that places an agent's
    folders is a relative path: the agent would keep its folders in the folder it starts in,
    and gitmem would sync memory from and into them there."""
    for name in names:
        value = env.get(name) or ""
        if not value or os.path.isabs(value if name == "HOME" else os.path.expanduser(value)):
            continue
        if name == "HOME" and names == PLACING_VARIABLES and env.get("CLAUDE_CONFIG_DIR"):
            continue  # Claude Code's folders given whole: HOME does not place them
        from gitmem.errors import ConfigError

        if name == "HOME":
            from gitmem.core.sanitize import command_word  # printed: quoted, then escaped
            from gitmem.core.userdirs import home

            fix = f"export HOME={command_word(home())} (an absolute path)"
        else:
            fix = f"unset {name} for the default, or set it to an absolute path"
        who = "Codex's" if name == "CODEX_HOME" else "Claude Code's"
        here = os.path.normpath(os.path.join(os.getcwd(), value))
        raise ConfigError(
            f"{name} is a relative path ({value!r}): {who} folders would be made in the folder "
            f"it starts in ({here} from here)",
            fix,
        )


def claude_config_dir(env: Mapping[str, str]) -> Path:
    refuse_relative(env)
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(os.path.expanduser(configured)) if configured else Path.home() / ".claude"


def _read_json(path: Path) -> dict[str, object]:
    """A Claude Code settings file's object ({} when absent, unreadable or not one); one that
    is, or links to, a FIFO, a device or a file over the size limit is not read
    (fileread.read_followed)."""
    from gitmem.core.fileread import NotAFile, read_followed

    try:
        data = jsondata.loads(read_followed(path).decode("utf-8"))
    except (OSError, ValueError, NotAFile):
        return {}
    return data if isinstance(data, dict) else {}


def claude_state_file(env: Mapping[str, str]) -> Path:
    """Claude Code's own state (`~/.claude.json`): which workspaces the user trusted."""
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    return (
        Path(os.path.expanduser(config_dir)) / ".claude.json"
        if config_dir
        else Path.home() / ".claude.json"
    )


TRUST_LIMIT = 64 << 20  # a larger state file is a doubt: not trusted


def workspace_trusted(root: Path, env: Mapping[str, str]) -> bool:
    """Whether Claude Code's state file says the workspace `root` is trusted (unreadable,
    absent or too large: not trusted)."""

    try:
        with open(claude_state_file(env), "rb") as fh:
            data = fh.read(TRUST_LIMIT + 1)
    except OSError:
        return False
    if len(data) > TRUST_LIMIT:
        return False
    try:  # strict UTF-8 text, as Claude Code writes it (json.loads of bytes would also take
        # a byte-order mark or UTF-16)
        state = jsondata.loads(data.decode("utf-8"))
    except ValueError:
        return False
    projects = state.get("projects") if isinstance(state, dict) else None
    entry = projects.get(str(root)) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True


USER_SETTING = "user settings"  # ~/.claude/settings.json: one folder for every project
PROJECT_SETTING = "project settings"


def _auto_memory_setting(root: Path, env: Mapping[str, str]) -> tuple[str, str] | None:
    """(value, which settings gave it) of `autoMemoryDirectory`, or None."""
    sources = [(claude_config_dir(env) / "settings.json", USER_SETTING)]
    if workspace_trusted(root, env):
        sources += [
            (root / ".claude" / "settings.json", PROJECT_SETTING + " (.claude/settings.json)"),
            (
                root / ".claude" / "settings.local.json",
                PROJECT_SETTING + " (.claude/settings.local.json)",
            ),
        ]
    found: tuple[str, str] | None = None
    for source, origin in sources:  # later sources override earlier ones, as in Claude Code
        value = _read_json(source).get("autoMemoryDirectory")
        if isinstance(value, str) and value.strip():
            found = (value.strip(), origin)
    return found


def depends_on_trust(root: Path) -> bool:
    """Whether the auto memory folder depends on the workspace trust in `claude_state_file`:
    only when a project settings file names `autoMemoryDirectory` (Claude Code rewrites that
    state file at every session, so a check that watched it always would never be quick)."""
    return any(
        isinstance(value, str) and value.strip()
        for value in (
            _read_json(root / ".claude" / name).get("autoMemoryDirectory")
            for name in ("settings.json", "settings.local.json")
        )
    )


def untrusted_memory_setting(root: Path, env: Mapping[str, str]) -> str | None:
    """The project settings file naming `autoMemoryDirectory` that Claude Code does not read
    yet (the folder is not trusted: `workspace_trusted`), or None. A newcomer set it, saw
    `gitmem status` keep the default folder, and had no word why."""
    if env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE") or not depends_on_trust(root):
        return None
    if workspace_trusted(root, env):
        return None
    for name in ("settings.local.json", "settings.json"):
        value = _read_json(root / ".claude" / name).get("autoMemoryDirectory")
        if isinstance(value, str) and value.strip():
            return f".claude/{name}"
    return None


def auto_memory_location(
    root: Path, env: Mapping[str, str] | None = None, tree: Path | None = None
) -> tuple[Path, str]:
    """Where Claude Code keeps this project's auto memory (docs/design.md §1, first match wins), and
    what decided it: "override", USER_SETTING, PROJECT_SETTING or "default". `tree`: the
    working tree whose project settings Claude Code reads, when not `root` (a worktree of a
    bare repository: asked of the real client, 2.1.330)."""
    env = os.environ if env is None else env
    refuse_relative(env)
    override = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if override:
        return Path(os.path.expanduser(override)), "override"
    settings = tree or root
    setting = _auto_memory_setting(settings, env)
    if setting:
        value, origin = setting
        folder = (
            Path(os.path.expanduser(value))
            if value.startswith("~") or os.path.isabs(value)
            else settings / value
        )
        return folder, origin
    projects = memory_bases(env)[0]
    return projects / own_slug(root, env) / "memory", "default"


def own_slug(root: Path, env: Mapping[str, str]) -> str:
    """The name of this project's folder under Claude Code's projects/."""
    if env.get("CLAUDE_CONFIG_DIR") and env.get("CLAUDE_CODE_PROJECT_DIR_NAME"):
        return env["CLAUDE_CODE_PROJECT_DIR_NAME"]
    return claude_slug(str(root))


def memory_bases(env: Mapping[str, str]) -> list[Path]:
    """The `projects` folders where Claude Code keeps every project's auto memory, the one it
    uses first: CLAUDE_CODE_REMOTE_MEMORY_DIR's when set, Claude Code's folder's."""
    remote_base = env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR")
    bases = [claude_config_dir(env) / "projects"]
    if remote_base:
        bases.insert(0, Path(os.path.expanduser(remote_base)) / "projects")
    return bases


def auto_memory_dir(root: Path, env: Mapping[str, str] | None = None) -> Path:
    return auto_memory_location(root, env)[0]
