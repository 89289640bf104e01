"""Group commit: concurrent requests share one write and one fsync, yet each keeps its own batch
(led by its RequestContextRecord) and answers exactly as the same requests run one after the
other in commit order; a failed group append fails every request in it and moves nothing."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from aclog.acl import Errors
from aclog.acl.filters import AclFilter
from aclog.controller import AclControlManager, ScramDeletion, upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator, replay_log
from aclog.controller.group import GroupPlan, Ticket
from aclog.controller.group_commit import Committer
from aclog.log import DeposedError, FencedEpochError
from aclog.log import files as files_module
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.replay.stream import read_decoded

Request = Callable[[Controller], object]
THREADS, PER_THREAD = 8, 50
MECHANISMS = [ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512]


def _binding(topic: str, principal: str = "User:alice") -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        topic,
        PatternType.LITERAL,
        principal,
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


def _controller(directory: Path) -> Controller:
    ids = count(1)
    return Controller.open(
        directory,
        authorizer=LocalOperator(),
        clock=lambda: 1_000.0,
        acl_manager=AclControlManager(lambda: uuid.UUID(int=next(ids))),
    )


def _random_request(rng: random.Random, name: str) -> Request:
    """A CreateAcls, DeleteAcls or AlterScram over a small key space (duplicates and conflicts
    are frequent), sent with a caller whose client id names the request."""
    caller = Caller("User:admin", "10.0.0.1", name, "test")
    topics = [f"t{i}" for i in range(6)]
    kind = rng.random()
    if kind < 0.45:
        acls = [
            _binding(rng.choice(topics), rng.choice(["User:a", "User:b"]))
            for _ in range(rng.randint(1, 3))
        ]
        return lambda c: c.create_acls(acls, caller)
    if kind < 0.7:
        filters = [AclFilter(ResourceType.TOPIC, rng.choice(topics), PatternType.LITERAL)]
        return lambda c: c.delete_acls(filters, caller)
    user, mechanism = f"u{rng.randrange(3)}", rng.choice(MECHANISMS)
    if rng.random() < 0.6:
        iterations = rng.choice([4096, 8192, 1])  # 1 is below the minimum: a validation error
        upsert = upsertion_for_password(user, mechanism, "pw", iterations)
        return lambda c: c.alter_scram([upsert], [], caller)
    return lambda c: c.alter_scram([], [ScramDeletion(user, mechanism)], caller)


@pytest.fixture
def slow_fsync(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count fsyncs of the log and make each take a while, so requests queue up behind it."""
    calls: list[int] = []
    real = files_module.os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        time.sleep(0.002)
        real(fd)

    monkeypatch.setattr(files_module.os, "fsync", fsync)
    return calls


def test_concurrent_requests_equal_a_serial_run_in_commit_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slow_fsync: list[int]
) -> None:
    rng = random.Random(20261121)
    requests = {
        f"r{t}-{i}": _random_request(rng, f"r{t}-{i}")
        for t in range(THREADS)
        for i in range(PER_THREAD)
    }
    decided: list[str] = []
    real_plan = Committer._plan

    def recording(self: Committer, plan: GroupPlan, ticket: Ticket[Any]) -> None:
        decided.append(ticket.caller.client_id)  # under the commit lock: the commit order
        real_plan(self, plan, ticket)

    monkeypatch.setattr(Committer, "_plan", recording)
    controller = _controller(tmp_path / "concurrent")
    results: dict[str, object] = {}
    start = threading.Barrier(THREADS)

    def client(t: int) -> None:
        start.wait()
        for i in range(PER_THREAD):
            name = f"r{t}-{i}"
            results[name] = requests[name](controller)

    threads = [threading.Thread(target=client, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    controller.close()
    monkeypatch.undo()
    assert sorted(decided) == sorted(requests)

    serial = _controller(tmp_path / "serial")
    serial_results = {name: requests[name](serial) for name in decided}
    serial.close()
    assert results == serial_results

    concurrent_batches = list(read_decoded(tmp_path / "concurrent"))
    authors = [b.author.client_id for b in concurrent_batches[1:] if b.author is not None]
    assert len(authors) == len(concurrent_batches) - 1  # every request batch names its request
    assert authors == [name for name in decided if name in set(authors)]
    assert [_records(b) for b in concurrent_batches] == [
        _records(b) for b in read_decoded(tmp_path / "serial")
    ]
    image = replay_log(tmp_path / "concurrent")
    assert image == replay_log(tmp_path / "serial") == controller.image
    assert len(slow_fsync) < len(authors), "no request was committed in a group"


def _records(batch: Any) -> list[object]:
    return [(e.offset, e.record) for e in batch.entries]


def _grouped(controller: Controller, requests: list[Request]) -> list[object]:
    """Run ``requests`` from one thread each, all queued (in this order) while the commit lock is
    held, so the first to get the lock commits them all as one group."""
    results: list[object] = [None] * len(requests)

    def run(i: int) -> None:
        results[i] = requests[i](controller)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(requests))]
    with controller._lock:
        for i, thread in enumerate(threads):
            thread.start()
            while len(controller._queue._queue) <= i:
                time.sleep(0.001)
    for thread in threads:
        thread.join()
    return results


