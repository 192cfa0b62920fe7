"""Red team, round 17: fresh classes at every door (charter 1, 2, 4, 5, 6).

Each test is an attack that passes when it is refused; "worked" ones were closed at their one
door (docs/reliability.md, "Red team, round 17").
"""

from __future__ import annotations

from merge_drivers import SideInfo, merge_file
from merge_drivers.rank import parse_time

# -- the merge's ranking and a date from the future --------------------------------------------


def _topic(extra: str, body: str) -> bytes:
    return f"---\nname: deploy\ndescription: how\ntype: project\n{extra}---\n{body}\n".encode()


def test_a_date_written_ahead_of_its_commit_does_not_win_every_conflict() -> None:
    """A teammate's `updated: 2999-01-01`, committed in June, beat every later edit of the
    same line forever ("newer"). A frontmatter date more than a day after the commit that wrote
    it now ranks as that commit's time: the later edit wins, whichever side is ours."""
    base = _topic("", "Deploy on Tuesdays.")
    june = _topic("updated: 2999-01-01\n", "Deploy on Mondays.")
    november = _topic("updated: 2026-11-28\n", "Deploy on Fridays.")
    at_june = SideInfo(time=parse_time("2026-06-01T10:00:00Z"))
    at_november = SideInfo(time=parse_time("2026-11-28T10:00:00Z"))
    one = merge_file("team/deploy.md", base, november, june, at_november, at_june)
    two = merge_file("team/deploy.md", base, june, november, at_june, at_november)
    assert one.data == two.data  # symmetric
    assert b"Deploy on Fridays." in one.data and b"Mondays" not in one.data
    # a date within a day of its commit is believed, as before (time zones)
    honest = _topic("updated: 2026-06-02\n", "Deploy on Mondays.")
    late = SideInfo(time=parse_time("2026-06-01T10:00:00Z"))
    early = SideInfo(time=parse_time("2026-06-01T09:00:00Z"))
    got = merge_file("team/deploy.md", base, honest, _topic("", "Deploy on Fridays."), late, early)
    assert b"Deploy on Mondays." in got.data
