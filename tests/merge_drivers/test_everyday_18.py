"""Everyday edits of memory files, eighteenth round (issue 24): memory as people write it — a
`## Gotchas` section added while the intro is edited, lists both sides append to, a paragraph
rewrapped while a word in it changes, bullets turned into steps, fences, links to a renamed
file, frontmatter, index hooks and tags, tables, trailing whitespace and final newlines,
deletions against edits — each with the bytes a careful human would sign, written before the
merge was run. End to end (`gitmem sync` with two and three real clones, `git merge` with the
drivers both ways): tests/e2e/test_everyday_in_sync_18.py."""

from __future__ import annotations

import pytest

from merge_drivers import merge_file
from tests.support.sweep import check_case, in_every_order

I = ".claude/memory/MEMORY.md"  # noqa: E741
T = ".claude/memory/deploy.md"
FM = b"---\nname: deploy\ndescription: how we ship the api\ntype: project\n---\n"
M = b"# Memory\n\n"
INTRO = b"We deploy the api with fly from the main branch.\n"
GOT = b"\n## Gotchas\n\n- fly caches the old image for a minute\n"

# The eighteenth sweep (#24): (path, base, ours, theirs, what a careful human writes) — the
# table in docs/merge.md, "Everyday cases, eighteenth round". A result that is only acceptable
# is written as it comes out and marked so.
SWEEP: dict[str, tuple[str, bytes, bytes, bytes, bytes | None]] = {
    "a Gotchas section added vs the intro edited": (
        T,
        FM + INTRO + b"\n## Steps\n\n- fly deploy\n",
        FM + INTRO + b"\n## Steps\n\n- fly deploy\n" + GOT,
        FM + INTRO.replace(b"main", b"release") + b"\n## Steps\n\n- fly deploy\n",
        FM + INTRO.replace(b"main", b"release") + b"\n## Steps\n\n- fly deploy\n" + GOT,
    ),
    "both append a different bullet to one list": (
        T,
        FM + b"- build the image\n- push it\n\nThen check the logs.\n",
        FM + b"- build the image\n- push it\n- tag the release\n\nThen check the logs.\n",
        FM + b"- build the image\n- push it\n- post in #deploys\n\nThen check the logs.\n",
        FM + b"- build the image\n- push it\n- tag the release\n- post in #deploys\n"
        b"\nThen check the logs.\n",
    ),
    "a paragraph rewrapped (line breaks only) vs a word edited in it": (
        T,
        b"The staging db is reset every night at two,\nso never keep test data there that\n"
        b"you need the next morning.\n",
        b"The staging db is reset every night at two, so never keep test data\n"
        b"there that you need the next morning.\n",
        b"The staging db is reset every night at three,\nso never keep test data there that\n"
        b"you need the next morning.\n",
        b"The staging db is reset every night at three, so never keep test data\n"
        b"there that you need the next morning.\n",
    ),
    "a bullet list made numbered vs an item edited": (
        T,
        b"- build the image\n- run the migrations\n- deploy\n",
        b"1. build the image\n2. run the migrations\n3. deploy\n",
        b"- build the image\n- run the migrations first\n- deploy\n",
        b"1. build the image\n2. run the migrations first\n3. deploy\n",
    ),
    "a fence's language tag changed vs a line of its body": (
        T,
        b"```\nfly deploy --app api\n```\n",
        b"```sh\nfly deploy --app api\n```\n",
        b"```\nfly deploy --app api --strategy rolling\n```\n",
        b"```sh\nfly deploy --app api --strategy rolling\n```\n",
    ),
    "a sentence moved to the next paragraph and edited vs a word elsewhere": (
        T,
        b"Deploys go out from main. Rollbacks use fly releases.\n\nThe api runs in ams.\n",
        b"Deploys go out from main.\n\nThe api runs in ams. Rollbacks use fly rollback.\n",
        b"Deploys go out from release. Rollbacks use fly releases.\n\nThe api runs in ams.\n",
        b"Deploys go out from release.\n\nThe api runs in ams. Rollbacks use fly rollback.\n",
    ),
    "a link's target renamed (file renamed) vs its text edited": (
        T,
        b"See [the runbook](runbook.md) before a deploy.\n",
        b"See [the runbook](deploy-runbook.md) before a deploy.\n",
        b"See [the on-call runbook](runbook.md) before a deploy.\n",
        b"See [the on-call runbook](deploy-runbook.md) before a deploy.\n",
    ),
    "frontmatter description: one word edited on each side": (
        T,
        FM + INTRO,
        FM.replace(b"how we ship", b"how we release") + INTRO,
        FM.replace(b"the api", b"the web api") + INTRO,
        FM.replace(b"how we ship the api", b"how we release the web api") + INTRO,
    ),
    "frontmatter: a key added vs the description edited": (
        T,
        FM + INTRO,
        FM.replace(b"type: project\n", b"type: project\nupdated: 2026-11-29\n") + INTRO,
        FM.replace(b"the api", b"the web api") + INTRO,
        FM.replace(b"the api", b"the web api").replace(
            b"type: project\n", b"type: project\nupdated: 2026-11-29\n"
        )
        + INTRO,
    ),
    "index hook shortened vs a tag added": (
        I,
        M + "- [Deploy](deploy.md) — how we ship the api with fly, step by step\n".encode(),
        M + "- [Deploy](deploy.md) — how we ship the api\n".encode(),
        M + "- [Deploy](deploy.md) — how we ship the api with fly, step by step #ops\n".encode(),
        # acceptable: one side's hook (the tag's, told); a careful human writes
        # "how we ship the api #ops" (a deletion with an addition at its end is one hunk)
        M + "- [Deploy](deploy.md) — how we ship the api with fly, step by step #ops\n".encode(),
    ),
    "table: a row added at the end on both sides": (
        T,
        b"| env | url |\n|---|---|\n| prod | api.example.com |\n",
        b"| env | url |\n|---|---|\n| prod | api.example.com |\n| staging | stg.example.com |\n",
        b"| env | url |\n|---|---|\n| prod | api.example.com |\n| dev | localhost:8080 |\n",
        b"| env | url |\n|---|---|\n| prod | api.example.com |\n| staging | stg.example.com |\n"
        b"| dev | localhost:8080 |\n",
    ),
    "trailing whitespace stripped vs a word edited on that line": (
        T,
        b"- deploy from main   \n- then tag\n",
        b"- deploy from main\n- then tag\n",
        b"- deploy from release   \n- then tag\n",
        b"- deploy from release\n- then tag\n",  # the spaces stripped (round 21; acceptable before)
    ),
    "final newline dropped vs a bullet appended": (
        T,
        b"- deploy from main\n- then tag\n",
        b"- deploy from main\n- then tag",
        b"- deploy from main\n- then tag\n- then post in #deploys\n",
        b"- deploy from main\n- then tag\n- then post in #deploys\n",  # acceptable
    ),
    "a bullet deleted vs the same bullet edited": (
        T,
        b"- deploy from main\n- ping ana before a deploy\n- then tag\n",
        b"- deploy from main\n- then tag\n",
        b"- deploy from main\n- ping bo before a deploy\n- then tag\n",
        b"- deploy from main\n- ping bo before a deploy\n- then tag\n",
    ),
    "index entry deleted vs its hook edited": (
        I,
        M + "- [Deploy](deploy.md) — how we ship\n- [Oncall](oncall.md) — who to page\n".encode(),
        M + "- [Oncall](oncall.md) — who to page\n".encode(),
        M
        + "- [Deploy](deploy.md) — how we ship, fly only\n- [Oncall](oncall.md) — who to page\n".encode(),
        # acceptable: the edit stands (modified beats deleted), a blank line after it
        M
        + "- [Deploy](deploy.md) — how we ship, fly only\n\n- [Oncall](oncall.md) — who to page\n".encode(),
    ),
    "a whole section deleted vs a bullet added to it": (
        T,
        INTRO + b"\n## Old infra\n\n- heroku app api-old\n\n## Steps\n\n- fly deploy\n",
        INTRO + b"\n## Steps\n\n- fly deploy\n",
        INTRO + b"\n## Old infra\n\n- heroku app api-old\n- its db is read only now\n"
        b"\n## Steps\n\n- fly deploy\n",
        # acceptable: the new bullet under its heading (modified beats deleted), no blank line
        INTRO + b"\n## Old infra\n- its db is read only now\n\n## Steps\n\n- fly deploy\n",
    ),
    "index: a plain bullet inserted mid-section vs a neighbour edited": (
        I,
        M + b"## Build\n- run make first\n- tests need docker\n- push via CI only\n",
        M
        + b"## Build\n- run make first\n- lint with ruff\n- tests need docker\n- push via CI only\n",
        M + b"## Build\n- run make first\n- tests need docker\n- push via CI only, never by hand\n",
        M  # round 19: after its predecessor
        + b"## Build\n- run make first\n- lint with ruff\n- tests need docker\n"
        b"- push via CI only, never by hand\n",
    ),
    "numbered steps: a step appended on each side": (
        T,
        b"1. build\n2. migrate\n",
        b"1. build\n2. migrate\n3. deploy\n",
        b"1. build\n2. migrate\n3. smoke test\n",
        b"1. build\n2. migrate\n3. smoke test\n4. deploy\n",  # acceptable: greater first
    ),
    "the same bullet added on both sides": (
        T,
        b"- deploy from main\n",
        b"- deploy from main\n- never on friday\n",
        b"- deploy from main\n- never on friday\n",
        b"- deploy from main\n- never on friday\n",
    ),
    "the same new section on both sides with different bullets": (
        T,
        INTRO,
        INTRO + GOT,
        INTRO + b"\n## Gotchas\n\n- the health check times out after 30s\n",
        INTRO
        + GOT.replace(b"- fly", b"- the health check times out after 30s\n- fly"),  # greater first
    ),
    "a sentence appended to a paragraph vs its first word edited": (
        T,
        b"Staging mirrors prod.\n\n- fly deploy\n",
        b"Staging mirrors prod. Its db is a nightly copy.\n\n- fly deploy\n",
        b"Staging mostly mirrors prod.\n\n- fly deploy\n",
        b"Staging mostly mirrors prod. Its db is a nightly copy.\n\n- fly deploy\n",
    ),
    "a bullet split in two vs a word edited in its second half": (
        T,
        b"- build the image, then push it to the registry\n",
        b"- build the image\n- push it to the registry\n",
        b"- build the image, then push it to the ghcr registry\n",
        b"- build the image\n- push it to the ghcr registry\n",
    ),
    "a fence added under a bullet vs the bullet edited": (
        T,
        b"- run the migrations\n- deploy\n",
        b"- run the migrations\n\n```sh\nfly ssh console -C 'rake db:migrate'\n```\n\n- deploy\n",
        b"- run the migrations first\n- deploy\n",
        b"- run the migrations first\n\n```sh\nfly ssh console -C 'rake db:migrate'\n```\n\n"
        b"- deploy\n",
    ),
    "index: each side adds a linked entry at a different place": (
        I,
        M + "## Project\n- [A](a.md) — aa\n- [B](b.md) — bb\n- [C](c.md) — cc\n".encode(),
        M
        + "## Project\n- [A](a.md) — aa\n- [N](n.md) — nn\n- [B](b.md) — bb\n- [C](c.md) — cc\n".encode(),
        M
        + "## Project\n- [A](a.md) — aa\n- [B](b.md) — bb\n- [M](m.md) — mm\n- [C](c.md) — cc\n".encode(),
        M
        + "## Project\n- [A](a.md) — aa\n- [N](n.md) — nn\n- [B](b.md) — bb\n- [M](m.md) — mm\n"
        "- [C](c.md) — cc\n".encode(),
    ),
    "inline code: a flag added vs a word edited next to it": (
        T,
        b"- run `pytest -x` before you push\n",
        b"- run `pytest -x -q` before you push\n",
        b"- run `pytest -x` before you merge\n",
        b"- run `pytest -x -q` before you merge\n",
    ),
    "a bullet nested under the one before vs its text edited": (
        T,
        b"- deploy\n- watch the logs\n- tag\n",
        b"- deploy\n  - watch the logs\n- tag\n",
        b"- deploy\n- watch the logs for 5 minutes\n- tag\n",
        b"- deploy\n  - watch the logs for 5 minutes\n- tag\n",
    ),
    "a date updated on both sides": (
        T,
        b"Last checked: 2026-11-01\n\n- fly deploy\n",
        b"Last checked: 2026-11-20\n\n- fly deploy\n",
        b"Last checked: 2026-11-25\n\n- fly deploy\n",
        b"Last checked: 2026-11-25\n\n- fly deploy\n",
    ),
    "index: a section heading renamed vs a new section added after it": (
        I,
        M + "## Infra\n- [Deploy](deploy.md) — how we ship\n".encode(),
        M + "## Infrastructure\n- [Deploy](deploy.md) — how we ship\n".encode(),
        M
        + "## Infra\n- [Deploy](deploy.md) — how we ship\n\n## People\n- [Oncall](oncall.md) — who to page\n".encode(),
        M
        + "## Infrastructure\n- [Deploy](deploy.md) — how we ship\n\n## People\n"
        "- [Oncall](oncall.md) — who to page\n".encode(),
    ),
}


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_the_eighteenth_sweep(name: str) -> None:
    """Each case both directions, then merged again with either side: nothing changes."""
    check_case(SWEEP[name])


