"""The replay rows' small-batch twins: the same records written as admin clients write them,
a request at a time, beside the same records in bulk.

A log of ``records`` records (:func:`benchmarks.admin_stream.stream`) is written
with the real writer four times: in batches of 1, 4 and 100 records each led by the request
context that authored them (as a controller commits one ``kafka-acls`` call), and in batches of
:data:`BULK` records (what the other replay rows use). No snapshot: a server killed before
its first one replays the whole log. Two rows per log, each log timed in turn with the others,
best of :data:`ROUNDS`, collector paused as replay runs:

- ``replay``: :func:`~aclog.replay.rebuild.replay_tail` from the empty image (read, decode,
  apply), in records per second, with its ratio to the bulk log's rate (target >= 0.5x for
  1-record batches, issue 36);
- ``loader``: a broker's :meth:`~aclog.broker.MetadataLoader.catch_up` until its authorizer
  is ready, in seconds, with its ratio to the bulk log's (target <= 1.5x).

A ``mismatches`` row counts the small-batch logs whose replayed state (ACLs in image order,
SCRAM users) differs from the bulk log's; :mod:`benchmarks.bench_tail_after_snapshot` adds
the rows of a tail of small batches after a snapshot, :mod:`benchmarks.bench_serve_start` the
``aclog serve`` start rows. ``python -m benchmarks.bench_small_batches
[--records N]`` runs the suite alone and prints the rows.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from itertools import repeat
from pathlib import Path

from aclog.authorizer import Authorizer
from aclog.broker import AuthorizerPublisher, MetadataLoader
from aclog.image import MetadataImage
from aclog.records.collector import gc_paused
from aclog.replay.rebuild import replay_tail
from benchmarks.admin_stream import stream, write
from benchmarks.bench_serve_start import rows as serve_rows
from benchmarks.bench_tail_after_snapshot import rows as tail_rows
from benchmarks.harness import SCALE, best_in_turn
from benchmarks.report import Report, Row

SUITE = "smallbatch"
SIZES = (1, 4, 100)
BULK = 10_000
ROUNDS = 3


def _replay(directory: Path) -> Callable[[], None]:
    def replay() -> None:
        with gc_paused():
            replay_tail(directory, MetadataImage.EMPTY, 0)

    return replay


def _state(directory: Path) -> tuple[object, ...]:
    """What replaying the log gives: the ACLs in image order and the SCRAM users."""
    image = replay_tail(directory, MetadataImage.EMPTY, 0)[0]
    return list(image.acls.acls.items()), image.scram.to_dict()


def _load(directory: Path) -> Callable[[], None]:
    def load() -> None:
        authorizer = Authorizer()
        with gc_paused():
            MetadataLoader(directory, [AuthorizerPublisher(authorizer)]).catch_up()
        assert authorizer.is_ready

    return load


def run(report: Report, quick: bool) -> None:
    records = SCALE.pick(100_000, 12_500, 2_000) if quick else 100_000
    report.rows.extend(rows(records))
    report.rows.extend(
        tail_rows(SUITE, *SCALE.pick((100_000, 5_000), (25_000, 1_000), (2_000, 100)))
    )
    report.rows.extend(serve_rows(SUITE, SCALE.pick(15_000, 15_000, 500)))


def rows(records: int) -> list[Row]:
    """The twins' rows for a log of ``records`` records (see the module)."""
    data = stream(records)
    sizes = (BULK, *SIZES)
    with tempfile.TemporaryDirectory() as tmp:
        logs = [Path(tmp) / f"b{size}" for size in sizes]
        for log, size in zip(logs, sizes, strict=True):
            write(log, data, repeat(size))
        states = [_state(log) for log in logs]
        replays = best_in_turn([_replay(log) for log in logs], ROUNDS, collect=True)
        loads = best_in_turn([_load(log) for log in logs], ROUNDS, collect=True)
    differ = sum(state != states[0] for state in states[1:])
    note = "logs of small batches whose state differs from the bulk log's (ACLs, SCRAM users)"
    shape = f"{records} records"
    out = [Row(SUITE, "small vs bulk state", shape, records, "mismatches", differ, "logs", note)]
    for size, replay, load in zip(sizes, replays, loads, strict=True):
        shape = f"{records} records, batches of {size}" + (" (bulk)" if size == BULK else "")
        ratio = f"; {replays[0] / replay:.2f}x the bulk rate" if size != BULK else ""
        note = f"best of {ROUNDS}, in turn with the other batch sizes{ratio}"
        rate = records / replay
        out.append(
            Row(SUITE, "aclog replay", shape, records, "throughput", rate, "records/s", note)
        )
        ratio = f"; {load / loads[0]:.2f}x the bulk log's time" if size != BULK else ""
        note = f"no snapshot; best of {ROUNDS}, in turn{ratio}"
        out.append(Row(SUITE, "aclog loader", shape, records, "seconds", load, "s", note))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=12_500)
    for row in rows(parser.parse_args().records):
        print(f"{row.impl:>13} {row.workload:>40} {row.value:>12.3f} {row.unit:<10} {row.note}")


if __name__ == "__main__":
    main()
