"""What the pipeline commands print: tables of the rows a job collected, lines of its answers
(:mod:`aclog.pipeline.inputs` collects them and writes the Parquet).

Thread-safe (no shared state). Cost: rendering at most ``limit`` rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from aclog.tools.console import print_line, print_table
from aclog.tools.visible import visible

if TYPE_CHECKING:
    from rich.text import Text


def show_rows(
    rows: Sequence[dict[str, Any]], columns: Sequence[str], limit: int, what: str
) -> None:
    """A table of the first ``limit`` rows, titled with how many there are."""
    from rich.table import Table  # noqa: PLC0415 - rich only when a table is printed

    table = Table(*columns, title=f"{len(rows)} {what}", title_justify="left")
    for row in rows[:limit]:
        # Text cells: names are neither rich markup nor control sequences.
        table.add_row(*(_cell(row.get(c)) for c in columns))
    print_table(table)
    if len(rows) > limit:
        print_line(f"... {len(rows) - limit} more; use --json or --out for all")


def show_answers(
    answers: Sequence[dict[str, Any]], what: str, line: Callable[[dict[str, Any]], str]
) -> None:
    """How many ``answers`` there are, then each as its one ``line``."""
    print_line(f"{len(answers)} {what}")
    for answer in answers:
        print_line(f"  {line(answer)}")


def _cell(value: Any) -> Text:
    from rich.text import Text  # noqa: PLC0415 - rich only when a table is printed

    return Text("" if value is None else visible(str(value)))
