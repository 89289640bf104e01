"""The README's figures are the committed benchmark run's, not typed by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.figures import (
    README,
    MissingFigure,
    Run,
    Table,
    blocks,
    committed_runs,
    rewrite,
)
from benchmarks.readme_tables import TABLES

# A measured figure: a number followed by a unit of time, rate, size or ratio.
FIGURE = re.compile(r"\d[\d,.]*[kM]?\s?(µs|us|ms|s|MB|GB|KB|/s|records/s|\u00d7|x)(?![\w-])")


def test_every_figures_block_is_what_the_committed_run_gives() -> None:
    text = README.read_text()
    names = [name for name, _ in blocks(text)]

    assert names, "the README has no figures blocks"
    assert sorted(names) == sorted(TABLES), "a table is defined but not shown, or the reverse"
    assert rewrite(text, TABLES, committed_runs()) == text, (
        "README figures differ from benchmarks/results/latest.jsonl: "
        "run `python -m benchmarks.readme_figures`"
    )


def test_the_performance_section_has_no_figure_outside_a_block() -> None:
    text = README.read_text()
    section = text[text.index("\n## Performance") :]
    outside = re.sub(r"<!-- figures:.*?<!-- /figures -->", "", section, flags=re.S)

    typed = [m.group(0) for m in FIGURE.finditer(outside)]
    assert typed == [], f"figures typed by hand in the Performance section: {typed[:10]}"


def test_the_readme_names_the_machine_and_kafka_of_the_run() -> None:
    env = Run.load().environment
    text = README.read_text()

    assert env["commit"] in text
    assert str(env.get("kafka", "none")).split()[-1] in text


def test_a_table_naming_a_row_the_run_lacks_is_an_error(tmp_path: Path) -> None:
    run = Run({}, [{"benchmark": "log", "impl": "a", "workload": "w", "metric": "m", "value": 1}])
    table = Table(("what", "value"), [("x", lambda r: f"{r.value('log', 'b', 'w', 'm'):g}")])

    with pytest.raises(MissingFigure, match="0 rows for log / b / w / m"):
        rewrite("<!-- figures:t -->\nold\n<!-- /figures -->\n", {"t": table}, {"make bench": run})
    good = Table(("what", "value"), [("x", lambda r: f"{r.value('log', 'a', 'w', 'm'):g}")])
    block = "<!-- figures:t -->\nold\n<!-- /figures -->"
    assert rewrite(block, {"t": good}, {"make bench": run}) == (
        "<!-- figures:t -->\n| what | value |\n|---|---|\n| x | 1 |\n<!-- /figures -->"
    )