@pytest.fixture
def controller(tmp_path: Path) -> Iterator[Controller]:
    with _controller(tmp_path) as controller:
        controller.create_acls([_binding("kept")], ADMIN)
        yield controller


ADMIN = Caller("User:admin", "10.0.0.1", "admin", "test")


def test_a_group_is_one_fsync_and_a_later_duplicate_sees_the_earlier_request(
    controller: Controller, slow_fsync: list[int]
) -> None:
    upsert = upsertion_for_password("bob", MECHANISMS[0], "pw", 4096)
    first, duplicate, scram, nothing = _grouped(
        controller,
        [
            lambda c: c.create_acls([_binding("a")], Caller(client_id="first")),
            lambda c: c.create_acls([_binding("a")], Caller(client_id="duplicate")),
            lambda c: c.alter_scram([upsert], [], Caller(client_id="scram")),
            lambda c: c.delete_acls([AclFilter(ResourceType.GROUP)], Caller(client_id="none")),
        ],
    )
    assert first == duplicate and first[0].acl_id is not None  # type: ignore[index]
    assert [r.error.code for r in scram] == [0] and nothing[0].acls == ()  # type: ignore[attr-defined, index]
    assert len(slow_fsync) == 1
    batches = list(read_decoded(controller.log.directory))[2:]
    assert [b.author.client_id for b in batches] == ["first", "scram"]  # type: ignore[union-attr]
    assert controller.image == replay_log(controller.log.directory)


