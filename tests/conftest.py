"""Every test runs under a temporary HOME with no system or user git config leaking in.

Also the test loop's settings: the `slow` marker (whole folders of many-process tests carry it,
so `pytest -m "not slow"` is the developer loop) and the hypothesis profiles: `ci` (chosen when
CI is set) is derandomized, so a CI failure reproduces exactly; `dev` draws new examples each
run and prints the seed of a failure (rerun with --hypothesis-seed=N).
"""

from __future__ import annotations

import compileall
import multiprocessing
import os
import re
import shutil
import sys
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, settings

from tests.support.world import World

T = TypeVar("T")

_HYPOTHESIS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    "print_blob": True,
}
settings.register_profile("ci", max_examples=300, derandomize=True, **_HYPOTHESIS)  # type: ignore[arg-type]
# `dev` is repeatable too: the README's test command passes or fails the same way on every
# machine. The merge laws have known limits on the generators' duplicate-heavy inputs
# (docs/merge.md, Known limits; measured by `python -m benchmarks.merge_laws`): a random draw
# would turn them into a flaky suite. `explore` draws afresh, for hunting new cases.
settings.register_profile("dev", max_examples=150, derandomize=True, **_HYPOTHESIS)  # type: ignore[arg-type]
settings.register_profile("explore", max_examples=1000, **_HYPOTHESIS)  # type: ignore[arg-type]
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)

