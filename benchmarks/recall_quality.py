"""Recall quality on the real corpus: does the UserPromptSubmit hook pick the memory a person
means? 20 prompts written (round 19) before their results were seen, each with the memory (or
memories) that answers it; one counts when one of them is in the first three the hook picks (and
how many came first). Two prompts in other languages added in round 20.
And prompts with nothing to recall, in the languages prompts come in: each should bring none.

    python -m benchmarks.recall_quality
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.corpus import auto_folder, corpus_root, lay_out_corpus
from benchmarks.world import World

if TYPE_CHECKING:
    from gitmem.project.scopes import Project
    from gitmem.recall.searchindex import Place

# (prompt, ids under auto/ that answer it)
PROMPTS: list[tuple[str, tuple[str, ...]]] = [
    (
        'Warum meldet der Redis-Cache im SEO-Dienst ständig "Command timed out"? Bitte den Redis-Server prüfen.',
        ("tn22180__second-brain/memory__seo-redis-command-timeout-noise.md",),
    ),
    (
        "Can you diagnose this bug from the code? I think the worktree I'm in might be stale.",
        ("tn22180__second-brain/memory__verify-branch-before-diagnosing.md",),
    ),
    (
        "Bump Bevy and check which feature flags the 2d profile pulls in",
        ("BobG1983__breaker/claude__agent-memory__bevy-api-expert__MEMORY.md",),
    ),
    (
        "Review this breaker PR: is the query filter syntax right for Bevy 0.18.1?",
        (
            "BobG1983__breaker/claude__agent-memory__reviewer-bevy-api__confirmed-patterns.md",
            "BobG1983__breaker/claude__agent-memory__bevy-api-expert__MEMORY.md",
        ),
    ),
    (
        "SpeedBoost multiplier means different things in triggered and passive effects, how should I name the fields?",
        (
            "BobG1983__breaker/claude__agent-memory__planner-review__pattern_dual_semantic_enum_variant.md",
        ),
    ),
    (
        "Is archetype fragmentation from optional components a performance problem for the breaker entity?",
        ("BobG1983__breaker/claude__agent-memory__reviewer-performance__MEMORY.md",),
    ),
    (
        "写下一卡的大纲，按10集一卡的流程来",
        ("8nk9567f6c-prog__bianju-workbench/claude__memory__workflow-10ep-card.md",),
    ),
    (
        "对标库里的钩子手法有哪些？",
        ("8nk9567f6c-prog__bianju-workbench/claude__memory__benchmark-library.md",),
    ),
    (
        "How do I flash the STM32N6 board for the Muller motor?",
        ("MaverickIdeas__Claude_KB/muller_motor__MEMORY.md",),
    ),
    (
        "Add a new primitive op to the ActorForth compiler that targets BEAM",
        ("ActorForth__ActorForth/claude__memory__MEMORY.md",),
    ),
    (
        "Review the FastSense rename diff, are there leftover FastPlot references?",
        ("HanSur94__FastSense/claude__agent-memory__code-reviewer__MEMORY.md",),
    ),
    (
        "Review the rayapp change that wraps the anyscale CLI",
        ("ray-project__rayci/claude__agent-memory-local__code-reviewer__MEMORY.md",),
    ),
    (
        "Should I keep the old API for backward compatibility in myclaw?",
        ("knacklabs__gantry/claude__memory__feedback_no_backward_compat.md",),
    ),
    (
        "Where should the shared dev memory live for the team?",
        ("knacklabs__gantry/claude__memory__memory-lives-in-repo.md",),
    ),
    (
        "Trim the permission prompt copy for mobile in the notification redesign",
        ("knacklabs__gantry/claude__memory__notification-ux-redesign.md",),
    ),
    (
        "Migrating the claude memory folders: the decoded path looks ambiguous",
        ("Adam-S-Daniel__agentskills/claude__memory__gotchas.md",),
    ),
    (
        "How do I run the python tests and set up the environment with uv?",
        ("VytCepas__projects-orchestrator/claude__rules__python.md",),
    ),
    (
        "Où en est la feuille de route, et quelle est la direction pour l'interface ?",
        ("VytCepas__projects-orchestrator/claude__memory__project_roadmap.md",),
    ),
    (
        "What frontmatter does a memory file need so lint_memory passes?",
        ("VytCepas__projects-orchestrator/claude__memory__SCHEMA.md",),
    ),
    (
        "Where are the runtime links into ~/.claude managed from? I want to edit a hook.",
        ("0xBigBoss__claude-code/CLAUDE.local.md",),
    ),
    # round 20: prompts in another language naming what an English memory holds as written
    (
        "Redis-Timeouts im SEO-Dienst: kannst du das prüfen?",
        ("tn22180__second-brain/memory__seo-redis-command-timeout-noise.md",),
    ),
    (
        "Comment flasher la carte STM32N6 du moteur Muller ?",
        ("MaverickIdeas__Claude_KB/muller_motor__MEMORY.md",),
    ),
]
# chit-chat and asks with no memory behind them, in six languages
NOTHING = [
    "Danke, das sieht gut aus. Kannst du es bitte committen?",
    "Wie war das noch mal mit der Aufgabe von gestern?",
    "Merci, c'est parfait. Tu peux le faire maintenant ?",
    "Gracias, ¿puedes explicar qué hace esta función?",
    "Obrigado! Pode rodar os testes de novo?",
    "Grazie, puoi spiegare cosa fa questa funzione?",
    "Dank je, kun je het nog een keer proberen?",
    "好的，谢谢你",
    # round 20: English stems of French words (`dépendances`, `maintenant`) brought five
    "Tu peux vérifier les dépendances maintenant ?",
]


def corpus_place(tmp: Path) -> tuple[Place, Callable[[], Project]]:
    """The real corpus in a fresh project's auto folder, and its recall index."""
    from gitmem.gitstore import Repository
    from gitmem.project.scopes import open_project
    from gitmem.recall.searchindex import locate

    world = World(tmp)
    clone = tmp / "proj"
    world.git("init", "-q", str(clone))
    world.git("commit", "-q", "--allow-empty", "-m", "init", cwd=clone)
    os.environ.update(world.env)  # this process is the hook: HOME and git's config are the world's
    lay_out_corpus(auto_folder(clone))
    opened: list[Project] = []

    def project() -> Project:
        if not opened:
            opened.append(open_project(Repository(str(clone))))
        return opened[0]

    return locate(str(clone), None, project), project


