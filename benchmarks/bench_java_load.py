"""Loading the metadata log into a ready authorizer, and the memory it then holds: aclog beside
Kafka's own classes (``benchmarks/java/LoadBench``), on the same KRaft files.

- Cold start: a KRaft ``.checkpoint`` of N ACLs (plus one SCRAM credential per 100 ACLs) and a
  tail of adds, removals and SCRAM changes in ``__cluster_metadata-0`` segments
  (:func:`benchmarks.bench_kraft.state`, written by :mod:`aclog.kraft.writer`, 10,000 records a
  batch). Java decodes with ``MetadataRecordSerde``, replays into one ``MetadataDelta``,
  applies it and ``StandardAuthorizer.loadSnapshot``s the image's ACLs, in a fresh JVM. aclog
  runs ``rebuild_image(kraft=True)`` and ``Authorizer.load`` on the same files, and its own
  loader (``MetadataLoader.catch_up``) on the same records in its own format (the coldstart
  suite's row). Tail replay: the log after the checkpoint read, decoded and applied to the
  checkpoint's image as one delta, best of 3 (image only, both sides; aclog reads its own
  segments of the same records, Java the KRaft ones).
- Memory: W1 ACL sets of 1.2k, 121k and 1.2M ACLs and W2's 1M (full run), each as a KRaft
  checkpoint loaded into image + authorizer. Java: the used heap after full collections with
  image and authorizer alive, minus the same once they are dropped (live heap). aclog, twice:
  ``tracemalloc`` of the same load (the objects alone), and the resident-set growth of a fresh
  process loading it as a broker's loader starts, frozen and its freed heap pages returned
  (what the machine gives it: allocator overhead included).

Ratios are oriented so that above 1 means aclog is better (:func:`benchmarks.java_harness.pair`).
Counts of ACLs and SCRAM credentials loaded are cross-checked in ``mismatches`` rows.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aclog.authorizer import Authorizer
from aclog.broker import AuthorizerPublisher, MetadataLoader
from aclog.image import MetadataImage
from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import write_checkpoint
from aclog.records import (
    Record,
    RemoveUserScramCredentialRecord,
    ScramMechanism,
    UserScramCredentialRecord,
)
from aclog.records.collector import call_paused, gc_paused
from aclog.replay.rebuild import rebuild_image, replay_tail
from benchmarks import bench_kraft, workloads
from benchmarks.harness import Scale, best_in_turn, release, traced_bytes
from benchmarks.java_harness import BENCH, JAVA_IMPL, REPO, JavaHarness, JavaRunError, pair
from benchmarks.report import Report, Row

ROUNDS = 3
RSS_FROM = 100_000
"""RSS rows from this many ACLs: below, a load fits in memory the interpreter already holds."""
SHA256 = ScramMechanism.SCRAM_SHA_256


def run(report: Report, harness: JavaHarness, scale: Scale) -> None:
    snapshot_acls, tail = scale.pick(
        full=(1_000_000, 250_000), quick=(50_000, 12_500), tiny=(5_000, 1_250)
    )
    try:
        coldstart(report, harness, snapshot_acls, tail)
    except JavaRunError as error:
        report.add(
            Row(BENCH, JAVA_IMPL, "cold start", snapshot_acls, "failed", 0, "rows", str(error))
        )
    release()
    sizes = scale.pick(full=[100, 10_000, 100_000, 0], quick=[100, 1_000], tiny=[100])
    for resources in sizes:
        try:
            memory(report, harness, resources)
        except JavaRunError as error:
            report.add(Row(BENCH, JAVA_IMPL, "memory", resources, "failed", 0, "rows", str(error)))
        release()


def _credential(i: int, iterations: int = 4096) -> UserScramCredentialRecord:
    salt = i.to_bytes(16, "big")
    return UserScramCredentialRecord(f"user-{i}", SHA256, salt, b"k" * 32, b"s" * 32, iterations)


def state(snapshot_acls: int, tail: int) -> tuple[list[Record], list[Record]]:
    """The suite's snapshot and tail with SCRAM records: one credential per 100 snapshot ACLs,
    and after every 100th tail record a SCRAM change (alternately a new iteration count for,
    and the removal of, a snapshot user)."""
    base, rest = bench_kraft.state(snapshot_acls, tail)
    users = max(1, snapshot_acls // 100)
    base = base + [_credential(i) for i in range(users)]
    mixed: list[Record] = []
    for i, record in enumerate(rest):
        mixed.append(record)
        if i % 100 == 99:
            j = (i // 100) % users
            change = (
                _credential(j, 8192)
                if j % 2
                else RemoveUserScramCredentialRecord(f"user-{j}", SHA256)
            )
            mixed.append(change)
    return base, mixed


def credentials(image: MetadataImage) -> int:
    return sum(len(mechanisms) for mechanisms in image.scram.users.values())


def _ready_kraft(directory: Path) -> tuple[tuple[float, float], MetadataImage]:
    """(wall, CPU) seconds from nothing to an aclog authorizer loaded from the KRaft files, as
    a program would run it (the collector paused), and the image."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    with gc_paused(freeze=True):
        image = rebuild_image(directory, kraft=True).image
        Authorizer().load(image.acls)
    return (time.perf_counter() - start, time.process_time() - cpu), image


