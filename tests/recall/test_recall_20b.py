"""Round 20 (recall20): recall that answers as users expect — a prompt in one language pulls
no memory by the English stem of its words. Each test fails without its fix (docs/recall.md,
round 20)."""

from __future__ import annotations

from pathlib import Path

from tests.recall.test_recall_19 import recalled
from tests.support.world import World, write_files


def test_a_foreign_prompt_pulls_no_memory_by_an_english_stem(project: tuple[World, Path]) -> None:
    """The index stems as English does: French `maintenant` was searched as `mainten` (`maintenance`),
    Portuguese `testes` as `test`, each bringing English memories that share no word with the
    prompt. A prompt in another language now keeps only memories holding one of its words as
    written: a name it says (`Redis`), or its own words in a memory of its language."""
    world, clone = project
    auto = world.scope_path(clone, "auto")
    write_files(
        auto,
        {
            "upkeep.md": "# Upkeep\nThe maintenance window of the gantry service is on Sundays.\n",
            "suite.md": "# Test suite\nThe test suite runs with pytest.\n",
            "redis.md": "# Redis\nRedis timeouts under load: raise the pool size.\n",
        },
    )
    assert recalled(world, clone, "Merci, tu peux le faire maintenant ?") == ""
    assert recalled(world, clone, "Obrigado! Pode rodar os testes de novo?") == ""
    # an English prompt still finds a word's other forms
    found = recalled(world, clone, "when is the maintenance window, and the tests")
    assert "auto/upkeep.md" in found and "auto/suite.md" in found, found
    # a foreign prompt still finds the name it says, and a memory of its language its words
    found = recalled(world, clone, "Kannst du die Redis Timeouts bitte prüfen?")
    assert "auto/redis.md" in found and "auto/suite.md" not in found, found
    write_files(auto, {"ci.md": "# Déploiement\nLe déploiement se fait maintenant par la CI.\n"})
    found = recalled(world, clone, "Merci, tu peux le faire maintenant ?")
    assert "auto/ci.md" in found and "auto/upkeep.md" not in found, found
