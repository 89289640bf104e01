"""The README's table of the Spark pipeline (``make bench-pipeline``'s committed run)."""

from __future__ import annotations

from benchmarks.figure_cells import rate, secs, times
from benchmarks.figures import Cell, Run, Table

SIZE = 5_000_000


def _p(r: Run, impl: str, workload: str, metric: str = "throughput") -> float:
    return r.value("pipeline", impl, workload, metric)


def _state(r: Run) -> str:
    spark = _p(r, "pipeline", "state -> Parquet")
    floor = _p(r, "pipeline", "state from records Parquet")
    return (
        f"{rate(spark)} records/s ({secs(SIZE / spark)}), {times(spark / floor)} the same job "
        f"over records already in Parquet ({rate(floor)}/s, {secs(SIZE / floor)})"
    )


def _state_beside(r: Run) -> str:
    return (
        f"decode alone (`count`) {rate(_p(r, 'pipeline source', 'decode (count)'))}/s; "
        f"`records` → Parquet {rate(_p(r, 'pipeline', 'records -> Parquet'))}/s; DuckDB `state` "
        f"over the records Parquet {rate(_p(r, 'duckdb', 'state from records Parquet'))}/s; "
        f"in-process `rebuild_image` {rate(_p(r, 'in-process', 'state (rebuild_image)'))}/s"
    )


def _in_process_access(r: Run) -> str:
    authorize = _p(r, "in-process authorize", "access (sampled)")
    explain = _p(r, "in-process explain", "access (sampled)")
    return f"in-process `authorize` {rate(authorize)}/s, `explain` {rate(explain)}/s, one core"


QUESTIONS = (
    ("who-can", "answers"),
    ("reach", "principals"),
    ("timeline", "questions"),
    ("diff", "changes"),
    ("lint", "ACLs"),
)


def _questions(impl: str) -> Cell:
    def cell(r: Run) -> str:
        return ", ".join(
            f"{rate(_p(r, impl, f'{name} (tenancy)'))} {unit}/s" for name, unit in QUESTIONS
        )

    return cell


PIPELINE = Table(
    ("what", "Spark, `local[2]`", "beside it"),
    [
        ("`state`, 5M records", _state, _state_beside),
        (
            "`access`, 1,102 principals × 100,333 topics × 3 operations (tenancy)",
            lambda r: f"{rate(_p(r, 'pipeline', 'access 1102x100333x3 -> Parquet'))} decisions/s",
            _in_process_access,
        ),
        (
            "`who-can`, `reach`, `timeline`, `diff`, `lint` on the tenancy log",
            _questions("pipeline"),
            lambda r: "in-process: " + _questions("in-process")(r),
        ),
    ],
    run="make bench-pipeline",
)
