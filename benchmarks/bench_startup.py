"""Start-up of the ``aclog`` command beside ``python -c pass``: what a user waits for and what
the process holds before any work, for ``aclog --help``, ``aclog --version``, a group's and a
subcommand's help (``aclog acls --help``, ``aclog acls add --help``), ``aclog acls list`` of a
10-ACL data directory, and a shell's completion of ``--operation <TAB>``. Part of
the ``cli`` suite (:mod:`benchmarks.bench_cli`).

Each command runs as the console script runs it (``from aclog.tools.main import main``, under
the name ``aclog``) in a fresh interpreter, :data:`RUNS` times after one warm-up, output on a
pipe read to the end; a row gives the median wall time, another the largest peak resident
memory of a run (the kernel's accounting of the finished child, ``wait4``, in a small launcher
process: see :data:`LAUNCHER`). Targets (issue 37):
0.3 s and 60 MB for ``--help``, ``--version`` and the small listing.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from aclog.log import SegmentedLog
from aclog.records import RequestContextRecord, encode_many
from benchmarks.bench_log import acl_records
from benchmarks.harness import SCALE
from benchmarks.report import Report, Row

RUNS = 9
AS_ACLOG = "import sys; sys.argv[0] = 'aclog'; from aclog.tools.main import main; main()"
TARGET_SECONDS = 0.3
TARGET_MB = 60


def make_small_log(directory: Path, acls: int = 10) -> None:
    """A data directory holding ``acls`` ACLs, added in one batch as ``acls add`` writes it."""
    context = RequestContextRecord("User:admin", "10.0.4.17", "aclog", 0, "CreateAcls")
    with SegmentedLog(directory, fsync=False) as log:
        log.append(encode_many([context, *acl_records(acls, seed=5)]), 1, timestamp_ms=1)


LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)
_, status, usage = os.wait4(pid, 0)
cpu = usage.ru_utime + usage.ru_stime
print(time.perf_counter() - start, usage.ru_maxrss, cpu, os.waitstatus_to_exitcode(status))
"""
"""Runs a command and prints its seconds, peak RSS (KB), CPU seconds and exit code. A child's
peak counts the memory of the process it was started from, so this small interpreter, not the
benchmark process, starts it."""


def measure(
    command: list[str], env: dict[str, str], timeout: float = 120
) -> tuple[float, float, float]:
    """Seconds until ``command`` exits, its peak resident memory in MB and its CPU seconds
    (user + system: what the command itself cost, which the load of a shared machine moves
    far less than the wall time; one run)."""
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )
    lines = done.stdout.splitlines()
    seconds, peak_kb, cpu, code = lines[-1].split()
    if code != "0":
        raise RuntimeError(f"{' '.join(command)} exited {code}: {done.stderr[-500:]}")
    return float(seconds), int(peak_kb) / 1024, float(cpu)


def commands(data_dir: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Each row's name, command line and environment."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    aclog = [sys.executable, "-c", AS_ACLOG]
    completing = {
        "_ACLOG_COMPLETE": "complete_bash",
        "COMP_WORDS": "aclog acls add --operation ",
        "COMP_CWORD": "4",
    }
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "aclog --help": ([*aclog, "--help"], env),
        "aclog --version": ([*aclog, "--version"], env),
        "aclog acls --help": ([*aclog, "acls", "--help"], env),
        "aclog acls add --help": ([*aclog, "acls", "add", "--help"], env),
        "aclog acls list (10 ACLs)": ([*aclog, "acls", "list", "--data-dir", str(data_dir)], env),
        "aclog acls add --operation <TAB>": (aclog, {**env, **completing}),
    }


def run(report: Report, quick: bool) -> None:
    del quick  # start-up does not scale with the data; the smoke test (--tiny) runs each once
    runs_of_each = SCALE.pick(RUNS, RUNS, 1)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        make_small_log(data_dir)
        for name, (command, env) in commands(data_dir).items():
            measure(command, env)  # warm-up: the page cache, .pyc files
            runs = [measure(command, env) for _ in range(runs_of_each)]
            wall = statistics.median(seconds for seconds, _, _ in runs)
            peak = max(mb for _, mb, _ in runs)
            cpu = statistics.median(cpu for _, _, cpu in runs)
            note = f"median of {runs_of_each}; target <= {TARGET_SECONDS} s"
            report.add(Row("cli", name, "start-up", 1, "wall median", wall, "s", note))
            note = f"largest of {runs_of_each}; target <= {TARGET_MB} MB"
            report.add(Row("cli", name, "start-up", 1, "peak RSS", peak, "MB", note))
            note = f"median of {runs_of_each}; user + system"
            report.add(Row("cli", name, "start-up", 1, "cpu median", cpu, "s", note))
