"""The entry of merge-driver registrations made before the adapter moved beside the merge
(`from gitmem.gitstore.driver import main`, and `python -m gitmem.gitstore.driver`): kept so
they still merge. The adapter is gitmem/merge/gitdriver.py, whose start does not import the git
layer's package; `gitmem drivers status` names such a registration as outdated and
`gitmem drivers install` refreshes it.
"""

import sys

from gitmem.merge.gitdriver import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