MARKERS = [  # (base, ours: the list's style changed, theirs: an item edited) -> merged
    (b"- a\n- b\n- c\n", b"1. a\n2. b\n3. c\n", b"- a\n- b!\n- c\n", b"1. a\n2. b!\n3. c\n"),
    (b"1. a\n2. b\n3. c\n", b"- a\n- b\n- c\n", b"1. a\n2. b!\n3. c\n", b"- a\n- b!\n- c\n"),
    (b"- a\n- b\n", b"1) a\n2) b\n", b"- a\n- b!\n", b"1) a\n2) b!\n"),
    (
        b"- a\n  - b\n- c\n",
        b"1. a\n   1. b\n2. c\n",
        b"- a\n  - b!\n- c\n",
        b"1. a\n   1. b!\n2. c\n",
    ),
    (b"- a\n- b\n- c\n", b"+ a\n+ b\n+ c\n", b"- a\n- b!\n- c\n", b"+ a\n+ b!\n+ c\n"),
]


@pytest.mark.parametrize(("base", "ours", "theirs", "want"), MARKERS)
def test_a_list_restyled_and_an_item_edited_both_stand(
    base: bytes, ours: bytes, theirs: bytes, want: bytes
) -> None:
    """A side that turned bullets into steps (or back, or `-` into `1)`) changed the list's
    markers only; the other side's edit of an item stands, at the new marker (before: one of
    the two by a tie-break — the edit lost, or `- a` / `2. b!` / `- c` mixed)."""
    check_case((T, base, ours, theirs, want))


