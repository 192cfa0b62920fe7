"""Fakes of the lower layers for in-process tests: the in-memory store (`memory`) and the
in-memory repository with a loopback remote (`memoryrepo`). They ship nowhere: only tests
import them, and one conformance suite keeps them honest (tests/gitmem/test_store_conformance.py)."""
