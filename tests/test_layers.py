"""The packages are layers: each imports only from the layers below it (imports inside
functions and those only a type checker reads included), so `ls gitmem` shows the architecture
(issue 23). The order is declared here, once; docs/architecture.md explains it."""

from __future__ import annotations

from tests.test_import_cycles import _imports, _modules

# lowest first; modules of one layer may import each other (no cycles: test_import_cycles)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("merge_drivers",),  # the pure merge engine: bytes in, bytes out (its own top package)
    ("gitmem", "gitmem.core", "gitmem.errors"),  # the version, values, files, settings, errors
    ("gitmem.gitstore",),  # the only code that runs git
    ("gitmem.merge",),  # trees of memory merged through merge_drivers
    ("gitmem.project",),  # identity, scopes, adapters, confinement, local state
    ("gitmem.policy",),  # what a tree may hold: names, content, secrets, every commit
    ("gitmem.privacy",),  # keys and sealed folders
    ("gitmem.history",),  # a memory's past on its ref; the edits merges resolved against
    ("gitmem.sync",),  # the one sync path: session, ledger and steps
    ("gitmem.claude",),  # Claude Code: hooks, the graph, curate
    ("gitmem.recall",),  # query, record, the index, prompt-time context, the page
    ("gitmem.commands",),  # use cases: doctor, status, validate, promote, the MCP server…
    ("gitmem.cli",),  # the command line
    # how it starts: `python -m gitmem`, the hooks' launcher, earlier versions' entries
    ("gitmem.__main__", "gitmem.launch", "gitmem.hookstart", "merge_drivers.__main__"),
)

# Imports that go up on purpose, each with its reason; the count only goes down.
UPWARD_ON_PURPOSE = {
    # merge-driver registrations made before the adapter moved beside the merge still run
    # `python -m gitmem.gitstore.driver`: the module stays, an alias of the adapter
    ("gitmem.gitstore.driver", "gitmem.merge.gitdriver"),
}


def _layer(module: str) -> int:
    """The rank of the longest entry naming `module` or a package holding it (`gitmem` names
    the package's face alone: a new top-level module must be given its layer)."""
    best, found = -1, -1
    for rank, layer in enumerate(LAYERS):
        for prefix in layer:
            inside = module.startswith(prefix + ".") and prefix != "gitmem"
            if (module == prefix or inside) and len(prefix) > best:
                best, found = len(prefix), rank
    assert found >= 0, f"{module} is in no layer: add its package to LAYERS"
    return found


def test_every_import_goes_down_the_layers() -> None:
    modules = _modules()
    upward = []
    for name, path in modules.items():
        for target in _imports(name, path, modules):
            if _layer(target) > _layer(name) and (name, target) not in UPWARD_ON_PURPOSE:
                upward.append(f"{name} imports {target}")
    assert not upward, "imports up the layers:\n" + "\n".join(sorted(upward))


def test_the_exceptions_are_still_needed() -> None:
    modules = _modules()
    for name, target in UPWARD_ON_PURPOSE:
        assert target in _imports(name, modules[name], modules), (name, target)


def test_every_package_has_a_layer() -> None:
    for name in _modules():
        _layer(name)
