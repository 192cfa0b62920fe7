"""A decode from a checked commit applies the tree diff's changes to that commit's split
(`codec.Split.changed`) instead of splitting the whole listing again: for any listing and any
changes, it answers what `split_tree` of the changed listing answers, or None (the caller then
splits whole)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gitmem.gitstore.base import TreeEntry
from gitmem.gitstore.treediff import Change
from gitmem.privacy.codec import Split
from gitmem.privacy.crypto import MIXED, split_tree, stored_name

HEX = "0123456789abcdef"
hidden = st.text(HEX, min_size=64, max_size=64)
# what a personal tree's paths can be: files outside the sealed folders, hidden names in
# either layout, the manifests, and names no gitmem writes (which the decode refuses later)
names = st.one_of(
    hidden.map(lambda h: f"auto/{stored_name(h)}"),
    hidden.map(lambda h: f"local/{stored_name(h)}"),
    hidden.map(lambda h: f"auto/{h}"),
    st.sampled_from(["auto/manifest", "local/manifest", "gitmem.toml", "keys/scope.age"]),
    st.sampled_from(["auto/notes.md", "local/ab/cd", "team/x.md", "auto/zz/" + "0" * 62]),
)
oids = st.text(HEX, min_size=40, max_size=40)
listings = st.one_of(  # most with auto/ sealed: changes then fall into a sealed folder
    st.dictionaries(names, oids, max_size=24),
    st.dictionaries(names, oids, max_size=24).map(lambda d: {**d, "auto/manifest": "1" * 40}),
    st.dictionaries(hidden.map(lambda h: f"auto/{stored_name(h)}"), oids, max_size=24).map(
        lambda d: {**d, "auto/manifest": "1" * 40}
    ),
)
edits = st.lists(st.tuples(names, st.one_of(st.none(), oids)), max_size=8)


def _entry(oid: str) -> TreeEntry:
    return TreeEntry("100644", "blob", oid)


@given(listing=listings, changes=edits)
def test_a_split_changed_is_the_split_of_the_changed_listing(
    listing: dict[str, str], changes: list[tuple[str, str | None]]
) -> None:
    before = Split(*split_tree(listing))
    after = dict(listing)
    diff: list[Change] = []
    for path, oid in dict(changes).items():  # one change a path, as a tree diff gives
        old = listing.get(path)
        if oid is None and old is None:
            continue
        diff.append(Change(path, _entry(old) if old else None, _entry(oid) if oid else None))
        if oid is None:
            del after[path]
        else:
            after[path] = oid
    changed = before.changed(diff)
    if changed is not None:
        whole = Split(*split_tree(after))
        assert (changed.rest, changed.parts, changed.layouts) == (
            whole.rest,
            whole.parts,
            whole.layouts,
        )
    assert before == Split(*split_tree(listing))  # the split it started from is not touched
    whole = Split(*split_tree(after))
    if MIXED not in whole.layouts.values():  # (a folder in both layouts: refused by the decode)
        assert whole.listing() == after  # a split lists its tree again
