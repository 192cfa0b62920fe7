"""`python -m merge_drivers %O %A %B %L %P`: the entry point of registrations made before the
adapter moved out of this package (it is gitmem/merge/gitdriver.py), kept so they still merge.

The package itself stays pure; `gitmem drivers status` names such a registration as outdated
and `gitmem drivers install` refreshes it.
"""

import sys

from gitmem.merge.gitdriver import main

if __name__ == "__main__":
    sys.exit(main())