# folders whose every test starts many gitmem and git processes (or the real Claude Code, or
# the benchmarks); elsewhere, a test that builds a World (a bare remote and clones, synced by
# real gitmem runs) takes seconds, not milliseconds
SLOW_FOLDERS = ("reliability", "e2e", "oracle", "benchmarks")
# `world` and every fixture built on the template remote (the settled pools of
# tests/support/settled.py: worlds synced twice, 2.1 s apart)
SLOW_FIXTURES = ("world", "_remote_template")
# tests long by nature, slow wherever they are (CI runs them: it runs every test): big inputs
# under a time bound, a browser, pytest or hundreds of sealed files in a process. Named here, not
# marked in their files (tests/test_schedule.py checks that each still exists), by
# "path::function" (every parameter of it). Each costs 1-6 s of CPU; together ~23 s of the
# developer loop's ~130 s of CPU (README, Development).
LONG_BY_NATURE = (
    "tests/gitmem/test_crypto.py::test_the_manifest_in_shards_changes_and_opens_only_the_buckets_edited",
    "tests/merge_drivers/test_resolvers.py::test_garbage_merges_in_bounded_time",
    "tests/merge_drivers/test_plain_edits.py::test_a_large_index_rewritten_in_runs_merges_in_bounded_time",
    "tests/merge_drivers/test_formatting_and_text.py::test_huge_files_merge_line_by_line",
    "tests/recall/test_query.py::test_ten_thousand_memories_each_found_by_its_own_word",
    "tests/recall/test_view.py::test_the_page_shows_labelled_nodes_filters_and_loads_nothing",
    "tests/claude/test_graph.py::test_one_thousand_linked_files_build_and_rank_fast",
    "tests/gitmem/test_test_command.py::test_pytest_with_the_project_settings_prints_the_summary_line",
    "tests/test_schedule.py::test_the_developer_loop_reaches_every_package",
    "tests/beyond/test_redteam_round7.py::test_the_agent_door_judges_a_hostile_memory_in_bounded_time",
)
# the packages the tests' child processes import from this tree (pytest_sessionstart)
PACKAGES_RUN_FROM_THE_TREE = ("gitmem", "merge_drivers", "benchmarks")
# under xdist, these folders' tests start first: each holds minute-long tests (the quick
# benchmark, the concurrency and crash runs) that would otherwise keep one worker busy alone
# at the end
FIRST_ON_WORKERS = ("benchmarks", "reliability")
# the longest tests, with their seconds on the 2-core CI machine (quiet): xdist's worksteal
# hands each worker one contiguous share of the collection and steals from the shares' ends,
# so these are spread over the shares' beginnings, the longest first, evenly by time: put at
# the head of one share, they ran one after the other on one worker while the other worked
# through the rest alone
# (the quick benchmark, ~68 s as one test, is one test a family since round 16: the long
# families are spread here like the rest; their install is built once and shared by the
# workers that run them, tests/benchmarks/conftest.py)
QUICK = "tests/benchmarks/test_quick.py::test_quick_mode_runs_every_scenario_and_writes_results"
LAWS = "tests/merge_drivers/test_laws_15.py::test_the_known_merge_law_failures_only_go_down"
LONGEST = {
    # round 18: every test of ~4 s or more, from a whole run of 3,923 tests on 4 workers
    # (2026-11-29, at a load of ~15: 3,477 s; each wall divided by 5.4, that run's wall over a
    # quiet one's), so that no long test is left to start late and end alone (#23). Not the
    # first test of a module-scoped world (test_pull_push_work's pool, the redteam_writers
    # floods...): its time is mostly that world, built again if the test ran apart from its
    # module (the earlier rounds' entries of that kind kept). Round 19: the block-grain
    # properties scaled by their CPU after `blockmerge.likeness` remembered its pairs. Round 20:
    # the sweeps through `git merge` gone (~1 CPU-s each, the driver in process). Round 21: the
    # title-dropped and hook-word properties (fewer draws given up on) and the record test (its
    # stand-in records written fast) scaled by their CPU. Round 22: the 100,000-commit history
    # (one chain, fast-import reads no ref a commit) and the crafted merges (half the sizes)
    "tests/beyond/test_redteam_round16.py::test_a_killed_index_build_keeps_its_progress": 6,
    "tests/e2e/test_everyday_in_sync_16.py::test_the_sixteenth_sweep_through_gitmem_sync": 16,
    "tests/reliability/test_concurrency.py::test_many_clones_converge_and_lose_nothing[git daemon]": 15,
    "tests/e2e/test_everyday_in_sync.py::test_everyday_cases_through_gitmem_sync[2]": 15,
    "tests/e2e/test_everyday_in_sync.py::test_everyday_cases_through_gitmem_sync[3]": 15,
    "tests/beyond/test_redteam_writers.py::test_a_flood_of_writer_refs_is_listed_once_a_sync_and_fetched_by_the_window": 12,
    f"{LAWS}[3]": 13,
    f"{LAWS}[1]": 12,
    f"{LAWS}[2]": 12,
    f"{QUICK}[network]": 11,
    "tests/merge_drivers/test_everyday_cases_11.py::test_a_column_added_with_rows_on_one_side_and_cells_edited_on_the_other_is_both": 11,
    f"{QUICK}[scale]": 10,
    "tests/reliability/test_hostile_cost.py::test_a_history_of_100000_commits_is_validated_in_bounded_time": 6,
    "tests/recall/test_query.py::test_ten_thousand_memories_each_found_by_its_own_word": 10,
    "tests/merge_drivers/test_everyday_cases_9.py::test_a_table_row_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited": 10,
    "tests/merge_drivers/test_laws_15.py::test_the_record_is_the_draws_of_today": 6,
    "tests/merge_drivers/test_block_grain.py::test_a_subsection_moved_to_another_section_and_edited_on_the_other_side_is_both": 10,
    "tests/beyond/test_redteam_round6.py::test_curating_a_scope_of_thousands_of_topic_files_is_bounded[cycle]": 9,
    "tests/beyond/test_redteam_writers.py::test_the_session_start_hook_reads_a_bounded_part_of_a_flood": 9,
    "tests/merge_drivers/test_retitles.py::test_real_indexes_converge_with_a_retitle_in_every_order": 9,
    "tests/beyond/test_writer_flood.py::test_a_first_sync_of_a_flood_lists_it_and_writes_no_tracking_ref_each": 9,
    "tests/e2e/test_everyday_in_sync_17.py::test_the_seventeenth_sweep_through_gitmem_sync": 9,
    "tests/reliability/test_writer_fold_crash.py::test_kill_9_during_a_fold_of_writer_refs_loses_nothing": 9,
    "tests/e2e/test_everyday_in_sync_15.py::test_the_fifteenth_sweep_through_gitmem_sync": 9,
    "tests/merge_drivers/test_block_merges.py::test_a_section_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited": 8,
    "tests/merge_drivers/test_plain_edits.py::test_replicas_editing_plain_bullets_converge_and_keep_every_edit": 8,
    "tests/reliability/test_hostile_remotes.py::test_the_check_along_changes_refuses_each_hostile_kind_as_the_whole_check": 8,
    "tests/beyond/test_redteam_cost.py::test_hostile_markdown_merges_in_bounded_time[long-line-team/topic.md]": 8,
    f"{QUICK}[commands]": 8,
    "tests/gitmem/test_commit_edits.py::test_a_push_of_a_few_files_makes_only_their_records[on]": 8,
    "tests/recall/test_recall_round11.py::test_the_pages_search_finds_a_words_other_forms_as_query_does": 8,
    "tests/beyond/test_redteam_cost.py::test_hostile_markdown_merges_in_bounded_time[emphasis-team/topic.md]": 7,
    "tests/e2e/test_everyday_in_sync_16.py::test_three_machines_through_gitmem_sync": 7,
    "tests/e2e/test_everyday_in_sync.py::test_everyday_cases_through_gitmem_sync[4]": 7,
    "tests/reliability/test_crashes.py::test_kill_9_at_random_points_loses_nothing": 7,
    "tests/beyond/test_cost_round12.py::test_a_crafted_merge_grows_about_linearly[_items-10000]": 7,
    "tests/merge_drivers/test_complexity.py::test_a_20000_line_index_merges_in_linear_time[19000]": 7,
    "tests/merge_drivers/test_index_moves.py::test_a_move_a_deletion_and_an_edit_on_three_replicas_converge": 7,
    "tests/beyond/test_cost_round12.py::test_a_crafted_merge_grows_about_linearly[_long_line-20000]": 7,
    "tests/beyond/test_redteam_round6.py::test_curating_a_scope_of_thousands_of_topic_files_is_bounded[unindexed]": 7,
    "tests/merge_drivers/test_emptied.py::test_emptied_edited_edited_converge_in_every_order": 7,
    f"{QUICK}[first-push]": 7,
    "tests/merge_drivers/test_index_tree.py::test_three_replicas_replacing_the_same_or_neighbouring_hook_words_converge": 7,
    "tests/beyond/test_writer_flood.py::test_a_hostile_advertisement_of_writer_ref_names_is_counted_never_named[later sync]": 7,
    "tests/merge_drivers/test_plain_edits.py::test_a_large_index_rewritten_in_runs_merges_in_bounded_time": 7,
    "tests/reliability/test_hostile_remotes.py::test_every_module_a_check_runs_is_in_the_stamp_of_kept_trees": 7,
    "tests/beyond/test_redteam_writers.py::test_a_flood_of_refused_writer_refs_stays_bounded_and_lets_an_honest_one_in": 4,
    "tests/e2e/test_everyday_in_sync_11.py::test_eleventh_sweep_cases_through_gitmem_sync[3]": 6,
    "tests/e2e/test_everyday_in_sync_16.py::test_a_hook_separator_never_glues_to_the_link_through_sync_and_git_merge": 6,
    "tests/merge_drivers/test_reorder_15.py::test_the_one_order_by_sorting_is_the_pairwise_rule": 6,
    "tests/merge_drivers/test_index_moves.py::test_a_moved_bullet_stands_once_where_the_mover_put_it_with_the_editors_words": 6,
    "tests/e2e/test_everyday_in_sync_15.py::test_a_comment_written_tight_over_a_list_through_gitmem_sync_and_git_merge": 6,
    "tests/e2e/test_everyday_in_sync_11.py::test_eleventh_sweep_cases_through_gitmem_sync[2]": 6,
    "tests/e2e/test_ux_newcomer10.py::test_user_scope_ids_work_outside_any_clone": 6,
    "tests/e2e/test_everyday_in_sync_14.py::test_the_fourteenth_sweep_through_gitmem_sync": 6,
    "tests/reliability/test_concurrency.py::test_many_clones_converge_and_lose_nothing[bare remote]": 6,
    "tests/e2e/test_recall_round10.py::test_mcp_tools_and_resources_answer_within_a_bound_when_git_cannot_read_its_config": 6,
    "tests/merge_drivers/test_complexity.py::test_every_memory_decided_together_in_linear_time": 6,
    "tests/merge_drivers/test_block_grain.py::test_no_untouched_leaf_is_lost_and_every_edit_stands": 6,
    "tests/recall/test_view.py::test_the_page_shows_labelled_nodes_filters_and_loads_nothing": 5,
    "tests/merge_drivers/test_properties.py::test_a_heading_above_the_title_with_the_title_dropped_converges": 5,
    "tests/e2e/test_everyday_in_sync_15.py::test_dated_lines_from_three_machines_one_backdated_keep_time_order_through_gitmem_sync": 5,
    "tests/e2e/test_everyday_in_sync_14.py::test_dated_lines_from_three_machines_keep_time_order_through_gitmem_sync": 5,
    "tests/reliability/test_contention.py::test_contention_curve_every_writer_lands": 5,
    "tests/beyond/test_redteam_round13_remote.py::test_the_finest_merge_of_a_shuffled_file_has_a_budget": 5,
    "tests/merge_drivers/test_everyday_cases_9.py::test_an_item_moved_and_edited_on_one_side_and_edited_on_the_other_is_both": 5,
    "tests/beyond/test_redteam_cost.py::test_hostile_markdown_merges_in_bounded_time[line-ends-team/topic.md]": 5,
    "tests/e2e/test_emptied_in_sync.py::test_three_machines_empty_edit_and_edit_converge_on_both_edits[emptied]": 5,
    "tests/merge_drivers/test_complexity.py::test_files_deleted_with_their_lines_against_edits_come_back_in_linear_time": 5,
    "tests/merge_drivers/test_fine_merges.py::test_no_untouched_word_is_lost": 5,
    "tests/merge_drivers/test_placement.py::test_entries_written_on_top_stay_on_top_and_replicas_converge": 5,
    "tests/e2e/test_ux_newcomer10.py::test_every_example_of_readme_guide_and_help_reaches_gitmem_as_written": 5,
    "tests/gitmem/test_commit_edits.py::test_a_push_of_a_few_files_makes_only_their_records[off]": 5,
    "tests/beyond/test_redteam_doors.py::test_the_mcp_server_answers_hostile_requests_and_stays_up": 5,
    "tests/beyond/test_redteam_cost.py::test_hostile_markdown_merges_in_bounded_time[line-ends-team/MEMORY.md]": 5,
    "tests/beyond/test_cost_round12.py::test_a_crafted_merge_grows_about_linearly[_sections-2000]": 5,
    "tests/e2e/test_encryption.py::test_concurrent_edits_merge_exactly_as_in_plaintext": 5,
    "tests/merge_drivers/test_block_grain.py::test_a_nested_item_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited": 5,
    "tests/merge_drivers/test_resolvers.py::test_garbage_merges_in_bounded_time[x.txt]": 4,
    "tests/merge_drivers/test_index_tree.py::test_three_replicas_editing_hook_words_converge": 4,
    "tests/beyond/test_redteam_round6.py::test_a_team_tree_of_many_empty_files_is_judged_in_bounded_time[250000]": 3,
    "tests/e2e/test_everyday_in_sync.py::test_everyday_folder_cases_through_gitmem_sync[3]": 4,
    "tests/merge_drivers/test_block_matchers.py::test_the_matchers_read_a_line_as_the_patterns_do": 4,
    "tests/beyond/test_redteam_cost.py::test_hostile_markdown_merges_in_bounded_time[nested-list-team/MEMORY.md]": 4,
    "tests/e2e/test_writer_refs.py::test_concurrent_writers_all_land_and_converge": 4,
    "tests/e2e/test_newcomer_15.py::test_the_demo_ends_with_the_next_step": 4,
    "tests/gitmem/test_test_command.py::test_pytest_with_the_project_settings_prints_the_summary_line[developer-q]": 4,
    "tests/e2e/test_nokey_sync.py::test_a_machine_without_the_key_syncs_team_memory_and_keeps_its_personal_edit": 4,
    "tests/merge_drivers/test_index_moves.py::test_two_replicas_moving_bullets_and_a_third_adding_one_converge": 4,
    "tests/merge_drivers/test_repeat_properties.py::test_repeated_blocks_lose_no_edit_and_no_untouched_word_and_merge_symmetrically": 4,
    "tests/merge_drivers/test_laws_17.py::test_each_side_adds_one_entry_in_its_place_through_sync_three_clones": 4,
    "tests/beyond/test_redteam_cost.py::test_hostile_markdown_merges_in_bounded_time[repeated-items-team/MEMORY.md]": 4,
    "tests/merge_drivers/test_block_merges.py::test_an_item_moved_on_one_side_and_edited_on_the_other_is_moved_and_edited": 4,
    "tests/test_layers.py::test_every_import_goes_down_the_layers": 4,
    "tests/gitmem/test_writer_refs_steps.py::test_three_real_clones_fold_in_any_order_and_converge[git-order2]": 4,
    "tests/e2e/test_two_clones.py::test_three_clones_several_rounds_converge_byte_for_byte": 4,
    "tests/gitmem/test_writer_refs_steps.py::test_three_real_clones_fold_in_any_order_and_converge[git-order1]": 4,
    "tests/reliability/test_contention.py::test_writers_over_a_network_remote_all_land_and_converge_within_a_bound": 4,
    "tests/claude/test_hook_races.py::test_hook_sync_status_fetch_and_an_editor_at_once_lose_nothing": 4,
    "tests/gitmem/test_crypto.py::test_the_manifest_in_shards_changes_and_opens_only_the_buckets_edited": 3,
    "tests/reliability/test_editors.py::test_editors_appending_during_concurrent_syncs_lose_no_line": 3,
    "tests/e2e/test_ux_sync_output.py::test_a_line_while_the_network_is_slow_on_a_terminal": 2,
    f"{QUICK}[claude]": 2,
    f"{QUICK}[pull]": 2,
    "tests/e2e/test_key_changes.py::test_concurrent_key_changes_keep_both_sides[both-rotate-a]": 1,
}


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # xdist's: none without it
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: two workers a core when the worlds run (#23). A test that builds a World waits
    on the git processes it starts, the servers, the racy-clean window: a full `-n 2` run took
    560 s of CPU in 562 s on 2 cores, one core idle all along. The developer loop (`-m "not
    slow"`) runs in-process and keeps both busy: one a core, as xdist's own answer.
    PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) or 1
    return cores if "not slow" in (config.option.markexpr or "") else 2 * cores


