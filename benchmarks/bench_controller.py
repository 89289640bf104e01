"""Controller benchmarks: committed ACL creations per second with fsync, beside the disk's raw
fsync rate measured in the same run (the floor for one-request-at-a-time commits), CreateAcls
of 1 from several threads at once (what group commit shares one fsync among), and CreateAcls of
1 on a controller already holding many ACLs (a commit must cost its change, not the image)."""

from __future__ import annotations

import os
import tempfile
import threading
import time

from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.records import AclBinding
from benchmarks.bench_log import acl_records
from benchmarks.report import Report, Row

PRELOAD_BATCH = 1000


def run(report: Report, quick: bool) -> None:
    _raw_fsync(report, 200 if quick else 1000)
    total = 5_000 if quick else 50_000
    bindings = list(dict.fromkeys(r.binding for r in acl_records(total * 2)))[:total]
    for request_size in (1, 100, 1000):
        count = min(total, 500 if request_size == 1 else total)
        _commit(report, bindings[:count], request_size)
    _concurrent(report, bindings[: 800 if quick else 4000], threads=8)
    stored = 20_000 if quick else 200_000
    many = list(dict.fromkeys(r.binding for r in acl_records(stored * 2 + 1000, seed=5)))
    _commit(report, many[stored : stored + 500], 1, preload=many[:stored])


def _raw_fsync(report: Report, count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        fd = os.open(os.path.join(tmp, "probe"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        start = time.perf_counter()
        for _ in range(count):
            os.write(fd, b"x" * 128)
            os.fsync(fd)
        seconds = time.perf_counter() - start
        os.close(fd)
    report.add(
        Row(
            "commit",
            "floor: write+fsync",
            "128-byte appends",
            count,
            "throughput",
            count / seconds,
            "fsyncs/s",
        )
    )


def _commit(
    report: Report,
    bindings: list[AclBinding],
    request_size: int,
    preload: list[AclBinding] | None = None,
) -> None:
    caller = Caller("User:bench", "127.0.0.1", "bench", "CreateAcls")
    with tempfile.TemporaryDirectory() as tmp:
        controller = Controller.open(tmp, authorizer=LocalOperator())
        stored = preload or []
        for i in range(0, len(stored), PRELOAD_BATCH):  # untimed
            controller.create_acls(stored[i : i + PRELOAD_BATCH], caller)
        start = time.perf_counter()
        for i in range(0, len(bindings), request_size):
            results = controller.create_acls(bindings[i : i + request_size], caller)
            assert all(r.error.is_success for r in results)
        seconds = time.perf_counter() - start
        controller.close()
    report.add(
        Row(
            "commit",
            "aclog controller",
            f"CreateAcls of {request_size}"
            + (f", {len(preload):,} ACLs stored" if preload else ""),
            len(bindings),
            "throughput",
            len(bindings) / seconds,
            "ACLs/s",
            f"{len(bindings) // request_size / seconds:,.0f} requests/s",
        )
    )


def _concurrent(report: Report, bindings: list[AclBinding], threads: int) -> None:
    """CreateAcls of 1 from ``threads`` threads at once, each creating its share in turn."""
    caller = Caller("User:bench", "127.0.0.1", "bench", "CreateAcls")
    shares = [bindings[i::threads] for i in range(threads)]

    failures: list[AclBinding] = []

    def client(share: list[AclBinding]) -> None:
        for binding in share:
            if not controller.create_acls([binding], caller)[0].error.is_success:
                failures.append(binding)

    with tempfile.TemporaryDirectory() as tmp:
        controller = Controller.open(tmp, authorizer=LocalOperator())
        workers = [threading.Thread(target=client, args=(share,)) for share in shares]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        seconds = time.perf_counter() - start
        controller.close()
    assert not failures, f"{len(failures)} creations failed"
    report.add(
        Row(
            "commit",
            "aclog controller",
            f"CreateAcls of 1, {threads} threads",
            len(bindings),
            "throughput",
            len(bindings) / seconds,
            "ACLs/s",
            f"{len(bindings) / seconds:,.0f} requests/s",
        )
    )
