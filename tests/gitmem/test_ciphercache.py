"""The cipher cache's two files (gitmem/privacy/ciphercache.py): a save that changes a few pairs
writes a journal of those, not the whole cache; what a new process reads is every pair."""

from __future__ import annotations

from pathlib import Path

from gitmem.privacy.ciphercache import CipherCache


def _pairs(n: int, start: int = 0, tag: str = "p") -> dict[str, tuple[str, str]]:
    return {f"auto/{i}.md": (f"{tag}{i:039d}", f"c{tag}{i:038d}") for i in range(start, start + n)}


def _filled(common: Path, key: str, pairs: dict[str, tuple[str, str]]) -> CipherCache:
    cache = CipherCache(common)
    for path, (plain, cipher) in pairs.items():
        cache.put(key, path, plain, cipher)
    cache.save()
    return cache


def test_a_few_changed_pairs_are_journaled_and_the_whole_cache_is_left_alone(
    tmp_path: Path,
) -> None:
    first = _pairs(800)
    _filled(tmp_path, "k1", first)
    whole = CipherCache(tmp_path).path
    before = (whole.read_bytes(), whole.stat().st_ino, whole.stat().st_mtime_ns)
    edited = {**_pairs(10, tag="q"), **_pairs(5, start=800)}  # 10 edited, 5 new
    cache = _filled(tmp_path, "k1", edited)
    assert (whole.read_bytes(), whole.stat().st_ino, whole.stat().st_mtime_ns) == before
    assert cache.journal_path.stat().st_size < 4_000  # the 15 pairs, not the 805
    fresh = CipherCache(tmp_path)
    for path, pair in {**first, **edited}.items():
        assert fresh.get("k1", path) == pair
    # a journal past an eighth of the cache: the cache is re-written, the journal emptied
    _filled(tmp_path, "k1", _pairs(200, tag="r"))
    assert whole.read_bytes() != before[0]
    assert len(CipherCache(tmp_path).journal_path.read_bytes()) < 100
    fresh = CipherCache(tmp_path)
    assert fresh.get("k1", "auto/3.md") == _pairs(1, start=3, tag="r")["auto/3.md"]
    assert fresh.get("k1", "auto/804.md") == edited["auto/804.md"]


def test_a_journal_over_another_cache_file_is_not_read(tmp_path: Path) -> None:
    """An older gitmem re-writes the whole cache and knows no journal: the journal written
    over the cache it replaced is not laid over the new one (its pairs may be older)."""
    _filled(tmp_path, "k1", _pairs(100))
    _filled(tmp_path, "k1", _pairs(3, tag="q"))
    cache = CipherCache(tmp_path)
    assert cache.get("k1", "auto/1.md") == _pairs(1, start=1, tag="q")["auto/1.md"]
    data = cache.path.read_bytes()
    cache.path.unlink()
    cache.path.write_bytes(data)  # the same bytes in another file
    assert CipherCache(tmp_path).get("k1", "auto/1.md") == _pairs(100)["auto/1.md"]


def test_a_new_scope_key_rewrites_the_cache_without_the_old_keys_pairs(tmp_path: Path) -> None:
    _filled(tmp_path, "k1", _pairs(100))
    _filled(tmp_path, "k2", _pairs(2, tag="n"))
    fresh = CipherCache(tmp_path)
    assert fresh.get("k1", "auto/1.md") is None
    assert fresh.get("k2", "auto/1.md") == _pairs(2, tag="n")["auto/1.md"]
    assert set(fresh.pairs) == {"k2"}
