"""gitmem view: one self-contained page, checked in headless Chromium (Debian's package)."""

from __future__ import annotations

import html.parser
import re
import shutil
import socket
import struct
import subprocess
import threading
import zlib
from pathlib import Path

import pytest

from tests.support.world import World, write_files

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)"
)
BROWSER_OWN = re.compile(
    r"^\S+ (https?://)?[\w.-]*\b(google\.com|googleapis\.com|gstatic\.com|gvt1\.com)[:/ ]"
)
EVIL = (
    "<script>alert(1)</script><img src=http://127.0.0.1:9/x.png onerror=alert(2)>\n"
    "![tracker](http://127.0.0.1:9/t.png) </pre><iframe src=//127.0.0.1:9/></iframe>\n"
)


def topic(name: str, desc: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {desc}\ntype: project\n---\n{body}\n"


def memory_project(world: World, clone: Path) -> None:
    write_files(
        world.scope_path(clone, "team"),
        {
            "MEMORY.md": "- [Deploys](deploys.md) — Tuesdays\n- [Rollback](rollback.md) — how\n",
            "deploys.md": topic("Deploys", "Tuesdays only", "See [rollback](rollback.md)."),
            "rollback.md": topic("Rollback", "how to roll back", "Run the rollback job."),
        },
    )
    write_files(
        world.scope_path(clone, "auto"),
        {
            "MEMORY.md": "- [Editor](editor.md) — vim\n",
            "editor.md": topic("Editor", "I use vim", "Vim keys everywhere."),
            "evil.md": topic("Evil", "tries HTML", EVIL),
        },
    )
    world.ok("-C", str(clone), "sync")  # history: who changed what, when


class _Dom(html.parser.HTMLParser):
    """The nodes of the dumped DOM: (class, data-id, label, label shown)."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[dict[str, str]] = []
        self.tags: list[str] = []
        self._in_label = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "g" and "node" in (a.get("class") or ""):
            self.nodes.append({"class": a.get("class") or "", "id": a.get("data-id") or ""})
        elif tag == "text" and self.nodes:
            self.nodes[-1]["shown"] = "no" if "display: none" in (a.get("style") or "") else "yes"
            self._in_label = True

    def handle_endtag(self, tag: str) -> None:
        self._in_label = False if tag == "text" else self._in_label

    def handle_data(self, data: str) -> None:
        if self._in_label and self.nodes:
            self.nodes[-1]["label"] = self.nodes[-1].get("label", "") + data


def chromium(*args: str, proxy_port: int) -> subprocess.CompletedProcess[bytes]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            # the browser's own traffic (updates, time, safe browsing): not the page's
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-domain-reliability",
            "--disable-client-side-phishing-detection",
            "--no-pings",
            "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter",
            f"--proxy-server=http://127.0.0.1:{proxy_port}",
            "--proxy-bypass-list=<-loopback>",
            "--virtual-time-budget=5000",
            *args,
        ],
        capture_output=True,
        timeout=120,
    )


class Catcher:
    """A TCP listener standing as the browser's proxy: any request the page makes lands here."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.seen: list[bytes] = []
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                self.seen.append(conn.recv(4096))
            except OSError:
                self.seen.append(b"?")
            conn.close()

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.sock.close()


def png_size_and_colours(data: bytes) -> tuple[int, int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    width = height = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


@needs_chromium
def test_the_page_shows_labelled_nodes_filters_and_loads_nothing(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    world, clone = project
    memory_project(world, clone)
    page = tmp_path / "page.html"
    out = world.ok("-C", str(clone), "view", "--out", str(page))
    assert "(4 memories)" in out  # round 22 (recall22b): the MEMORY.md listings are none
    text = page.read_text()
    assert "default-src 'none'" in text
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", text)  # nothing to load
    assert "<script>alert" not in text and "<img src=http" not in text

    catcher = Catcher()
    try:
        shot = tmp_path / "shot.png"
        run = chromium(
            f"--screenshot={shot}",
            "--window-size=1200,800",
            page.as_uri(),
            proxy_port=catcher.port,
        )
        assert shot.is_file(), run.stderr.decode()[-2000:]
        width, height, colours = png_size_and_colours(shot.read_bytes())
        assert (width, height) == (1200, 800) and colours > 20  # a drawing, not a blank page

        dom = _Dom()
        dumped = chromium("--dump-dom", page.as_uri(), proxy_port=catcher.port).stdout.decode()
        assert "4 of 4 memories" in dumped  # drawn, never counted: the pointer-only indexes
        assert "team (2, team)" in dumped and "auto (2, personal)" in dumped  # nor listed
        dom.feed(dumped)
        by_id = {n["id"]: n for n in dom.nodes}
        assert set(by_id) == {
            "team/MEMORY.md",
            "team/deploys.md",
            "team/rollback.md",
            "auto/MEMORY.md",
            "auto/editor.md",
            "auto/evil.md",
        }
        assert by_id["team/deploys.md"]["label"] == "Deploys"
        assert by_id["team/deploys.md"]["shown"] == "yes"
        assert "team" in by_id["team/rollback.md"]["class"].split()
        assert "personal" in by_id["auto/editor.md"]["class"].split()
        assert "iframe" not in dom.tags and "img" not in dom.tags  # the memory stayed text

        # typing in the search box (the page puts #q=… there and sends the input event)
        dom = _Dom()
        dom.feed(
            chromium(
                "--dump-dom", page.as_uri() + "#q=roll", proxy_port=catcher.port
            ).stdout.decode()
        )
        hidden = {n["id"] for n in dom.nodes if "hidden" in n["class"].split()}
        assert {n["id"] for n in dom.nodes} - hidden == {  # the index: what it points to
            "team/deploys.md",
            "team/rollback.md",
        }
    finally:
        catcher.close()
    # no request left the page (the browser's own calls home, which no flag stops, aside)
    asked = [r.split(b"\r\n", 1)[0].decode("latin-1") for r in catcher.seen]
    assert [a for a in asked if a and not BROWSER_OWN.search(a)] == []


def test_the_page_data_holds_text_history_and_rank(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    import json

    world, clone = project
    memory_project(world, clone)
    page = tmp_path / "page.html"
    world.ok("-C", str(clone), "view", "--out", str(page))
    raw = re.search(
        r'<script type="application/json" id="data">(.*?)</script>', page.read_text(), re.S
    )
    assert raw is not None
    data = json.loads(raw.group(1))
    nodes = {n["id"]: n for n in data["nodes"]}
    rollback = nodes["team/rollback.md"]
    assert rollback["pagerank"] > nodes["auto/editor.md"]["pagerank"]  # linked to twice
    assert rollback["community"] == nodes["team/deploys.md"]["community"]
    assert "Run the rollback job." in rollback["text"]
    assert rollback["history"] and rollback["history"][0]["author"] == "Test User"
    assert "<script>alert(1)</script>" in nodes["auto/evil.md"]["text"]  # text, shown as text


def test_view_refuses_to_write_through_a_link(project: tuple[World, Path], tmp_path: Path) -> None:
    world, clone = project
    target = tmp_path / "target.html"
    target.write_text("keep")
    link = tmp_path / "page.html"
    link.symlink_to(target)
    run = world.gitmem("-C", str(clone), "view", "--out", str(link))
    assert run.code == 2 and target.read_text() == "keep"


def test_the_user_and_the_project_claude_md_have_distinct_labels(
    project: tuple[World, Path], tmp_path: Path
) -> None:
    """~/.claude/CLAUDE.md and the project's CLAUDE.md were both labelled "CLAUDE" on the page:
    an instructions or index file, named alike in every scope, is labelled by its id (scope
    shown)."""
    import json

    world, clone = project
    write_files(world.home / ".claude", {"CLAUDE.md": "user rules: be brief\n"})
    (clone / "CLAUDE.local.md").write_text("my rules here: run make check\n")
    write_files(world.scope_path(clone, "team"), {"CLAUDE.md": "the team's rules\n"})
    write_files(world.scope_path(clone, "auto"), {"MEMORY.md": "- [a](a.md)\n", "a.md": "# A\n"})
    page = tmp_path / "page.html"
    world.ok("-C", str(clone), "view", "--out", str(page))
    raw = re.search(
        r'<script type="application/json" id="data">(.*?)</script>', page.read_text(), re.S
    )
    assert raw is not None
    nodes = json.loads(raw.group(1))["nodes"]
    claude = [n for n in nodes if "claude" in n["id"].lower()]
    labels = {n["id"]: n["title"] for n in nodes}
    assert labels["user/CLAUDE.md"] == "user/CLAUDE.md", labels
    assert labels["team/CLAUDE.md"] == "team/CLAUDE.md", labels
    assert labels["CLAUDE.local.md"] == "CLAUDE.local.md", labels
    assert len(claude) == 3 and len({n["title"] for n in claude}) == 3, labels
    # a topic keeps its own title: its `# A` heading, having no name: (round 18; was "a")
    assert labels["auto/a.md"] == "A"
