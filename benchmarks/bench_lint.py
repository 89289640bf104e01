"""``aclog lint`` on the ui-1m suite's log (:func:`benchmarks.bench_coldstart.make_log`: 1M
bindings plus 250k changes; quick: 50k + 12.5k): the CLI as a user runs it, and the library's
two steps apart in this process (issues 37 and 39; target: the CLI within 10 s at 1M).

Rows: the CLI's wall time, CPU seconds and peak memory, one run bounded by timeout(1) at
:data:`TIMEOUT_S` (past it the row says "timed out" with that value, a lower bound); the
rebuild of the state (:func:`aclog.replay.rebuild_image`) and the lint of its image
(:func:`aclog.questions.lint_image`: the fast path, :mod:`aclog.questions.lint_fast`), wall
and CPU, then the same image linted again (answered from the per-image memo, as the UI's Lint
view is when reloaded); at the quick size, the reference lint
(:func:`aclog.questions.lint.lint_acls`) of the same ACLs beside it (not at 1M: it compares
each ALLOW with every DENY of its principal, quadratic in a principal's ACLs).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from aclog.questions import LintReport, lint_image
from aclog.questions.lint import lint_acls
from aclog.replay import rebuild_image
from benchmarks.bench_startup import measure
from benchmarks.report import Report, Row

TIMEOUT_S = 60
"""The longest the CLI's lint may take here: six times the target, so a regression shows as
a figure rather than as the suite's 300 s request timeout."""

T = TypeVar("T")


def _timed(work: Callable[[], T]) -> tuple[float, float, T]:
    """Wall and CPU seconds of ``work()``, and its result."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def run_on(report: Report, directory: Path, size: int, cli: list[str], env: dict[str, str]) -> None:
    """The lint rows of the log in ``directory`` (``size`` ACLs and changes); ``cli`` starts
    ``aclog`` (through timeout(1)'s path first), ``env`` its environment."""
    _cli_row(report, directory, size, cli, env)
    wall, cpu, rebuilt = _timed(lambda: rebuild_image(directory))
    image = rebuilt.image
    _add(report, "rebuild (the state to lint)", size, wall, cpu, f"{len(image.acls):,} ACLs")
    wall, cpu, linted = _timed(lambda: lint_image(image))
    note = f"{len(linted.findings):,} findings; fast path"
    _add(report, "lint of the image (first)", size, wall, cpu, note)
    wall, cpu, _ = _timed(lambda: lint_image(image))
    _add(report, "lint of the image (again: kept per image)", size, wall, cpu, "")
    if size <= 100_000:  # the reference is quadratic in a principal's ACLs
        acls = list(image.acls)
        wall, cpu, found = _timed(lambda: lint_acls(acls))
        same = LintReport.of(found, 0, 0).findings == linted.findings  # no credentials here
        same_text = "same findings" if same else "DIFFERENT findings"
        _add(report, "reference lint (lint_acls)", size, wall, cpu, same_text)


def _cli_row(
    report: Report, directory: Path, size: int, cli: list[str], env: dict[str, str]
) -> None:
    timeout, *aclog = cli
    command = [timeout, str(TIMEOUT_S), *aclog, "lint", "--data-dir", str(directory)]
    try:
        seconds, mb, cpu = measure(command, env, timeout=TIMEOUT_S + 60)
    except RuntimeError as error:
        if "exited 124" not in str(error):  # timeout(1)'s code; anything else is a failure
            raise
        note = f"timed out: over {TIMEOUT_S} s"
        report.add(Row("ui-1m", "aclog CLI", "lint", size, "wall", TIMEOUT_S * 1000, "ms", note))
        return
    note = "one run; target <= 10 s at 1M"
    report.add(Row("ui-1m", "aclog CLI", "lint", size, "wall", seconds * 1000, "ms", note))
    report.add(Row("ui-1m", "aclog CLI", "lint", size, "CPU", cpu * 1000, "ms", "user+sys"))
    report.add(Row("ui-1m", "aclog CLI", "lint", size, "peak RSS", mb, "MB", "one run"))


def _add(report: Report, workload: str, size: int, wall: float, cpu: float, note: str) -> None:
    report.add(Row("ui-1m", "aclog library", workload, size, "wall", wall * 1000, "ms", note))
    report.add(Row("ui-1m", "aclog library", workload, size, "CPU", cpu * 1000, "ms", note))
