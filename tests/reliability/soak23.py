"""Round 23 soak: N real clones of one bare hub, one person's machines under one temporary HOME,
each doing random everyday memory work between `gitmem sync`s run in random orders; then a final
round of syncs and the checks of docs/reliability.md "Round 23: soak".

    python -m tests.reliability.soak23 --runs 10 --machines 4 --rounds 6 --seed 1

Every edit writes words that carry a unique marker (`Mk<n>`); an edit that removes text records
the markers the machine saw it remove. After the last sync every marker no machine removed must be
in the memory (a file or the archive) or in a `gitmem lost` diff the user was told about; all
replicas must be byte-identical, without conflict markers, and `git fsck` of hub and clones clean.
Exit 1 on the first run that fails, printing its seed (rerun it alone with `--seed S --runs 1`).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.world import World, folder_bytes

CORPUS = Path("/work/shared/corpus/real")
MARK = re.compile(r"Mk\d+")
OPS = ("add", "append", "word", "delete", "rename", "hook", "section", "reorder", "field", "common")
ENTRY = re.compile(r"^- \[[^\]]*\]\(([^)]+\.md)\)")


def corpus_topics() -> list[tuple[str, list[str]]]:
    """(frontmatter without name:, a few body lines) of the real topic files with frontmatter."""
    out: list[tuple[str, list[str]]] = []
    for path in sorted(CORPUS.glob("*/*.md")) if CORPUS.is_dir() else []:
        text = path.read_text(errors="replace")
        if not text.startswith("---\n") or path.name.endswith("MEMORY.md"):
            continue
        end = text.find("\n---\n", 4)
        if end < 0:
            continue
        front = [ln for ln in text[4:end].splitlines() if not ln.startswith("name:")]
        body = [ln for ln in text[end + 5 :].splitlines() if ln.strip()][:6]
        out.append(("\n".join(front), [ln[:300] for ln in body]))
    return out or [("description: a memory\ntype: project", ["Some fact worth keeping."])]


@dataclass
class Ledger:
    added: dict[str, str] = field(default_factory=dict)  # marker -> what (machine, op, file)
    where: dict[str, str] = field(default_factory=dict)  # marker -> "team" or the person
    removed: set[str] = field(default_factory=set)
    ops: int = 0
    counts: dict[str, int] = field(default_factory=dict)


class Machine:
    def __init__(
        self,
        name: str,
        person: str,
        folder: Path,
        rng: random.Random,
        ledger: Ledger,
        topics: list[tuple[str, list[str]]],
    ) -> None:
        self.name, self.person, self.folder = name, person, folder
        self.rng, self.ledger, self.topics = rng, ledger, topics
        self.scope = person

    def mark(self, what: str) -> str:
        mk = f"Mk{len(self.ledger.added) + 1}"
        self.ledger.added[mk] = f"{self.name} {what}"
        self.ledger.where[mk] = self.scope
        return mk

    def removing(self, text: str) -> None:
        self.ledger.removed.update(MARK.findall(text))

    def topics_in(self, scope: Path) -> list[Path]:
        return sorted(p for p in scope.glob("*.md") if not p.name.startswith("MEMORY"))

    def edit(self) -> None:
        for _ in range(self.rng.randint(1, 4)):
            team = self.rng.random() < 0.5
            self.scope = "team" if team else self.person
            scope = self.folder / "team" if team else self.folder
            scope.mkdir(parents=True, exist_ok=True)
            index = scope / "MEMORY.md"
            topics = self.topics_in(scope)
            ops = OPS
            weights = [4, 4, 3, 1, 1, 3, 1, 2, 2, 2] if topics else [1, 0, 0, 0, 0, 0, 0, 0, 0, 2]
            if len(topics) >= 3:  # the same few files, edited from every machine
                weights[0] = 1
            op = self.rng.choices(ops, weights)[0]
            self.ledger.ops += 1
            self.ledger.counts[op] = self.ledger.counts.get(op, 0) + 1
            getattr(self, op)(scope, index, topics)

    def add(self, scope: Path, index: Path, topics: list[Path]) -> None:
        slug = f"{self.rng.choice(['deploy', 'gotcha', 'build', 'style', 'api', 'feedback'])}-{self.name}-{self.ledger.ops}"
        front, body = self.rng.choice(self.topics)
        mk = self.mark(f"add {scope.name}/{slug}.md")
        text = (
            f"---\nname: {slug}\n{front}\n---\n"
            + "".join(f"{ln}\n" for ln in body)
            + f"Fact {mk} from {self.name}.\n"
        )
        (scope / f"{slug}.md").write_text(text)
        hook = self.mark(f"index line of {slug}")
        lines = index.read_text().splitlines(keepends=True) if index.exists() else []
        at = self.rng.randint(0, len(lines))
        lines.insert(at, f"- [{slug.title()}]({slug}.md) — hook {hook}\n")
        index.write_text("".join(lines))

    def common(self, scope: Path, index: Path, topics: list[Path]) -> None:
        """A file every machine may start under one name (`gotchas.md`): two of them do."""
        slug = self.rng.choice(["gotchas", "feedback_testing", "project_overview"])
        if (scope / f"{slug}.md").exists():
            return self.append(scope, index, [scope / f"{slug}.md"])
        front, body = self.rng.choice(self.topics)
        mk = self.mark(f"common {scope.name}/{slug}.md")
        text = f"---\nname: {slug}\n{front}\n---\n" + "".join(f"{ln}\n" for ln in body)
        (scope / f"{slug}.md").write_text(text + f"Fact {mk} from {self.name}.\n")
        hook = self.mark(f"index line of {slug}")
        with index.open("a") as fh:
            fh.write(f"- [{slug}]({slug}.md) — {self.name} hook {hook}\n")

    def append(self, scope: Path, index: Path, topics: list[Path]) -> None:
        path = self.rng.choice(topics)
        lines = path.read_text().splitlines(keepends=True)
        mk = self.mark(f"line in {path.name}")
        at = self.rng.choice([len(lines), self.rng.randint(0, len(lines))])
        at = max(at, self._body_start(lines))
        lines.insert(at, f"- Note {mk}: {self.name} learned this.\n")
        path.write_text("".join(lines))

    def word(self, scope: Path, index: Path, topics: list[Path]) -> None:
        path = self.rng.choice(topics)
        lines = path.read_text().splitlines(keepends=True)
        start = self._body_start(lines)
        candidates = [i for i in range(start, len(lines)) if len(lines[i].split()) >= 3]
        if not candidates:
            return self.append(scope, index, topics)
        i = self.rng.choice(candidates)
        words = lines[i].rstrip("\n").split(" ")
        j = self.rng.randrange(len(words))
        mk = self.mark(f"word in {path.name}")
        self.removing(words[j])
        words[j] = mk
        lines[i] = " ".join(words) + "\n"
        path.write_text("".join(lines))

    def delete(self, scope: Path, index: Path, topics: list[Path]) -> None:
        path = self.rng.choice(topics)
        self.removing(path.read_text())
        path.unlink()
        if index.exists():
            kept = []
            for ln in index.read_text().splitlines(keepends=True):
                m = ENTRY.match(ln)
                if m and m.group(1) == path.name:
                    self.removing(ln)
                else:
                    kept.append(ln)
            index.write_text("".join(kept))

    def rename(self, scope: Path, index: Path, topics: list[Path]) -> None:
        path = self.rng.choice(topics)
        new = f"{path.stem.split('-')[0]}-{self.name}-r{self.ledger.ops}"
        text = path.read_text()
        text = re.sub(r"(?m)^name: .*$", f"name: {new}", text, count=1)
        (scope / f"{new}.md").write_text(text)
        path.unlink()
        if index.exists():
            index.write_text(index.read_text().replace(f"]({path.name})", f"]({new}.md)"))

    def field(self, scope: Path, index: Path, topics: list[Path]) -> None:
        path = self.rng.choice(topics)
        text = path.read_text()
        m = re.search(r"(?m)^description: (.*)$", text)
        if m is None:
            return self.append(scope, index, topics)
        mk = self.mark(f"description of {path.name}")
        self.removing(m.group(1))
        path.write_text(f"{text[: m.start(1)]}{self.name} says {mk}{text[m.end(1) :]}")

    def hook(self, scope: Path, index: Path, topics: list[Path]) -> None:
        if not index.exists():
            return
        lines = index.read_text().splitlines(keepends=True)
        entries = [i for i, ln in enumerate(lines) if ENTRY.match(ln)]
        if not entries:
            return
        i = self.rng.choice(entries)
        mk = self.mark("hook edit")
        head = lines[i].split(" — ")[0].rstrip("\n")
        self.removing(lines[i][len(head) :])
        lines[i] = f"{head} — {self.rng.choice(['see', 'read', 'why'])} {mk}\n"
        index.write_text("".join(lines))

    def section(self, scope: Path, index: Path, topics: list[Path]) -> None:
        lines = index.read_text().splitlines(keepends=True) if index.exists() else []
        mk = self.mark("section")
        block = [f"\n## Section {mk}\n"]
        entries = [i for i, ln in enumerate(lines) if ENTRY.match(ln)]
        if entries:  # move one entry under the new heading
            block.append(lines.pop(self.rng.choice(entries)))
        lines += block
        index.write_text("".join(lines))

    def reorder(self, scope: Path, index: Path, topics: list[Path]) -> None:
        if not index.exists():
            return
        lines = index.read_text().splitlines(keepends=True)
        entries = [i for i, ln in enumerate(lines) if ENTRY.match(ln)]
        if len(entries) < 2:
            return
        line = lines.pop(self.rng.choice(entries))
        lines.insert(self.rng.randint(0, len(lines)), line)
        index.write_text("".join(lines))

    @staticmethod
    def _body_start(lines: list[str]) -> int:
        if lines and lines[0] == "---\n":
            for i in range(1, len(lines)):
                if lines[i] == "---\n":
                    return i + 1
        return 0


@dataclass
class Result:
    seed: str
    syncs: int
    ops: int
    failures: list[str]
    counts: dict[str, int]


def told_lost(world: World, clones: list[Path]) -> str:
    """The diffs of every lost edit any clone can show: the words the user was told about."""
    out = []
    for clone in clones:
        run = world.gitmem("-C", str(clone), "lost", "--json")
        if run.code != 0:
            continue
        for item in json.loads(run.out or "[]"):
            one = world.gitmem("-C", str(clone), "lost", str(item["number"]), "--json")
            if one.code == 0:
                out.append(json.loads(one.out).get("diff", ""))
    return "\n".join(out)


def fsck(repo: Path, world: World) -> list[str]:
    from tests.reliability.harness import fsck_problems

    return fsck_problems(repo, world.env)


def index_problems(data: dict[str, bytes]) -> list[str]:
    """An index line whose topic file is gone, or two lines for one file: what a careful
    human would not keep (the merge keeps a line and its file together)."""
    out = []
    for name, blob in sorted(data.items()):
        if not name.endswith("MEMORY.md"):
            continue
        folder = name.rpartition("/")[0]
        links = [
            m.group(1)
            for ln in blob.decode("utf-8", "replace").splitlines()
            if (m := ENTRY.match(ln))
        ]
        for link in sorted(set(links)):
            path = f"{folder}/{link}" if folder else link
            if path not in data:
                out.append(f"{name} links {link}, which is gone")
            if links.count(link) > 1:
                out.append(f"{name} lists {link} {links.count(link)} times")
    return out


def part(data: dict[str, bytes], team: bool) -> dict[str, bytes]:
    return {k: v for k, v in data.items() if k.startswith("team/") == team}


def one_run(
    seed: str,
    machines: int,
    people: int,
    rounds: int,
    sync_p: float,
    topics: list[tuple[str, list[str]]],
    keep: bool,
) -> Result:
    root = Path(tempfile.mkdtemp(prefix="soak23-"))
    rng = random.Random(seed)
    world = World(root)
    world.make_remote()
    persons = [f"p{i % people}" for i in range(machines)]
    clones = [world.clone(f"m{i}", email=f"{persons[i]}@example.com") for i in range(machines)]
    ledger = Ledger()
    folders = [world.scope_path(c) for c in clones]
    ms = [Machine(f"m{i}", persons[i], f, rng, ledger, topics) for i, f in enumerate(folders)]
    failures: list[str] = []
    syncs = 0

    def sync(i: int) -> None:
        nonlocal syncs
        syncs += 1
        run = world.gitmem("-C", str(clones[i]), "sync")
        if run.code != 0:
            failures.append(f"sync m{i} exited {run.code}: {run.err.strip()[-300:]}")

    for _ in range(rounds):
        order = list(range(machines))
        rng.shuffle(order)
        for i in order:
            if rng.random() < 0.8:
                ms[i].edit()
            if rng.random() < sync_p:
                sync(i)
    for _ in range(2):  # the final round: everything reaches the hub, then comes back
        for i in range(machines):
            sync(i)
    replicas = [folder_bytes(f) for f in folders]
    present: dict[str, set[str]] = {}
    for i, data in enumerate(replicas):
        for team in (True, False):
            name = "team" if team else persons[i]
            mine = part(data, team)
            first = persons.index(name) if name != "team" else 0
            if i != first:
                theirs = part(replicas[first], team)
                diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
                if diff:
                    failures.append(f"m{i} differs from m{first} in {diff[:5]}")
            else:
                present[name] = set(
                    MARK.findall(b"\n".join(mine.values()).decode("utf-8", "replace"))
                )
        for name, blob in data.items():
            if b"<<<<<<<" in blob or b">>>>>>>" in blob:
                failures.append(f"conflict markers in m{i}:{name}")
        if i == 0:
            failures += index_problems(data)
    missing = [
        mk
        for mk in ledger.added
        if mk not in ledger.removed and mk not in present[ledger.where[mk]]
    ]
    told = set(MARK.findall(told_lost(world, clones))) if missing else set()
    for mk in missing:
        if mk not in told:
            failures.append(f"{mk} ({ledger.added[mk]}) vanished, not in `gitmem lost`")
    for repo in [world.remote, *clones]:
        failures += [f"fsck {repo.name}: {p}" for p in fsck(repo, world)]
    if failures and keep:
        print(f"kept {root}", file=sys.stderr)
    else:
        shutil.rmtree(root, ignore_errors=True)
    ledger.counts["told lost"] = len(set(missing) & told)
    return Result(seed, syncs, ledger.ops, failures, ledger.counts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--machines", type=int, default=4)
    ap.add_argument("--people", type=int, default=1, help="clones are of this many people")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--sync-p", type=float, default=0.6, help="chance a machine syncs in a round")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--keep", action="store_true", help="keep a failing run's folder")
    ap.add_argument("--go-on", action="store_true", help="run every run even after a failure")
    args = ap.parse_args(argv)
    topics = corpus_topics()
    total_syncs = total_ops = failed = 0
    started = time.monotonic()
    for r in range(args.runs):
        seed = f"{args.seed}-{r}"
        res = one_run(seed, args.machines, args.people, args.rounds, args.sync_p, topics, args.keep)
        total_syncs += res.syncs
        total_ops += res.ops
        status = "ok" if not res.failures else f"FAILED ({len(res.failures)})"
        told = res.counts.get("told lost", 0)
        print(f"run {seed}: {res.syncs} syncs, {res.ops} edits, {told} told lost: {status}")
        for f in res.failures[:12]:
            print(f"  {f}")
        if res.failures:
            failed += 1
            if not args.go_on:
                break
    print(
        f"{args.runs} runs × {args.machines} machines: {total_syncs} syncs, {total_ops} edits, "
        f"{failed} failed, {time.monotonic() - started:.0f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
