"""Run the benchmark suite: ``python -m benchmarks [--quick] [--out DIR] [--only NAME]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks import bench_controller, bench_log
from benchmarks.report import Report

SUITES = {"log": bench_log.run, "commit": bench_controller.run}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="CI-sized inputs (seconds).")
    parser.add_argument("--out", type=Path, help="Write results.md and results.jsonl here.")
    parser.add_argument("--only", choices=sorted(SUITES), action="append")
    args = parser.parse_args(argv)
    report = Report()
    for name in args.only or list(SUITES):
        print(f"== {name}", flush=True)
        SUITES[name](report, args.quick)
    if args.out:
        report.save(args.out, "latest")
        print(f"wrote {args.out / 'latest.md'} and {args.out / 'latest.jsonl'}")
    else:
        sys.stdout.write("\n" + report.markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
