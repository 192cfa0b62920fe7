"""Round 22's loose ends (#23): a group alone, the hook's children, one key hint at every door,
log --json's note, paths answered in the user's terms."""

from __future__ import annotations

import pytest

from gitmem.cli import main


@pytest.mark.parametrize(("group", "listing"), [("hooks", "user"), ("drivers", "gitmem-index")])
def test_a_group_alone_runs_its_listing(
    group: str, listing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # as `git remote` lists: `gitmem hooks` is `gitmem hooks status`, not help and exit 2
    assert main([group]) == 0
    out, err = capsys.readouterr()
    assert listing in out and not err
