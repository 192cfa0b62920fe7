"""Round 21's cuts of the CI time (#23; docs/testing.md, round 21): each test fails with its cut
undone."""

from __future__ import annotations

import pytest
from _pytest.assertion import rewrite

from tests.conftest import _cached, _keep_rewritten_plugins


def test_the_plugins_rewrite_is_kept_as_pytests_own(pytestconfig: pytest.Config) -> None:
    """hypothesis is a pytest plugin, so pytest rewrites its modules' asserts in every process;
    the controller keeps that rewrite (under PYTHONDONTWRITEBYTECODE pytest would not), and what
    it keeps is pytest's own, current rewrite, which the next process reads."""
    state = pytestconfig.stash[rewrite.assertstate_key]
    assert state.hook is not None
    rewritten = state.hook._rewritten_names
    path = rewritten["hypothesis.errors"]  # a plugin's module: rewritten
    kept = _cached(rewrite, path)
    kept.unlink(missing_ok=True)

    _keep_rewritten_plugins(pytestconfig)

    code = rewrite._read_pyc(path, kept)
    assert code is not None  # found, and current
    _, own = rewrite._rewrite_test(path, pytestconfig)
    assert code == own
    for module in rewritten.values():  # each plugin module (and conftest) read so far
        assert _cached(rewrite, module).is_file(), module