@pytest.mark.parametrize(
    ("error", "code", "fenced"),
    [
        (FencedEpochError(1, 2), Errors.NOT_CONTROLLER, True),
        (OSError(28, "No space left on device"), Errors.KAFKA_STORAGE_ERROR, False),
    ],
)
def test_a_failed_group_append_fails_every_request_in_it_and_moves_nothing(
    controller: Controller,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    code: Errors,
    fenced: bool,
) -> None:
    before, end = controller.image, controller.log.end_offset

    def broken(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(controller.log, "append_batches", broken)
    upsert = upsertion_for_password("bob", MECHANISMS[0], "pw", 4096)
    unrelated, first, duplicate, scram = _grouped(
        controller,
        [
            lambda c: c.create_acls([_binding("kept")], ADMIN),  # decided on the committed image
            lambda c: c.create_acls([_binding("a"), _binding("b")], ADMIN),
            lambda c: c.create_acls([_binding("a")], ADMIN),  # depends on the failed request
            lambda c: c.alter_scram([upsert], [], ADMIN),
        ],
    )
    assert unrelated[0].error.code == 0  # type: ignore[index]
    assert [r.error.error for r in first] == [code] * 2  # type: ignore[attr-defined]
    assert [r.error.error for r in duplicate] == [code]  # type: ignore[attr-defined]
    assert [(r.user, r.error.error) for r in scram] == [("bob", code)]  # type: ignore[attr-defined]
    assert controller.image is before and controller.log.end_offset == end
    assert controller.fenced is fenced
    monkeypatch.undo()
    # The injected failure was not real: the next request commits (the quorum node, not the
    # controller, stops serving once fenced).
    assert controller.create_acls([_binding("a")], ADMIN)[0].error.code == 0
    assert controller.image == replay_log(controller.log.directory)


def test_a_group_a_newer_leader_fenced_midway_answers_only_what_is_committed(
    controller: Controller, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README, "Epoch fencing": the batches ending below the newer epoch's fence are committed
    and their requests answered (a request decided on their state with them); the rest are
    not in the log and get NOT_CONTROLLER, and the controller steps down."""

    def deposed(*args: object, **kwargs: object) -> None:
        raise DeposedError(1, 2, 1, "offsets past the fence are not in the log")

    monkeypatch.setattr(controller.log, "append_batches", deposed)
    upsert = upsertion_for_password("bob", MECHANISMS[0], "pw", 4096)
    first, duplicate, scram = _grouped(
        controller,
        [
            lambda c: c.create_acls([_binding("a")], ADMIN),
            lambda c: c.create_acls([_binding("a")], ADMIN),  # saw only the committed batch
            lambda c: c.alter_scram([upsert], [], ADMIN),
        ],
    )
    assert [r.error.code for r in first] == [0]  # type: ignore[attr-defined]
    assert [r.error.code for r in duplicate] == [0]  # type: ignore[attr-defined]
    assert [(r.user, r.error.error) for r in scram] == [("bob", Errors.NOT_CONTROLLER)]  # type: ignore[attr-defined]
    assert controller.fenced


def test_queued_requests_commit_as_one_group_on_the_commit_thread(
    controller: Controller, slow_fsync: list[int]
) -> None:
    """What the listener's event loop does: queue writes without blocking and wait on futures.
    Requests queued while the commit lock is held share one fsync and answer as the blocking
    calls would, in queue order."""
    upsert = upsertion_for_password("bob", MECHANISMS[0], "pw", 4096)
    with controller._lock:
        first = controller.create_acls_later([_binding("a")], Caller(client_id="first"))
        duplicate = controller.create_acls_later([_binding("a")], Caller(client_id="dup"))
        scram = controller.alter_scram_later([upsert], [], Caller(client_id="scram"))
        removed = controller.delete_acls_later(
            [AclFilter(ResourceType.TOPIC, "a")], Caller(client_id="delete")
        )
        assert not any(f.done() for f in (first, duplicate, scram, removed))
    created = first.result(10)
    assert duplicate.result(10) == created and created[0].acl_id is not None
    assert [r.error.code for r in scram.result(10)] == [0]
    assert [acl.id for acl in removed.result(10)[0].acls] == [created[0].acl_id]
    assert len(slow_fsync) == 1
    batches = list(read_decoded(controller.log.directory))[2:]
    assert [b.author.client_id for b in batches] == ["first", "scram", "delete"]  # type: ignore[union-attr]
    assert controller.image == replay_log(controller.log.directory)


def test_a_queued_request_that_fails_fails_only_its_own_future(
    controller: Controller, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> object:
        raise RuntimeError("a bug in deciding")

    with controller._lock:
        monkeypatch.setattr(controller.acl_manager, "create_acls", broken)
        failing = controller.create_acls_later([_binding("x")], ADMIN)
        upsert = upsertion_for_password("bob", MECHANISMS[0], "pw", 4096)
        fine = controller.alter_scram_later([upsert], [], ADMIN)
    with pytest.raises(RuntimeError, match="a bug in deciding"):
        failing.result(10)
    assert [r.error.code for r in fine.result(10)] == [0]


def test_close_commits_what_is_queued_and_refuses_more(tmp_path: Path) -> None:
    controller = _controller(tmp_path)
    with controller._lock:  # queued, not yet committed, when close begins
        queued = [controller.create_acls_later([_binding(f"t{i}")], ADMIN) for i in range(5)]
        closing = threading.Thread(target=controller.close)
        closing.start()
    closing.join(10)
    assert all(f.result(0)[0].error.code == 0 for f in queued)
    with pytest.raises(RuntimeError, match="closed"):
        controller.create_acls_later([_binding("late")], ADMIN)
    assert len(replay_log(tmp_path).acls) == 5
