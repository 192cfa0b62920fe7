"""Real network remotes on 127.0.0.1 for tests: `git daemon` and git's smart HTTP backend."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@contextmanager
def git_daemon(base: Path, env: dict[str, str]) -> Iterator[str]:
    """`git daemon --enable=receive-pack` serving every repository under `base`; yields git://…"""
    port = free_port()
    proc = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--enable=receive-pack",
            f"--base-path={base}",
            "--listen=127.0.0.1",
            f"--port={port}",
            str(base),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"git://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def _pushed_refs(body: bytes) -> list[str]:
    """The ref names of a receive-pack request: pkt-lines `old new ref[\\0caps]` up to a flush."""
    refs, at = [], 0
    while at + 4 <= len(body):
        size = int(body[at : at + 4], 16)
        if size == 0:
            break
        line = body[at + 4 : at + size].split(b"\0")[0].strip()
        refs.append(line.split(b" ")[-1].decode("utf-8", "replace"))
        at += size
    return refs


def _http_backend_app(base: Path, env: dict[str, str], branches_only: bool = False) -> Any:
    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        if (
            branches_only  # like proxies and agent sandboxes that answer 403 for other refs
            and environ.get("PATH_INFO", "").endswith("/git-receive-pack")
            and any(not r.startswith("refs/heads/") for r in _pushed_refs(body))
        ):
            start_response("403 Forbidden", [("Content-Type", "text/plain")])
            return [b"only branch pushes are allowed\n"]
        cgi_env = {
            **env,
            "GIT_PROJECT_ROOT": str(base),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REMOTE_USER": "tester",
            "REMOTE_ADDR": "127.0.0.1",
            "PATH_INFO": environ.get("PATH_INFO", ""),
            "QUERY_STRING": environ.get("QUERY_STRING", ""),
            "REQUEST_METHOD": environ["REQUEST_METHOD"],
            "CONTENT_TYPE": environ.get("CONTENT_TYPE", ""),
            "CONTENT_LENGTH": str(len(body)),
        }
        if environ.get("HTTP_CONTENT_ENCODING"):
            cgi_env["HTTP_CONTENT_ENCODING"] = environ["HTTP_CONTENT_ENCODING"]
        if environ.get("HTTP_GIT_PROTOCOL"):
            cgi_env["GIT_PROTOCOL"] = environ["HTTP_GIT_PROTOCOL"]
        out = subprocess.run(
            ["git", "http-backend"], input=body, env=cgi_env, capture_output=True
        ).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status, headers = "200 OK", []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = value.strip()
            elif name:
                headers.append((name, value.strip()))
        start_response(status, headers)
        return [payload]

    return app


@contextmanager
def smart_http(base: Path, env: dict[str, str], branches_only: bool = False) -> Iterator[str]:
    """git's smart HTTP protocol (`git http-backend` behind a WSGI server); yields http://…

    `branches_only`: answer 403 to a push of any ref outside refs/heads/."""
    app = _http_backend_app(base, env, branches_only)
    server = make_server("127.0.0.1", 0, app, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def enable_http_push(bare: Path) -> None:
    subprocess.run(
        ["git", "config", "--file", str(bare / "config"), "http.receivepack", "true"],
        check=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
    )


def slow_upload_pack(
    env: dict[str, str], root: Path, seconds: float, done: Path | None = None
) -> None:
    """Make every fetch run under `env` wait `seconds` before the remote answers, as a remote
    across a network does. gitmem always names git's own `git-upload-pack` (a repository's
    `remote.*.uploadpack` never runs: red team 7), so the slow one is git's, found first:
    GIT_EXEC_PATH names a copy of git's exec path (links) whose upload-pack sleeps first, then
    touches `done` (when the remote stopped waiting) and runs git's own."""
    touch = f': > "{done}"\n' if done is not None else ""
    _upload_pack(env, root / "slow-exec-path", f'sleep {seconds}\n{touch}exec {{real}} "$@"')


def _upload_pack(env: dict[str, str], exec_path: Path, script: str) -> None:
    """GIT_EXEC_PATH of `env` set to `exec_path`, a copy of git's exec path (links) whose
    `git-upload-pack` is the shell `script` (`{real}`: git's own, quoted)."""
    real = Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True,
                               check=True).stdout.strip())  # fmt: skip
    if not exec_path.is_dir():
        exec_path.mkdir(parents=True)
        for entry in real.iterdir():
            (exec_path / entry.name).symlink_to(entry)
    wrapper = exec_path / "git-upload-pack"
    wrapper.unlink()
    wrapper.write_text("#!/bin/sh\n" + script.replace("{real}", f'"{real}/git-upload-pack"') + "\n")
    wrapper.chmod(0o755)
    env["GIT_EXEC_PATH"] = str(exec_path)


_ADVERTISE = r"""import os, subprocess, sys
names = open(sys.argv[1], "rb").read().split(b"\n")
at = names.pop(0)  # the object id they name ("": the first ref's)
env = {k: v for k, v in os.environ.items() if k != "GIT_PROTOCOL"}  # v0: one advertisement
real = subprocess.Popen([sys.argv[2], *sys.argv[3:]], stdout=subprocess.PIPE, env=env)
out, src = sys.stdout.buffer, real.stdout
first = True
while True:  # the advertisement: pkt-lines up to a flush; the planted names after the first
    size = int(src.read(4), 16)
    if size == 0:
        break
    line = src.read(size - 4)
    out.write(b"%04x" % size + line)
    if first:
        first = False
        oid = at or line[:40]
        for name in names:
            if name:
                body = oid + b" " + name + b"\n"
                out.write(b"%04x" % (len(body) + 4) + body)
out.write(b"0000")
out.flush()
while chunk := src.read1(65536):
    out.write(chunk)
    out.flush()
sys.exit(real.wait())
"""


def advertised_names(
    env: dict[str, str], root: Path, names: Iterable[bytes], oid: str = ""
) -> None:
    """Make every remote reached under `env` (through git's `git-upload-pack`, found first on
    GIT_EXEC_PATH, as in `slow_upload_pack`) advertise `names` beside its own refs, each at
    `oid` (by default the object id of its first ref), as a hostile server may (any bytes but
    a newline: `..`, control characters, no UTF-8, any length); git's own upload-pack serves
    the rest, in protocol v0 (one advertisement of every ref)."""
    listed = root / "advertised-names"
    listed.write_bytes(b"\n".join([oid.encode(), *names]))
    script = root / "advertise.py"
    script.write_text(_ADVERTISE)
    run = f'exec "{sys.executable}" "{script}" "{listed}" {{real}} "$@"'
    _upload_pack(env, root / "advertising-exec-path", run)
