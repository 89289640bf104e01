"""Timing, memory and cross-check helpers shared by the authorizer benchmark suites.

Latency: ``perf_counter_ns`` around each call (per-call samples, for p50/p99/p99.9), minus the
median cost of an empty timer pair measured in the same run, taken in 5 rounds: p50 is the lowest
round median (other processes share the 2 cores), p99 and p99.9 come from all samples pooled;
throughput: ``perf_counter_ns``
around batches of :data:`BATCH` calls (the median batch gives ops/s). Memory: ``tracemalloc``
around a build, the records themselves excluded (they exist before the build starts).

GC: large inputs are frozen with ``gc.freeze()`` before a timed build and the build result
afterwards, so collections during timing do not walk millions of long-lived objects; GC stays
enabled while timing, except where aclog's own programs pause it around a library call (the
library never does): the suites pause there too (:func:`aclog.records.collector.call_paused`),
so that they measure what a broker or the CLI gets.
"""

from __future__ import annotations

import gc
import itertools
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.report import Report, Row

BATCH = 1000


@dataclass
class Scale:
    """How big a run is: ``full`` (``make bench``), ``quick`` (CI) or ``tiny`` (the smoke test)."""

    name: str = "full"

    @property
    def quick(self) -> bool:
        return self.name != "full"

    @property
    def tiny(self) -> bool:
        return self.name == "tiny"

    def pick(self, full: Any, quick: Any, tiny: Any) -> Any:
        return {"full": full, "quick": quick, "tiny": tiny}[self.name]


SCALE = Scale()
"""Set by ``benchmarks.__main__`` for the duration of a run."""


