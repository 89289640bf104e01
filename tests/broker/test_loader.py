"""The broker's loader: not ready until caught up, whole-batch publishing, tailing latency."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aclog.authorizer import AclFilter, Authorizer, AuthorizerNotReadyError, Decision
from aclog.broker import AuthorizerPublisher, MetadataLoader, ScramCredentialCache
from aclog.broker.loader import ManifestKind
from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.log import LogBatch
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)

CALLER = Caller("User:admin", "10.0.0.1", "test", "test")
READ, TOPIC = AclOperation.READ, ResourceType.TOPIC


def _acl(
    name: str,
    permission: AclPermissionType,
    pattern: PatternType = PatternType.LITERAL,
    principal: str = "User:bob",
) -> AclBinding:
    return AclBinding(TOPIC, name, pattern, principal, "*", READ, permission)


def test_not_ready_until_caught_up_then_follows_the_log(tmp_path: Path) -> None:
    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    controller.create_acls([_acl("orders", AclPermissionType.ALLOW)], CALLER)
    controller.snapshot()
    controller.create_acls([_acl("pay", AclPermissionType.ALLOW)], CALLER)
    authorizer = Authorizer(super_users={"User:root"})
    cache = ScramCredentialCache()
    loader = MetadataLoader(tmp_path, [AuthorizerPublisher(authorizer), cache])
    with pytest.raises(AuthorizerNotReadyError):
        authorizer.authorize("User:bob", "1.2.3.4", READ, TOPIC, "orders")
    assert authorizer.authorize("User:root", "1.2.3.4", READ, TOPIC, "x") is Decision.ALLOWED
    manifest = loader.catch_up()
    assert manifest.kind is ManifestKind.SNAPSHOT
    assert authorizer.authorize("User:bob", "1.2.3.4", READ, TOPIC, "pay") is Decision.ALLOWED
    controller.create_acls([_acl("pay", AclPermissionType.DENY)], CALLER)
    upsert = upsertion_for_password("bob", ScramMechanism.SCRAM_SHA_256, "pw", 4096)
    controller.alter_scram([upsert], [], CALLER)
    delta = loader.poll()
    assert delta is not None and delta.kind is ManifestKind.LOG_DELTA and delta.batches == 2
    assert authorizer.authorize("User:bob", "1.2.3.4", READ, TOPIC, "pay") is Decision.DENIED
    assert cache.credential("bob", ScramMechanism.SCRAM_SHA_256) is not None
    assert loader.poll() is None
    assert loader.image == controller.image
    controller.close()


def test_beside_its_writer_the_loader_starts_from_the_writers_image(tmp_path: Path) -> None:
    """Given the image the controller rebuilt as it opened, catch-up publishes it without
    reading the log again, and a poll reads only the batches after it."""
    first = Controller.open(tmp_path, authorizer=LocalOperator())
    first.create_acls([_acl("orders", AclPermissionType.ALLOW)], CALLER)
    first.close()
    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    authorizer = Authorizer()
    log = controller.log
    loader = MetadataLoader(
        tmp_path,
        [AuthorizerPublisher(authorizer)],
        durable_end=lambda: log.end_offset,
        image=controller.image,
    )
    manifest = loader.catch_up()
    assert manifest.kind is ManifestKind.SNAPSHOT and manifest.batches == 0
    assert loader.image == controller.image
    assert authorizer.authorize("User:bob", "1.2.3.4", READ, TOPIC, "orders") is Decision.ALLOWED
    controller.create_acls([_acl("orders", AclPermissionType.DENY)], CALLER)
    delta = loader.poll()
    assert delta is not None and delta.batches == 1
    assert authorizer.authorize("User:bob", "1.2.3.4", READ, TOPIC, "orders") is Decision.DENIED
    assert loader.image == controller.image
    controller.close()


def test_tailing_makes_a_commit_visible_within_50_ms(tmp_path: Path) -> None:
    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    authorizer = Authorizer()
    loader = MetadataLoader(tmp_path, [AuthorizerPublisher(authorizer)], poll_interval=0.005)
    loader.start()
    try:
        worst = 0.0
        for i in range(20):
            controller.create_acls([_acl(f"t{i}", AclPermissionType.ALLOW)], CALLER)
            committed = time.perf_counter()
            deadline = committed + 2.0
            while authorizer.authorize("User:bob", "1.1.1.1", READ, TOPIC, f"t{i}") is not (
                Decision.ALLOWED
            ):
                assert time.perf_counter() < deadline, "commit never became visible"
                time.sleep(0.001)
            worst = max(worst, time.perf_counter() - committed)
        # A generous bound for a loaded 2-core CI machine; the target (50 ms) is measured by
        # `make bench`, this only proves the loader follows without a restart.
        assert worst < 1.0
    finally:
        loader.stop()
        controller.close()


def test_readers_never_see_an_allow_without_its_deny(tmp_path: Path) -> None:
    """A batch holding a DENY and an ALLOW becomes visible whole."""
    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    controller.create_acls([_acl("base", AclPermissionType.ALLOW)], CALLER)
    authorizer = Authorizer()
    loader = MetadataLoader(tmp_path, [AuthorizerPublisher(authorizer)], poll_interval=0.001)
    loader.start()
    stop = threading.Event()
    violations: list[str] = []

    def reader() -> None:
        while not stop.is_set():
            decision = authorizer.authorize("User:eve", "1.1.1.1", READ, TOPIC, "secret")
            if decision is Decision.ALLOWED:
                violations.append("ALLOW visible without the DENY")

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(30):
            # DENY on a prefix plus ALLOW on the literal, committed as one batch, then both
            # removed as one batch.
            controller.create_acls(
                [
                    _acl("sec", AclPermissionType.DENY, PatternType.PREFIXED, "User:eve"),
                    _acl("secret", AclPermissionType.ALLOW, principal="User:eve"),
                ],
                CALLER,
            )
            time.sleep(0.002)
            controller.delete_acls([AclFilter(TOPIC, None, PatternType.ANY, "User:eve")], CALLER)
        time.sleep(0.05)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        loader.stop()
        controller.close()
    assert violations == []


def test_a_batch_is_published_only_once_durable_and_never_if_its_fsync_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import aclog.log.files as files_module

    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    controller.create_acls([_acl("kept", AclPermissionType.ALLOW)], CALLER)
    authorizer = Authorizer()
    loader = MetadataLoader(
        tmp_path,
        [AuthorizerPublisher(authorizer)],
        durable_end=lambda: controller.log.end_offset,
    )
    loader.catch_up()
    real_fsync, in_fsync, outcome = files_module.os.fsync, threading.Event(), []
    release, fail = threading.Event(), threading.Event()

    def held_fsync(fd: int) -> None:
        in_fsync.set()
        assert release.wait(10)
        if fail.is_set():
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(files_module.os, "fsync", held_fsync)

    def commit(name: str) -> None:
        outcome.append(controller.create_acls([_acl(name, AclPermissionType.ALLOW)], CALLER))

    def allowed(name: str) -> bool:
        return authorizer.authorize("User:bob", "h", READ, TOPIC, name) is Decision.ALLOWED

    for name, fails in (("lost", True), ("durable", False)):
        if not fails:  # a failed fsync stops the writer: the next commit follows a restart
            monkeypatch.setattr(files_module.os, "fsync", real_fsync)
            controller.close()
            controller = Controller.open(tmp_path, authorizer=LocalOperator())
            monkeypatch.setattr(files_module.os, "fsync", held_fsync)
        in_fsync.clear(), release.clear()
        (fail.set if fails else fail.clear)()
        writer = threading.Thread(target=commit, args=(name,))
        writer.start()
        assert in_fsync.wait(10)  # written to the segment, fsync not done
        assert loader.poll() is None and not allowed(name)  # not durable: not published
        release.set()
        writer.join(10)
        loader.poll()
        assert allowed(name) is not fails
    assert [r[0].error.is_success for r in outcome] == [False, True]
    assert allowed("kept") and not allowed("lost") and loader.image == controller.image
    controller.close()


def _offering(tmp_path: Path) -> tuple[Controller, MetadataLoader, Authorizer, list[object]]:
    """A controller whose commits are offered to a loader in the same process, as ``aclog
    serve`` wires them; the loader's own polls are counted."""
    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    authorizer = Authorizer()
    log = controller.log
    loader = MetadataLoader(
        tmp_path, [AuthorizerPublisher(authorizer)], durable_end=lambda: log.end_offset
    )
    loader.catch_up()
    reads: list[object] = []
    real_read = loader._tail.read

    def counted_read(from_offset: int, to_offset: int | None = None) -> Iterator[LogBatch]:
        reads.append((from_offset, to_offset))
        return real_read(from_offset, to_offset)

    loader._tail.read = counted_read  # type: ignore[method-assign]
    controller.add_commit_listener(loader.offer)
    return controller, loader, authorizer, reads


