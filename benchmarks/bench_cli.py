"""Whole-command CLI output: ``aclog replay``, ``aclog dump`` and ``aclog export`` (a
desired-state YAML file), text beside ``--json``; first, the start-up rows of
:mod:`benchmarks.bench_startup` (``--help``, ``--version``, a small listing, completion).

Each command runs as a user runs it, ``python -m aclog ...`` in a subprocess with stdout on a
pipe that the benchmark drains and counts, so the row holds the interpreter start, the read
and replay of the log, and the rendering and writing of every line. The log is written with the
real writers: batches of 100 ACL additions led by the request context that authored them, one
in ten records a removal of an earlier ACL, as churn does (so ``replay`` prints about 80% of
the records as ACLs and ``dump`` prints every record and a header line per batch).

Text and JSON of one command run in turn, best of :data:`ROUNDS`, so both see the same moments
of the shared machine; the text row's note gives its ratio to the JSON row (the target is at
most 1.2: a person's listing may not cost much more than the machine's). Sizes: 1M records
(``make bench``), 50k (``--quick``), 2,000 (``--tiny``, the smoke test).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aclog.log import SegmentedLog
from aclog.records import RemoveAccessControlEntryRecord, RequestContextRecord, encode_many
from benchmarks import bench_startup
from benchmarks.bench_log import acl_records
from benchmarks.harness import SCALE
from benchmarks.report import Report, Row

BATCH = 100
ROUNDS = 3
TARGET = 1.2
COMMANDS = {
    "replay": ["replay", "--data-dir"],
    "dump": ["dump"],
    "export": ["export", "--data-dir"],
}


def make_log(directory: Path, records: int) -> None:
    """A log of about ``records`` records (see the module docstring)."""
    unique = {r.binding: r for r in acl_records(records * 2, seed=3)}
    acls = iter(unique.values())
    written, batch_number, added = 0, 0, []
    with SegmentedLog(directory, fsync=False) as log:
        while written < records:
            context = RequestContextRecord(
                f"User:admin-{batch_number % 7}", "10.0.4.17", "terraform", 0, "CreateAcls"
            )
            body: list = [context]
            for i in range(BATCH - 1):
                if i % 10 == 9 and added:
                    body.append(RemoveAccessControlEntryRecord(added.pop(0).id))
                else:
                    acl = next(acls)
                    added.append(acl)
                    body.append(acl)
            log.append(encode_many(body), 1, timestamp_ms=1_700_000_000_000 + batch_number)
            written += len(body)
            batch_number += 1


def _run(argv: list[str]) -> tuple[float, int]:
    """Seconds until the command exits and the bytes it wrote to stdout."""
    command = [sys.executable, "-m", "aclog", *argv]
    start = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        assert process.stdout is not None
        size = 0
        while chunk := process.stdout.read(1 << 20):
            size += len(chunk)
        code = process.wait()
    seconds = time.perf_counter() - start
    if code != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {code}")
    return seconds, size


def run(report: Report, quick: bool) -> None:
    bench_startup.run(report, quick)
    records = SCALE.pick(1_000_000, 50_000, 2_000) if quick else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "log"
        make_log(directory, records)
        for name, argv in COMMANDS.items():
            _compare(report, name, [*argv, str(directory)], records)


def _compare(report: Report, name: str, argv: list[str], records: int) -> None:
    best = {"text": float("inf"), "json": float("inf")}
    sizes = {}
    for _ in range(ROUNDS):
        for form, extra in (("text", []), ("json", ["--json"])):
            seconds, sizes[form] = _run([*argv, *extra])
            best[form] = min(best[form], seconds)
    ratio = best["text"] / best["json"]
    for form in ("json", "text"):
        note = f"best of {ROUNDS}, in turn; {sizes[form] / 1e6:.0f} MB of output"
        if form == "text":
            note += f"; text/json {ratio:.2f} (target <= {TARGET})"
        report.add(
            Row(
                "cli",
                f"aclog {name}" + (" --json" if form == "json" else ""),
                f"whole command, {records} records",
                records,
                "seconds",
                best[form],
                "s",
                note,
            )
        )