def pytest_addoption(parser: pytest.Parser) -> None:
    # here, not in tests/reliability/conftest.py: pytest reads options only from top conftests
    parser.addoption(
        "--soak", action="store_true", help="run tests/reliability at its long (soak) sizes"
    )


def pytest_sessionstart(session: pytest.Session) -> None:
    """The tree's own packages compiled once, before any worker starts (#23). Many of the
    tests' child processes import gitmem from this tree (PYTHONPATH: `World.process`, the merge
    driver git runs, the hooks, the reliability harness); under PYTHONDONTWRITEBYTECODE (a dev
    shell, this CI machine) each compiled from source every module the collection had not
    imported (the commands, the hook's launcher, the sync's arrivals): ~15 ms of CPU a
    `gitmem sync`, every time. compileall writes them whatever that variable says; an up-to-date
    .pyc is left alone (~0.1 s a run)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # the controller did it
    root = Path(__file__).resolve().parents[1]
    for package in PACKAGES_RUN_FROM_THE_TREE:
        compileall.compile_dir(root / package, quiet=1)
    _keep_rewritten_plugins(session.config)
    if session.config.getoption("numprocesses", None):
        _rewrite_once(session.config, root / "tests")


def _keep_rewritten_plugins(config: pytest.Config) -> None:
    """The plugins' rewritten bytecode kept, as the test modules' is (#23). pytest rewrites the
    asserts of its plugins' packages (hypothesis, which this file imports, anyio, xdist: 111
    modules) in every pytest process, each xdist worker and the tests' own pytest runs, before
    any conftest is read; under PYTHONDONTWRITEBYTECODE (this CI machine) it never keeps them:
    ~0.8 s of CPU of each process's ~3.8 s collection. Written here once, with pytest's own
    functions, they are read as any cached rewrite (pytest checks the source's hash). Best
    effort: should the private functions change, each process rewrites them as before."""
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        hook = state.hook
        if hook is None:  # --assert=plain
            return
        for path in list(hook._rewritten_names.values()):
            cached = _cached(rewrite, path)
            if not cached.is_file() and rewrite.try_makedirs(cached.parent):
                source_hash, code = rewrite._rewrite_test(path, config)
                rewrite._write_pyc(state, code, source_hash, cached)
    except Exception:
        return


def _rewrite_once(config: pytest.Config, tests: Path) -> None:
    """Under xdist, the test modules' assert rewriting (pytest_collection below) done once, on
    every core, before the workers start (#23): on a fresh clone each of the four workers
    rewrote every module itself, at once (~9 s of CPU each, ~14 s with the collection). What the
    workers import is pytest's own cache, written by pytest's own functions (the same rewrite,
    the same file, the same checks when read); the helpers (tests/support) are compiled as any
    module. Best effort: should pytest's private functions change, the workers rewrite as
    before. Up to date (every run but a fresh clone's first), it costs ~0.1 s."""
    compileall.compile_dir(tests, quiet=1, rx=_REWRITTEN)
    global _REWRITING
    _REWRITING = config
    try:
        from _pytest.assertion import rewrite

        stale = [
            path
            for path in sorted(tests.rglob("*.py"))
            if _REWRITTEN.search(str(path)) and not _cached(rewrite, path).is_file()
        ]
        if stale:
            fork = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(len(os.sched_getaffinity(0)) or 1, mp_context=fork) as pool:
                list(pool.map(_rewrite, stale, chunksize=8))
    except Exception:  # a private function changed: the workers rewrite, as before
        return
    finally:
        _REWRITING = None


# what pytest rewrites here: the test modules and conftests (pyproject: python_files default)
_REWRITTEN = re.compile(r"/(test_[^/]*|conftest)\.py$")
_REWRITING: pytest.Config | None = None  # the config the forked rewriters inherit


def _cached(rewrite: ModuleType, path: Path) -> Path:
    """Where pytest keeps the rewritten `path` (an outdated one is rewritten by the worker that
    reads it: pytest checks its source hash)."""
    cached: Path = rewrite.get_cache_dir(path) / (path.stem + rewrite.PYC_TAIL)
    return cached


def _rewrite(path: Path) -> None:
    from _pytest.assertion import rewrite

    assert _REWRITING is not None
    state = _REWRITING.stash[rewrite.assertstate_key]
    if rewrite.try_makedirs(rewrite.get_cache_dir(path)):
        source_hash, code = rewrite._rewrite_test(path, _REWRITING)
        rewrite._write_pyc(state, code, source_hash, _cached(rewrite, path))


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """The test modules' rewritten bytecode is kept (in their __pycache__, ignored by git) even
    where PYTHONDONTWRITEBYTECODE is set, for the collection only: pytest rewrites the asserts
    of every test module it imports, ~6 s of CPU a process (each xdist worker collects the whole
    suite) that a cached rewrite brings to ~0.5 s."""
    keep = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        yield
    finally:
        sys.dont_write_bytecode = keep


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    for key in list(__import__("os").environ):
        if key.startswith(("GIT_", "CLAUDE_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")


@pytest.fixture(scope="session")
def _remote_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bare remote every World starts from (one commit on main), made once: a bare
    repository names no path of its own, so a copy is the same remote anywhere."""
    w = World(tmp_path_factory.mktemp("remote-template"))
    return w.make_remote()


@pytest.fixture
def world(tmp_path: Path, _remote_template: Path) -> World:
    w = World(tmp_path)
    shutil.copytree(_remote_template, w.remote, symlinks=True)
    return w


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(__file__).parent
    # the real Claude Code is a 175 MB download: its tests run only when CLAUDE_BIN names it,
    # and show as SKIPPED otherwise (collected, so an import error in them still fails)
    have_claude = bool(os.environ.get("CLAUDE_BIN"))
    for item in items:
        parts = item.path.relative_to(root).parts
        fixtures = getattr(item, "fixturenames", ())
        if (
            (parts and parts[0] in SLOW_FOLDERS)
            or any(f in fixtures for f in SLOW_FIXTURES)
            or item.nodeid.partition("[")[0] in LONG_BY_NATURE
        ):
            item.add_marker(pytest.mark.slow)
        if "oracle" in Path(str(item.path)).parts:
            item.add_marker(pytest.mark.oracle)
            if not have_claude:
                item.add_marker(
                    pytest.mark.skip(
                        reason="needs the real Claude Code: "
                        "CLAUDE_BIN=$(tests/oracle/install-claude-code)"
                    )
                )


class _Order:
    """The order of what is left once `-m`/`-k` deselected (trylast: after pytest's own hook
    that deselects, which runs after the one above that marks), so that the shares it plans
    are the ones xdist cuts."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if not os.environ.get("PYTEST_XDIST_WORKER"):  # every worker sorts alike
            return
        root = Path(__file__).parent
        items.sort(key=lambda item: item.path.relative_to(root).parts[0] not in FIRST_ON_WORKERS)
        workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
        items[:] = spread_longest(items, workers, LONGEST)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Order(), "gitmem-order")
    _temporary_folders_in_memory()


MEMORY_FOLDER = Path("/dev/shm")


def _temporary_folders_in_memory() -> None:
    """The tests' temporary folders (pytest's base, whose share each xdist worker gets) on the
    memory-backed filesystem where the machine has one, unless the developer chose a place
    (`--basetemp`, `PYTEST_DEBUG_TEMPROOT`, pytest's own documented setting). On this machine's
    disk (ext4 mounted with `discard`) removing a passing test's folder and the product's
    fsyncs were the larger part of many tests: tests/gitmem/test_commit_edits.py 46-71 s wall,
    8.6-11.3 s CPU → 31-33 s, 5.9 s (round 18). Nothing tested depends on the disk: the
    kill -9 trials kill processes, not the machine."""
    if "PYTEST_DEBUG_TEMPROOT" in os.environ or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if MEMORY_FOLDER.is_dir() and os.access(MEMORY_FOLDER, os.W_OK | os.X_OK):
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(MEMORY_FOLDER)


def spread_longest(items: list[T], workers: int, seconds: Mapping[str, float]) -> list[T]:
    """`items` reordered for xdist's worksteal over `workers`: it gives worker i the i-th of
    `workers` contiguous shares (each a whole part of what is left, as
    WorkStealingScheduling.check_schedule cuts them). The items named in `seconds` go to the
    heads of the shares, each (longest first) to the share with the fewest seconds so far; the
    others keep their order, filling the shares in turn."""
    if workers < 2:
        return items
    known = [item for item in items if getattr(item, "nodeid", "") in seconds]
    known.sort(key=lambda item: -seconds[getattr(item, "nodeid", "")])
    heads: list[list[T]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for item in known:
        share = load.index(min(load))
        heads[share].append(item)
        load[share] += seconds[getattr(item, "nodeid", "")]
    sizes, left = [], len(items)
    for share in range(workers):
        sizes.append(left // (workers - share))
        left -= sizes[-1]
    if any(len(head) > size for head, size in zip(heads, sizes, strict=True)):
        return items  # a few items only (a -k run): nothing to spread
    rest = iter([item for item in items if getattr(item, "nodeid", "") not in seconds])
    ordered: list[T] = []
    for head, size in zip(heads, sizes, strict=True):
        ordered += head + [next(rest) for _ in range(size - len(head))]
    return ordered
