"""One plain install of gitmem for the tests of the harness that time it (#23).

Each of them holds the install and discards it as a harness run does, so each built it anew:
three `pip install .` of the tree (~7 s each on a quiet 2-core machine, 17 s at a load of 4)
where one serves. `one_install` builds it once and holds it shared, as another harness run
would, for as long as those tests run on this worker; when the worker ends it lets go, and the
install, held by no run any more, is removed, as the last run's `discard` removes it.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator

import pytest

from benchmarks.install import COMPLETE, Install, discard, installed


@pytest.fixture(scope="session")
def one_install() -> Iterator[Install]:
    install = installed()  # built here, once
    with open(f"{install.venv}.lock") as hold:
        fcntl.flock(hold, fcntl.LOCK_SH)  # another run's hold: the tests' discard keeps it
        discard()
        assert install.venv.is_dir(), "discarded while another run holds it"
        yield install
    # let go: then a last run finds it complete (no build) and removes it when it ends, unless
    # a run elsewhere (another worker, a harness run) holds it too
    assert installed() == install and (install.venv / COMPLETE).exists()
    discard()
    assert not install.venv.exists() or held_elsewhere(install), "an install no run holds is kept"


def held_elsewhere(install: Install) -> bool:
    """Whether a run elsewhere (another worker, a harness run) holds `install` now."""
    with open(f"{install.venv}.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
    return False