def test_an_offered_commit_is_published_before_the_writer_returns_without_a_read(
    tmp_path: Path,
) -> None:
    controller, loader, authorizer, reads = _offering(tmp_path)
    controller.create_acls([_acl("orders", AclPermissionType.ALLOW)], CALLER)
    # Published by the time the commit returns, from the records in memory.
    assert authorizer.authorize("User:bob", "h", READ, TOPIC, "orders") is Decision.ALLOWED
    assert loader.image == controller.image
    assert loader.poll() is None  # the durable end says there is nothing left to read
    assert reads == []
    controller.close()


def test_a_missed_offer_is_read_from_the_log_instead(tmp_path: Path) -> None:
    controller, loader, authorizer, reads = _offering(tmp_path)
    listeners = controller.committer.listeners
    controller.committer.listeners = []  # this commit is not offered
    controller.create_acls([_acl("missed", AclPermissionType.DENY)], CALLER)
    controller.committer.listeners = listeners
    controller.create_acls([_acl("next", AclPermissionType.ALLOW)], CALLER)
    # The second offer does not follow the published image: the loader read the log.
    assert len(reads) == 1
    assert authorizer.authorize("User:bob", "h", READ, TOPIC, "missed") is Decision.DENIED
    assert authorizer.authorize("User:bob", "h", READ, TOPIC, "next") is Decision.ALLOWED
    assert loader.image == controller.image
    controller.close()


