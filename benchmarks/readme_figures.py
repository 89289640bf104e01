"""Rewrite the README's figures tables from the committed runs (``python -m`` this module).

The tables (:data:`benchmarks.readme_tables.TABLES`) are rendered by :mod:`benchmarks.figures`;
``make bench`` runs this after saving its run. Not thread-safe (rewrites a file).
"""

from __future__ import annotations

import sys

from benchmarks.figures import README, RESULTS, MissingFigure, committed_runs, rewrite
from benchmarks.readme_tables import TABLES


def main(argv: list[str] | None = None) -> int:
    runs = committed_runs()
    try:
        README.write_text(rewrite(README.read_text(), TABLES, runs))
    except MissingFigure as missing:
        print(f"README figures not rewritten: {missing}", file=sys.stderr)
        return 1
    commit = runs["make bench"].environment.get("commit")
    print(f"README figures rewritten from {RESULTS} (make bench on {commit})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
