"""A gitmem-owned index file per scope folder: git's stat cache, so that a sync with nothing
changed hashes nothing (filled in by the snapshot work of issue #14)."""