def test_a_failing_commit_listener_does_not_fail_the_commit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    controller, loader, _, _ = _offering(tmp_path)

    def broken(batches: object) -> None:
        raise RuntimeError("listener bug")

    controller.committer.listeners.insert(0, broken)
    results = controller.create_acls([_acl("orders", AclPermissionType.ALLOW)], CALLER)
    assert results[0].error.is_success
    assert "a commit listener failed" in caplog.text
    # The next listener still ran: the loader published the commit.
    assert loader.image == controller.image
    controller.close()


def test_a_loader_fed_its_writers_commits_holds_its_image_in_a_mapping(tmp_path: Path) -> None:
    # A table apply per one-ACL commit cost ~30x a mapping's dict operations (session 14).
    controller = Controller.open(tmp_path, authorizer=LocalOperator())
    controller.create_acls([_acl(f"t{i}", AclPermissionType.ALLOW) for i in range(20)], CALLER)
    follower = MetadataLoader(tmp_path)
    follower.catch_up()
    assert follower.image.acls.small  # a small log: a mapping until it grows, then a table
    loader = MetadataLoader(tmp_path, durable_end=lambda: controller.log.end_offset)
    loader.catch_up()
    assert loader.image.acls.table is None and loader.image == follower.image
    assert not loader.image.acls.small  # pinned: a mapping at any size
    controller.add_commit_listener(loader.offer)
    controller.create_acls([_acl("orders", AclPermissionType.DENY)], CALLER)
    controller.delete_acls([AclFilter(TOPIC, "t3")], CALLER)
    assert loader.image.acls.table is None
    assert loader.image == controller.image
    follower.poll()
    assert follower.image == loader.image and follower.image.acls.small
    controller.close()