BESIDE: dict[str, int] = {}  # prompt -> memories picked that do not answer it (round 22)


def measure(
    place: Place, project: Callable[[], Project]
) -> tuple[list[tuple[str, int | None]], list[tuple[str, list[str]]]]:
    """Each prompt and where its memory came (1-based, None: not picked); each prompt of
    NOTHING and what was picked for it."""
    from gitmem.recall.prompt import pick

    found = []
    for prompt, wanted in PROMPTS:
        got = [h.id for h in pick(place, prompt, project)]
        at = next((i + 1 for i, g in enumerate(got) if g.removeprefix("auto/") in wanted), None)
        found.append((prompt, at))
        # round 22: what came beside the answer (the hook's budget spent on other memories)
        BESIDE[prompt] = sum(1 for g in got if g.removeprefix("auto/") not in wanted)
    idle = [(p, [h.id for h in pick(place, p, project)]) for p in NOTHING]
    return found, idle


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m benchmarks.recall_quality").parse_args(argv)
    if corpus_root() is None:
        print("the real corpus is not on this machine", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="gitmem-recall-quality-") as tmp:
        found, idle = measure(*corpus_place(Path(tmp)))
    for prompt, at in found:
        print(f"  {'top 3' if at and at <= 3 else 'MISS ':5} {at or '-'}  {prompt}")
    for prompt, got in idle:
        print(f"  {'none' if not got else 'NOISE':5} {len(got)}  {prompt}")
    top = sum(1 for _, at in found if at and at <= 3)
    first = sum(1 for _, at in found if at == 1)
    quiet = sum(1 for _, got in idle if not got)
    print(
        f"{top}/{len(found)} prompts found their memory in the first three "
        f"({first} first); "
        f"{quiet}/{len(idle)} prompts with nothing to recall brought nothing; "
        f"{sum(BESIDE.values())} memories came beside the answers"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
