"""Figures tables rendered from a committed benchmark run (``results/latest.jsonl``).

The README holds each table of figures between ``<!-- figures:NAME -->`` and
``<!-- /figures -->``; :data:`benchmarks.readme_tables.TABLES` says which rows each cell shows.
``python -m benchmarks.readme_figures`` rewrites the blocks from the committed run (``make bench``
does it after saving), and ``tests/benchmarks/test_readme_figures.py`` fails when a block
differs from what the committed run gives, so no figure in those tables is typed by hand.

Not thread-safe (rewrites a file). Cost: one read of the run and the README.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
RUNS = {
    "make bench": RESULTS / "latest.jsonl",
    "make bench-pipeline": RESULTS / "pipeline" / "latest.jsonl",
}
"""The committed runs a table may draw from: ``make bench`` and the Spark suite's own run."""
README = Path(__file__).parents[1] / "README.md"
BLOCK = re.compile(r"(<!-- figures:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /figures -->)", re.S)


class MissingFigure(LookupError):
    """A table names a row the run does not hold exactly once."""


@dataclass(frozen=True)
class Run:
    """The rows and environment of one saved run, looked up by what they measured."""

    environment: dict[str, Any]
    rows: Sequence[dict[str, Any]]

    @classmethod
    def load(cls, path: Path = RUNS["make bench"]) -> Run:
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        env = next((line["environment"] for line in lines if "environment" in line), {})
        return cls(env, [line for line in lines if "benchmark" in line])

    def row(self, benchmark: str, impl: str, workload: str, metric: str, **match: Any) -> Any:
        """The row measuring ``metric`` of ``impl`` on ``workload``; ``size``, ``note`` narrow."""
        found = [
            r
            for r in self.rows
            if (r["benchmark"], r["impl"], r["workload"], r["metric"])
            == (benchmark, impl, workload, metric)
            and all(
                (value in r[key]) if key == "note" else r[key] == value
                for key, value in match.items()
            )
        ]
        if len(found) != 1:
            raise MissingFigure(
                f"{len(found)} rows for {benchmark} / {impl} / {workload} / {metric} {match}"
            )
        return found[0]

    def value(self, benchmark: str, impl: str, workload: str, metric: str, **match: Any) -> float:
        return float(self.row(benchmark, impl, workload, metric, **match)["value"])


Cell = Callable[[Run], str]


@dataclass(frozen=True)
class Table:
    """A markdown table whose cells are text or functions of the run."""

    header: Sequence[str]
    lines: Sequence[Sequence[str | Cell]]
    run: str = "make bench"

    def render(self, run: Run) -> str:
        out = ["| " + " | ".join(self.header) + " |", "|" + "---|" * len(self.header)]
        for line in self.lines:
            cells = [cell if isinstance(cell, str) else cell(run) for cell in line]
            out.append("| " + " | ".join(cells) + " |")
        return "\n".join(out) + "\n"


def committed_runs() -> dict[str, Run]:
    """Every committed run a table may name, loaded."""
    return {name: Run.load(path) for name, path in RUNS.items()}


def rewrite(text: str, tables: dict[str, Table], runs: dict[str, Run]) -> str:
    """``text`` with every figures block rendered again from the run its table names."""

    def render(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in tables:
            raise MissingFigure(f"no table named {name!r} (README block figures:{name})")
        table = tables[name]
        return match.group(1) + table.render(runs[table.run]) + match.group(4)

    return BLOCK.sub(render, text)


def blocks(text: str) -> Iterable[tuple[str, str]]:
    """(name, body) of every figures block in ``text``."""
    for match in BLOCK.finditer(text):
        yield match["name"], match["body"]