def _ready_own(directory: Path) -> tuple[float, float]:
    """aclog's loader on its own format (the coldstart suite's measurement): (wall, CPU) s."""
    authorizer = Authorizer()
    loader = MetadataLoader(directory, [AuthorizerPublisher(authorizer)])
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    with gc_paused(freeze=True):
        loader.catch_up()
    assert authorizer.is_ready
    return time.perf_counter() - start, time.process_time() - cpu


def ready_rows(
    report: Report, workload: str, n: int, ours: tuple[float, float], java: dict, note: str
) -> None:
    """Wall and CPU seconds to a ready authorizer, each side (the CPU rows hold on a machine
    that other work shares; Java's CPU counts all its threads, the JIT's and GC's included)."""
    pair(report, workload, n, "seconds", (ours[0], float(java["ready_s"])), "s", note)
    java_cpu = float(java["ready_cpu_s"])
    pair(report, workload, n, "cpu seconds", (ours[1], java_cpu), "s", "process CPU time")


def coldstart(report: Report, harness: JavaHarness, snapshot_acls: int, tail: int) -> None:
    base, rest = state(snapshot_acls, tail)
    n = len(base) + len(rest)
    with tempfile.TemporaryDirectory() as tmp:
        own, kraft = Path(tmp) / "aclog", Path(tmp) / "__cluster_metadata-0"
        own.mkdir()
        bench_kraft.write_aclog(own, base, rest)
        bench_kraft.write_kraft(kraft, base, rest)
        snapshot_end = len(base)  # the first offset of the tail
        del base, rest
        java = harness.run("LoadBench", str(kraft), str(ROUNDS))
        seconds, image = _ready_kraft(kraft)
        release()
        own_seconds = _ready_own(own)
        release()
        label = f"snapshot {snapshot_acls:,} + tail {tail:,}"
        note = "KRaft files -> ready authorizer; Java in a fresh JVM (its start excluded)"
        ready_rows(report, f"{label} ready", n, seconds, java, note)
        note = "aclog: MetadataLoader.catch_up on its own format, same records; Java as above"
        ready_rows(report, f"{label} ready (aclog format)", n, own_seconds, java, note)
        _counts(report, f"{label} ready", n, image, java)
        base_image = call_paused(rebuild_image, own, at_offset=snapshot_end - 1).image

        def replay() -> None:
            call_paused(replay_tail, own, base_image, snapshot_end)

        (replay_seconds,) = best_in_turn([replay], ROUNDS, collect=True)
        records = int(java["tail_records"])
        rates = (records / replay_seconds, records / float(java["tail_s"]))
        note = f"tail read, decoded, applied to the snapshot's image as one delta; best of {ROUNDS}"
        pair(report, f"{label} tail replay", records, "throughput", rates, "records/s", note)