def test_a_word_after_a_sides_last_word_is_not_glued_to_it() -> None:
    """A side that cut the end of a line and a side that wrote after that end clash; the
    words the winner keeps after the cut side's last word are spaced as the base spaced them
    (before: `the api\\nwith fly` in a topic file, `the apiwith fly` in an index hook)."""
    base = b"we ship the api with fly, step by step\n"
    cut, tagged = b"we ship the api\n", base.replace(b"step\n", b"step #ops\n")
    out = merge_file(T, base, cut, tagged).data
    assert out in (cut, tagged)
    hook = "- [Deploy](deploy.md) — "
    z, a, b = (M + (hook + x.decode()).encode() for x in (base, cut, tagged))
    assert merge_file(I, z, a, b).data in (a, b)


def test_one_new_section_written_on_three_machines_is_one_section() -> None:
    """Three machines each add `## Gotchas` with their own bullet at the end of a topic: one
    section holding the three bullets, one list, in every merge order (before: the heading
    written once per machine)."""
    base = FM + INTRO + b"\n## Steps\n\n- fly deploy\n"
    sides = [
        base + b"\n## Gotchas\n\n- " + x + b"\n"
        for x in (b"fly caches the image", b"health checks time out", b"logs lag a minute")
    ]
    want = base + (
        b"\n## Gotchas\n\n- logs lag a minute\n- health checks time out\n- fly caches the image\n"
    )
    assert in_every_order(T, base, *sides) == want


@pytest.mark.parametrize(
    ("base", "ours"),
    [
        (b"- a\n- b\n- c\n", b"1. a\n2. b\n3. c\n"),
        (b"1. a\n2. b\n3. c\n", b"- a\n- b\n- c\n"),
        (b"* a\n* b\n* c\n", b"1) a\n2) b\n3) c\n"),
    ],
)
def test_an_item_deleted_from_a_list_the_other_side_restyled_stays_deleted(
    base: bytes, ours: bytes
) -> None:
    """Bullets and steps are one list (the marker is its style, as `-`/`*` and `1.`/`1)`
    were): an item the other side deleted goes (before: the restyled list was new blocks and
    the deleted item came back by a tie-break)."""
    theirs = base.replace(base.splitlines(True)[1], b"")
    out = merge_file(T, base, ours, theirs).data
    assert out == merge_file(T, base, theirs, ours).data
    assert out is not None and b"b\n" not in out and out.count(b"\n") == 2
    assert out.startswith(ours[:2])  # in the restyled marks
