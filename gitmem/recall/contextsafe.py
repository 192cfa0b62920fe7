"""Memory text made safe to put in an agent's context, by the one sanitizer.

A teammate's memory is untrusted text. Invisible characters (zero-width, bidi overrides and
isolates, tag characters that spell hidden ASCII, variation selectors, other format controls)
can hide or reorder instructions a reader never sees, and terminal control bytes can drive a
terminal: they are removed by gitmem/core/sanitize.py (the class every other door uses, the
SessionStart hook's included), and the caller puts the visible warning naming the memory
(`warned`) where the agent reads it. Tabs and newlines stay; line ends are made `\\n`. A
likely secret (the policy's scan) is replaced by a marker naming its kind: this text goes to a
model's API.
"""

from __future__ import annotations


def cleaned(text: str, where: str, ours: bool = False) -> tuple[str, list[str]]:
    """`text` without hidden characters, and the warning line naming `where` when some were
    (`ours`: gitmem's own output, whose lines speak as gitmem)."""
    from gitmem.claude.hookcontext import for_agent

    text, warnings = for_agent(text.replace("\r\n", "\n").replace("\r", "\n"), where, ours)
    if ours:
        return text, warnings
    # what the agent reads goes to a model's API: a secret in a local memory (one the sync
    # refuses to push) reached it verbatim through the prompt hook and MCP (round 10)
    from gitmem.policy.secrets import redact_secrets

    text, removed = redact_secrets(text)
    if removed:
        warnings.append(
            f"[gitmem: {where or 'a memory'} holds a secret ({', '.join(removed[:3])}): "
            "removed here; it belongs in a secret store, not in memory]"
        )
    return text, warnings


def clean(text: str) -> str:
    """`text` without hidden characters (no warning: for a caller that warns on its own)."""
    return cleaned(text, "")[0]


def warned(text: str, where: str, ours: bool = False) -> str:
    """`text` cleaned, opened by the visible warning line naming `where` when it had to be."""
    kept, warning = cleaned(text, where, ours)
    return "\n".join([*warning, kept]) if warning else kept
