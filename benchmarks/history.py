"""The history of benchmark runs: one JSON-lines file per suite, appended to and never rewritten.

``results/latest.jsonl`` is the committed reference run (the README's figures come from it);
``results/history/<suite>.jsonl`` keeps every row any run recorded for that suite, each line a
row of :class:`benchmarks.report.Row` plus where it came from:

- ``run``: a label saying what the run was for (``make bench``, ``before <commit>``, ...);
- ``commit``: the code measured (``+dirty`` when ``aclog/`` had uncommitted changes);
- ``recorded``: the UTC date the run was saved; ``scale``: ``full``, ``quick`` or ``tiny``;
- ``load``: the machine's 1-minute load average at the run's start and the highest sampled
  during it (see :func:`benchmarks.report.peak_load`), when known.

Prose that went with a run (what was compared, how, why) lives in ``history/notes.md``.

Not thread-safe (one writer: the benchmark runner). Cost: one append per suite per run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks.report import Report, peak_load

PROVENANCE = ("run", "commit", "recorded", "scale", "load")


def record(report: Report, directory: Path, run: str, scale: str) -> dict[str, int]:
    """Append ``report``'s rows to ``directory``'s history files; rows written per suite."""
    env = report.environment()
    provenance = {
        "run": run,
        "commit": env["commit"],
        "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
        "scale": scale,
        "load": [round(env["load"]["start"][0], 2), round(peak_load(env["load"]), 2)],
    }
    return append(directory, ({**provenance, **asdict(row)} for row in report.rows))


def append(directory: Path, lines: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Append history lines (provenance + row) to ``directory/<benchmark>.jsonl``."""
    directory.mkdir(parents=True, exist_ok=True)
    by_suite: dict[str, list[str]] = {}
    for line in lines:
        by_suite.setdefault(str(line["benchmark"]), []).append(json.dumps(line))
    for suite, encoded in by_suite.items():
        with open(directory / f"{suite}.jsonl", "a") as out:
            out.write("\n".join(encoded) + "\n")
    return {suite: len(encoded) for suite, encoded in by_suite.items()}


def read(directory: Path, suite: str) -> Iterator[dict[str, Any]]:
    """Every line of one suite's history, oldest first."""
    path = directory / f"{suite}.jsonl"
    if path.exists():
        with open(path) as lines:
            for line in lines:
                if line.strip():
                    yield json.loads(line)