def timer_overhead_ns(pairs: int = 20_000) -> int:
    """Median cost of two back-to-back ``perf_counter_ns`` calls."""
    now = time.perf_counter_ns
    samples = []
    for _ in range(pairs):
        start = now()
        samples.append(now() - start)
    samples.sort()
    return samples[len(samples) // 2]


_OVERHEAD: list[int] = []


def overhead() -> int:
    if not _OVERHEAD:
        _OVERHEAD.append(timer_overhead_ns())
    return _OVERHEAD[0]


ROUNDS = 5


def sample_calls(
    fn: Callable[..., Any], requests: Sequence[tuple], max_calls: int, max_seconds: float
) -> tuple[list[int], list[float]]:
    """Per-call latencies in ns (timer overhead subtracted), cycling through ``requests``, in
    :data:`ROUNDS` rounds of up to ``max_calls / ROUNDS`` calls and ``max_seconds / ROUNDS``
    seconds each (at least 2 calls per round). Returns the pooled sorted samples and each
    round's median."""
    now = time.perf_counter_ns
    cost = overhead()
    per_round = max(1, max_calls // ROUNDS)
    pooled: list[int] = []
    medians: list[float] = []
    cycle = itertools.cycle(requests)
    for _ in range(ROUNDS):
        deadline = now() + int(max_seconds / ROUNDS * 1e9)
        samples: list[int] = []
        for request in itertools.islice(cycle, per_round):
            start = now()
            fn(*request)
            end = now()
            samples.append(max(0, end - start - cost))
            if end > deadline and len(samples) >= 2:
                break
        samples.sort()
        medians.append(percentile(samples, 0.5))
        pooled.extend(samples)
    pooled.sort()
    return pooled, medians


def ops_per_second(
    fn: Callable[..., Any], requests: Sequence[tuple], max_seconds: float, max_batches: int = 20
) -> float:
    """Calls per second: the median of batches of :data:`BATCH` calls (fewer calls per batch
    when one batch would not fit in ``max_seconds``)."""
    now = time.perf_counter_ns
    probe_start = now()
    fn(*requests[0])
    one = max(1, now() - probe_start)
    size = max(1, min(BATCH, int(max_seconds * 1e9 / 3 / one)))
    batch = list(itertools.islice(itertools.cycle(requests), size))
    deadline = now() + int(max_seconds * 1e9)
    rates: list[float] = []
    while len(rates) < max_batches:
        start = now()
        for request in batch:
            fn(*request)
        elapsed = max(1, now() - start)
        rates.append(size * 1e9 / elapsed)
        if now() > deadline and len(rates) >= 3:
            break
    rates.sort()
    return rates[len(rates) // 2]


def percentile(sorted_samples: Sequence[int], q: float) -> float:
    if not sorted_samples:
        return float("nan")
    return float(sorted_samples[min(len(sorted_samples) - 1, int(q * len(sorted_samples)))])


def time_once(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """(best seconds over ``repeat`` runs, the last result)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def timed_build(build: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds to run ``build`` (GC enabled), then freeze its result out of GC's way."""
    gc.collect()
    gc.freeze()
    start = time.perf_counter()
    built = build()
    seconds = time.perf_counter() - start
    gc.freeze()
    return seconds, built


def traced_bytes(build: Callable[[], Any]) -> int:
    """Bytes still allocated after ``build`` (its result alive), measured by ``tracemalloc``."""
    gc.collect()
    tracemalloc.start()
    try:
        built = build()
        gc.collect()
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del built
    return current


def release() -> None:
    """Undo :func:`timed_build`'s freezes and collect, between workloads."""
    gc.unfreeze()
    gc.collect()


@dataclass
class Latency:
    """Sorted per-call samples (ns), the medians of the rounds they came in, and ops/s."""

    samples: list[int]
    ops: float | None = None
    round_medians: list[float] | None = None

    @property
    def p50_us(self) -> float:
        """The lowest round median (the least disturbed by other processes), else the median."""
        if self.round_medians:
            return min(self.round_medians) / 1000
        return percentile(self.samples, 0.5) / 1000


def measure(
    fn: Callable[..., Any],
    requests: Sequence[tuple],
    *,
    max_calls: int,
    max_seconds: float,
    throughput: bool = True,
) -> Latency:
    """Per-call samples and, if asked, batch throughput."""
    samples, medians = sample_calls(fn, requests, max_calls, max_seconds)
    ops = ops_per_second(fn, requests, max_seconds / 2) if throughput else None
    return Latency(samples, ops, medians)


def latency_rows(
    report: Report,
    benchmark: str,
    impl: str,
    workload: str,
    size: int,
    latency: Latency,
    note: str = "",
) -> None:
    """p50, p99, p99.9 (only with at least 1,000 samples) and ops/s rows."""
    n = len(latency.samples)
    tag = f"{n:,} calls"
    if latency.round_medians:
        tag += f"; p50 = lowest of {len(latency.round_medians)} round medians"
    tag += f"; {note}" if note else ""
    report.add(Row(benchmark, impl, workload, size, "p50", latency.p50_us, "µs", tag))
    if n >= 100:
        p99 = percentile(latency.samples, 0.99) / 1000
        report.add(Row(benchmark, impl, workload, size, "p99", p99, "µs"))
    if n >= 1000:
        p999 = percentile(latency.samples, 0.999) / 1000
        report.add(Row(benchmark, impl, workload, size, "p99.9", p999, "µs"))
    if latency.ops is not None:
        report.add(Row(benchmark, impl, workload, size, "throughput", latency.ops, "ops/s"))


def count_mismatches(
    answers: Sequence[Any], expected: Sequence[Any], requests: Sequence[tuple]
) -> tuple[int, list[str]]:
    """How many positions differ (a missing answer counts), and the first two differing
    requests (for the note)."""
    length = max(len(answers), len(expected))
    bad = [
        i
        for i in range(length)
        if i >= len(answers) or i >= len(expected) or answers[i] != expected[i]
    ]
    return len(bad), [repr(requests[i]) for i in bad[:2] if i < len(requests)]


def mismatch_row(
    report: Report,
    benchmark: str,
    pair: str,
    workload: str,
    size: int,
    answers: Sequence[Any],
    expected: Sequence[Any],
    requests: Sequence[tuple],
    note: str = "",
) -> int:
    """A ``mismatches`` row comparing two implementations' answers; returns the count."""
    count, examples = count_mismatches(answers, expected, requests)
    text = f"{len(answers):,} answers compared"
    if note:
        text += f"; {note}"
    if examples:
        text += "; e.g. " + " ".join(examples)
    report.add(Row(benchmark, pair, workload, size, "mismatches", count, "answers", text))
    return count


def best_in_turn(
    fns: Sequence[Callable[[], object]], repeat: int, *, collect: bool = False
) -> list[float]:
    """The best seconds of each of ``fns``, run in turn ``repeat`` times (each after a full
    collection when ``collect``): a row and its floor then see the same moments of a shared
    machine, and neither pays for the other's garbage."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            if collect:
                gc.collect()
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best