def _counts(report: Report, workload: str, n: int, image: MetadataImage, java: dict) -> None:
    """ACLs and SCRAM credentials each side loaded: a row counting the difference."""
    ours = (len(image.acls), credentials(image))
    theirs = (int(java["acls"]), int(java["scram_users"]))
    differ = abs(ours[0] - theirs[0]) + abs(ours[1] - theirs[1])
    note = f"aclog {ours[0]:,} ACLs + {ours[1]:,} credentials, Java {theirs[0]:,} + {theirs[1]:,}"
    report.add(
        Row(BENCH, f"aclog vs {JAVA_IMPL}", workload, n, "mismatches", differ, "entries", note)
    )


def memory(report: Report, harness: JavaHarness, resources: int) -> None:
    """Image + authorizer loaded from a checkpoint of W1 at ``resources`` (0: W2 at 1M ACLs)."""
    if resources:
        acls = workloads.kafka_workload(resources, deny_percentage=20.0, hit_count=1).acls
        label = f"W1 R={resources:,} d=20"
    else:
        acls = workloads.tenant_workload(1_000_000, request_count=1).acls
        label = "W2 tenants 1,000,000"
    n = len(acls)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "__cluster_metadata-0"
        directory.mkdir()
        write_checkpoint(directory, n, 1, [encode_record(a) for a in acls], 0, batch_size=10_000)
        del acls
        java = harness.run("LoadBench", str(directory))
        seconds, image = _ready_kraft(directory)
        _counts(report, f"{label} checkpoint", n, image, java)
        del image
        release()
        traced = traced_bytes(lambda: _loaded(directory))
        grown = rss_growth(directory) if n >= RSS_FROM else None
    note = "KRaft checkpoint -> ready authorizer"
    ready_rows(report, f"{label} checkpoint ready", n, seconds, java, note)
    heap = int(java["live_heap_bytes"]) / 2**20
    note = "image + authorizer: aclog tracemalloc, Java live heap after full GC"
    pair(report, f"{label} image + authorizer", n, "memory", (traced / 2**20, heap), "MB", note)
    if grown is not None:
        note = "aclog: RSS growth of a fresh process loading it (allocator overhead included)"
        values = (grown / 2**20, heap)
        pair(report, f"{label} image + authorizer", n, "memory (RSS)", values, "MB", note)


def rss_growth(directory: Path) -> int | None:
    """Bytes a fresh Python process's resident set grows by while it loads ``directory`` into
    image + authorizer (after its imports; measured with the two alive), or None where
    ``/proc`` is missing."""
    if not Path("/proc/self/statm").exists():
        return None
    probe = "import sys; from benchmarks.bench_java_load import rss_probe; rss_probe(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", probe, str(directory)], capture_output=True, text=True,
        timeout=1800, check=True, cwd=REPO,
    )  # fmt: skip
    return int(done.stdout.split()[0])


def rss_probe(directory: str) -> None:
    """The child of :func:`rss_growth`: prints the growth in bytes, then the ACLs loaded."""
    page = os.sysconf("SC_PAGE_SIZE")

    def resident() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * page

    gc.collect()
    before = resident()
    with gc_paused(freeze=True):  # as a broker's loader starts (a process edge)
        loaded = _loaded(Path(directory))
    gc.collect()
    print(resident() - before, len(loaded[0].acls))


def _loaded(directory: Path) -> tuple[MetadataImage, Authorizer]:
    image = call_paused(rebuild_image, directory, kraft=True).image
    authorizer = Authorizer()
    call_paused(authorizer.load, image.acls)
    return image, authorizer
