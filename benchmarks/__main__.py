"""Run the benchmark suite: ``python -m benchmarks [--quick|--tiny] [--out DIR] [--only NAME]``.

With ``--out DIR`` the run is saved as ``DIR/latest.md|jsonl`` and its rows appended to
``DIR/history/<suite>.jsonl`` (``benchmarks/history.py``).

Exits 1 when any ``mismatches`` row (implementations disagreeing on an answer) is non-zero.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks import (
    bench_authorizer,
    bench_cli,
    bench_coldstart,
    bench_controller,
    bench_failover,
    bench_failover_kafka,
    bench_glob,
    bench_hostile,
    bench_java,
    bench_kraft,
    bench_log,
    bench_mutation,
    bench_pipeline,
    bench_small_batches,
    bench_snapshot,
    bench_ui,
    bench_ui_large,
    bench_wire,
    bytecode,
    harness,
    history,
)
from benchmarks.report import Report

SUITES = {
    "log": bench_log.run,
    "commit": bench_controller.run,
    "snapshot": bench_snapshot.run,
    "coldstart": bench_coldstart.run,
    "smallbatch": bench_small_batches.run,
    "kraft": bench_kraft.run,
    "failover": bench_failover.run,
    "failover-kafka": bench_failover_kafka.run,
    "authorizer": bench_authorizer.run,
    "glob": bench_glob.run,
    "mutation": bench_mutation.run,
    "wire": bench_wire.run,
    "hostile": bench_hostile.run,
    "pipeline": bench_pipeline.run,
    "cli": bench_cli.run,
    "java": bench_java.run,
    "ui": bench_ui.run,
    "ui-1m": bench_ui_large.run,
}
# The Spark suite takes about 25 minutes at full size; it runs only when asked for by name
# (`make bench-pipeline`), so `make bench` stays a few minutes.
DEFAULT_SUITES = [name for name in SUITES if name != "pipeline"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="CI-sized inputs (seconds).")
    parser.add_argument(
        "--tiny",
        action="store_true",
        help="Smoke-test sizes for the authorizer suites (implies --quick).",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="Write latest.md and latest.jsonl here and append the rows to its history/.",
    )
    parser.add_argument(
        "--run",
        default="make bench",
        help="What the run is for, kept with its rows in the history (default: %(default)s).",
    )
    parser.add_argument("--only", choices=sorted(SUITES), action="append")
    args = parser.parse_args(argv)
    report = Report()
    quick = args.quick or args.tiny
    scale = "tiny" if args.tiny else ("quick" if quick else "full")
    harness.SCALE.name = scale
    if not bytecode.as_installed():
        print("warning: some aclog modules did not byte-compile; start-up rows include compiling")
    try:
        for name in args.only or DEFAULT_SUITES:
            print(f"== {name}", flush=True)
            report.sample_load()
            SUITES[name](report, quick)
    finally:
        harness.SCALE.name = "full"
    if args.out:
        report.save(args.out, "latest")
        history.record(report, args.out / "history", args.run, scale)
        print(f"wrote {args.out / 'latest.md'} and {args.out / 'latest.jsonl'}; history appended")
    else:
        sys.stdout.write("\n" + report.markdown())
    mismatched = [r for r in report.rows if r.metric == "mismatches" and r.value != 0]
    for r in mismatched:
        print(f"MISMATCH: {r.impl} on {r.workload} at {r.size}: {r.value:g} ({r.note})")
    return 1 if mismatched else 0


if __name__ == "__main__":
    raise SystemExit(main())
