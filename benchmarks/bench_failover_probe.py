"""The failover probe's figures (:mod:`benchmarks.failover_probe`): three ``aclog serve
--controller`` nodes on one data directory under one client's write load, with the default
heartbeat (500 ms) and election timeout (2 s).

Rows: seconds from SIGKILL of the leader, from SIGSTOP of the leader (frozen 0.5-6 s, then
SIGCONT), from SIGSTOP of the leader inside an append (before its bytes reach the segment, where
it once held the append lock; frozen 0.5-6 s), and from a stall of the leader's disk (every
fsync it makes waits 0.5-6 s, :mod:`benchmarks.stall`), to the first write another node
acknowledged; the leader's write p99 while a standby is SIGSTOPped and just before; and the
leader's write p99 on an empty log and on one whose active segment holds 60 MB (just under the
64 MB roll), where each standby refresh used to rescan the segment under the append lock. Each
round checks that no acknowledged write was lost and the log reads whole in epoch order; a
violation fails the benchmark."""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from aclog.log import SegmentedLog, list_segments
from aclog.records import LeaderChangeRecord, NoOpRecord, RequestContextRecord
from aclog.records.codec import encode
from benchmarks.failover_probe import Cluster, Load, RoundResult, check_log, p99, run_round
from benchmarks.report import Report, Row
from benchmarks.servers import settle

SEED = 35
PROBE = "aclog serve --controller x3"
LOAD_SECONDS = 6.0


def _rounds(kind: str, count: int) -> list[RoundResult]:
    with tempfile.TemporaryDirectory(prefix="aclog-bench-probe-") as tmp, Cluster(Path(tmp)) as c:
        load = Load(c).start()
        try:
            results = [run_round(c, load, kind, random.Random(SEED + i)) for i in range(count)]
        finally:
            load.stop()
        problems = check_log(c.data, load.acknowledged())
    if problems:
        raise AssertionError(f"{kind}: {problems}")
    return results


def failover_row(
    kind: str, results: list[RoundResult], impl: str = PROBE, lost: int = 0, more: str = ""
) -> Row:
    """The row of ``kind`` 's rounds: the median failover time, how many within 3 s, the worst,
    ``lost`` acknowledged writes, and what a frozen leader's rounds saw; ``more`` ends the note."""
    times = sorted(r.failover if r.failover is not None else float("inf") for r in results)
    within = sum(t <= 3.0 for t in times)
    note = f"within 3 s: {within} of {len(times)}; worst {times[-1] * 1000:,.0f} ms; {lost} lost"
    if kind == "stall-leader":
        taken = [r for r in results if r.taken_over]
        note += f"; disk stalled 0.5-6 s; another node took over in {len(taken)}"
    if kind in ("sigstop-leader", "freeze-in-append"):
        taken = [r.failover for r in results if r.taken_over and r.failover is not None]
        worst = max(taken, default=0.0) * 1000
        long = [r for r in results if r.frozen > 2.5]  # past the election timeout, with margin
        missed = sum(not r.taken_over for r in long)
        note += (
            f"; frozen 0.5-6 s; another node took over in {len(taken)} (worst {worst:,.0f} ms);"
            f" of {len(long)} frozen > 2.5 s, {missed} not taken over"
        )
    workload = f"{kind} -> another node acks"
    median = times[len(times) // 2] * 1000
    return Row("failover", impl, workload, len(times), "median", median, "ms", note + more)


def _p99_row(workload: str, latencies: list[float], note: str = "") -> Row:
    return Row(
        "failover",
        PROBE,
        workload,
        len(latencies),
        "p99",
        p99(latencies) * 1000,
        "ms",
        note,
    )


def _prefill(data: Path, megabytes: int) -> int:
    """A log whose active segment holds about ``megabytes`` MB of history (each batch a large
    request-context record and a no-op); returns its size in bytes."""
    author = encode(RequestContextRecord("User:fill", "127.0.0.1", "x" * 60_000, 0, "fill"))
    with SegmentedLog(data) as log:
        log.append([encode(LeaderChangeRecord(1, 1))], 1)
        path = list_segments(data)[-1][1]
        while path.stat().st_size < megabytes << 20:
            log.append([author, encode(NoOpRecord())], 1, fsync=False)
    return path.stat().st_size


def _steady_p99(megabytes: int) -> tuple[list[float], int]:
    with tempfile.TemporaryDirectory(prefix="aclog-bench-probe-") as tmp:
        size = _prefill(Path(tmp) / "data", megabytes) if megabytes else 0
        with Cluster(Path(tmp)) as cluster:
            for served in cluster.nodes.values():  # each node has replayed the log (its loader
                settle(served.process.pid, timeout=120)  # too) before the load starts
            load = Load(cluster).start()
            try:
                while cluster.leader() is None or not load.acknowledged():
                    time.sleep(0.1)
                start = time.monotonic()
                time.sleep(LOAD_SECONDS)
            finally:
                load.stop()
            return load.latencies(start, start + LOAD_SECONDS), size


def run(report: Report, quick: bool) -> None:
    count = 2 if quick else 20
    for kind in ("kill-leader", "sigstop-leader", "freeze-in-append", "stall-leader"):
        report.add(failover_row(kind, _rounds(kind, count)))
    standby = _rounds("sigstop-standby", count)
    before = [s for r in standby for s in r.before]
    during = [s for r in standby for s in r.during]
    report.add(_p99_row("leader writes, standbys running", before))
    report.add(_p99_row("leader writes, a standby SIGSTOPped", during, "frozen 0.5-6 s"))
    for megabytes in (0, 60):
        latencies, size = _steady_p99(megabytes)
        label = f"leader writes, active segment {size / (1 << 20):.0f} MB"
        report.add(_p99_row(label, latencies, f"{LOAD_SECONDS:.0f} s of load"))
