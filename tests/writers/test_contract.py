"""One contract, every writer: the same tests run against each
:class:`~aclog.controller.writer.MetadataWriter`, as the eventsourcing library runs one suite
against every recorder.

- ``controller``: the single-node :class:`Controller` on a temporary data directory;
- ``quorum``: the active one of two :class:`QuorumMember` s sharing one data directory;
- ``remote``: a :class:`RemoteAdmin` talking the Kafka protocol to a real ``aclog serve``
  subprocess on 127.0.0.1 (started once for the module, stopped by its pid).

Each test uses names of its own, so tests sharing the remote server never see each other's
ACLs or users. What is asserted is what a client relies on: one result per item in request
order with Kafka's error codes, a request that fails wholly writes nothing, a user's SCRAM
changes are applied together or not at all, and a read after a write sees it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aclog.acl import Errors
from aclog.acl.filters import AclFilter
from aclog.controller import ScramDeletion, ScramUpsertion, upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.controller.quorum_member import QuorumMember
from aclog.controller.writer import MetadataWriter
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.remote import RemoteAdmin
from tests.wire.harness import ServerProcess

SHA256, SHA512 = ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512
CALLER = Caller("User:contract", "127.0.0.1", "contract-test", "contract")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    workdir = tmp_path_factory.mktemp("contract-serve")
    process = ServerProcess(workdir, "--super-users", "User:ANONYMOUS", name="contract")
    process.start()
    try:
        yield process
    finally:
        process.stop()


def _controller(tmp_path: Path) -> Iterator[MetadataWriter]:
    with Controller.open(tmp_path / "data", authorizer=LocalOperator()) as controller:
        yield controller


def _quorum(tmp_path: Path) -> Iterator[MetadataWriter]:
    members = [
        QuorumMember(
            ControllerNode(
                tmp_path / "shared",
                node_id,
                heartbeat_ms=100,
                election_timeout_ms=1000,
                authorizer=LocalOperator(),
                fsync=False,
            )
        )
        for node_id in (1, 2)
    ]
    try:
        for member in members:
            member.start(f"127.0.0.1:{9090 + member.node.node_id}")
        yield _until(lambda: next((m for m in members if m.is_active), None), "a leader")
    finally:
        for member in members:
            member.close()


def _remote(server: ServerProcess) -> Iterator[MetadataWriter]:
    settings = {"request_timeout_ms": 10_000, "bootstrap_timeout_ms": 10_000}
    with RemoteAdmin.connect(server.bootstrap, settings) as admin:
        yield admin


@pytest.fixture(params=["controller", "quorum", "remote"])
def writer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MetadataWriter]:
    if request.param == "controller":
        yield from _controller(tmp_path)
    elif request.param == "quorum":
        yield from _quorum(tmp_path)
    else:
        yield from _remote(request.getfixturevalue("server"))


def _until(
    check: Callable[[], QuorumMember | None], what: str, timeout: float = 20.0
) -> QuorumMember:
    deadline = time.monotonic() + timeout
    while (found := check()) is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.02)
    return found


def _topic() -> str:
    return f"contract-{uuid.uuid4().hex[:12]}"


def _allow(
    topic: str, principal: str = "User:alice", op: AclOperation = AclOperation.READ
) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        topic,
        PatternType.LITERAL,
        principal,
        "*",
        op,
        AclPermissionType.ALLOW,
    )


def _on(topic: str) -> AclFilter:
    return AclFilter(ResourceType.TOPIC, topic, PatternType.LITERAL)


def _listed(writer: MetadataWriter, acl_filter: AclFilter) -> set[AclBinding]:
    error, acls = writer.describe_acls(acl_filter, CALLER)
    assert error.is_success, error
    return {acl.binding for acl in acls}


def _codes(results: list[object]) -> list[int]:
    return [r.error.code for r in results]  # type: ignore[attr-defined]


# -- the writer says it is the one that writes -----------------------------------------------


def test_the_writer_is_active_and_names_a_leader(writer: MetadataWriter) -> None:
    assert writer.is_active
    leader = writer.leader()
    assert leader is not None and leader.leader_id >= 0


# -- ACLs ------------------------------------------------------------------------------------


def test_created_acls_are_described_and_in_the_image(writer: MetadataWriter) -> None:
    topic = _topic()
    bindings = [_allow(topic), _allow(topic, "User:bob", AclOperation.WRITE)]
    results = writer.create_acls(bindings, CALLER)
    assert _codes(results) == [0, 0]
    assert _listed(writer, _on(topic)) == set(bindings)
    image = writer.image
    if image is not None:  # a remote cluster keeps its state to itself
        assert set(bindings) <= {acl.binding for acl in image.acls}


def test_a_bad_acl_fails_alone_with_invalid_request(writer: MetadataWriter) -> None:
    topic = _topic()
    good, bad = _allow(topic), _allow(topic, principal="alice")  # not Type:name
    results = writer.create_acls([bad, good], CALLER)
    assert _codes(results) == [Errors.INVALID_REQUEST, 0]
    assert results[0].error.message  # says what is wrong
    assert _listed(writer, _on(topic)) == {good}


def test_a_request_that_fails_wholly_writes_nothing(writer: MetadataWriter) -> None:
    topic = _topic()
    glob_on_cluster = AclBinding(
        ResourceType.CLUSTER,
        "kafka-cluster",
        PatternType.GLOB,  # GLOB is for every resource type but CLUSTER
        "User:x",
        "*",
        AclOperation.ALTER,
        AclPermissionType.ALLOW,
    )
    bad = [_allow(topic, principal=""), glob_on_cluster]
    image_before = writer.image
    results = writer.create_acls(bad, CALLER)
    assert _codes(results) == [Errors.INVALID_REQUEST, Errors.INVALID_REQUEST]
    assert _listed(writer, _on(topic)) == set()
    if image_before is not None:
        assert writer.image is not None
        assert writer.image.provenance.last_offset == image_before.provenance.last_offset


def test_creating_an_existing_acl_succeeds_and_keeps_one(writer: MetadataWriter) -> None:
    topic = _topic()
    assert _codes(writer.create_acls([_allow(topic)], CALLER)) == [0]
    assert _codes(writer.create_acls([_allow(topic)], CALLER)) == [0]
    _, acls = writer.describe_acls(_on(topic), CALLER)
    assert len(acls) == 1


def test_delete_removes_what_each_filter_matches(writer: MetadataWriter) -> None:
    topic, other = _topic(), _topic()
    kept = _allow(other)
    removed = [_allow(topic), _allow(topic, "User:bob")]
    assert _codes(writer.create_acls([*removed, kept], CALLER)) == [0, 0, 0]
    results = writer.delete_acls([_on(topic), _on(_topic())], CALLER)
    assert _codes(results) == [0, 0]
    assert {acl.binding for acl in results[0].acls} == set(removed)
    assert results[1].acls == ()
    assert _listed(writer, _on(topic)) == set()
    assert _listed(writer, _on(other)) == {kept}


def test_a_dry_run_delete_answers_without_deleting(writer: MetadataWriter) -> None:
    topic = _topic()
    writer.create_acls([_allow(topic)], CALLER)
    (result,) = writer.delete_acls([_on(topic)], CALLER, dry_run=True)
    assert {acl.binding for acl in result.acls} == {_allow(topic)}
    assert _listed(writer, _on(topic)) == {_allow(topic)}


def test_the_later_forms_answer_as_the_blocking_ones(writer: MetadataWriter) -> None:
    topic = _topic()
    created = writer.create_acls_later([_allow(topic)], CALLER).result(timeout=30)
    assert _codes(created) == [0]
    deleted = writer.delete_acls_later([_on(topic)], CALLER).result(timeout=30)
    assert {acl.binding for acl in deleted[0].acls} == {_allow(topic)}
    user = f"later-{uuid.uuid4().hex[:8]}"
    upsert = upsertion_for_password(user, SHA256, "secret", 4096)
    altered = writer.alter_scram_later([upsert], [], CALLER).result(timeout=30)
    assert [(r.user, r.error.code) for r in altered] == [(user, 0)]


# -- SCRAM -----------------------------------------------------------------------------------


def _described(writer: MetadataWriter, user: str) -> tuple[int, set[tuple[ScramMechanism, int]]]:
    error, results = writer.describe_scram([user], CALLER)
    assert error.is_success, error
    (result,) = results
    return result.error.code, {(c.mechanism, c.iterations) for c in result.credentials}


def test_scram_upsert_then_delete(writer: MetadataWriter) -> None:
    user = f"user-{uuid.uuid4().hex[:8]}"
    for upsert in (
        upsertion_for_password(user, SHA256, "pw-256", 4096),
        upsertion_for_password(user, SHA512, "pw-512", 8192),
    ):
        results = writer.alter_scram([upsert], [], CALLER)
        assert [(r.user, r.error.code) for r in results] == [(user, 0)]
    assert _described(writer, user) == (0, {(SHA256, 4096), (SHA512, 8192)})
    image = writer.image
    if image is not None:
        assert image.scram.describe([user])[0].credentials
    results = writer.alter_scram([], [ScramDeletion(user, SHA256)], CALLER)
    assert _codes(results) == [0]
    assert _described(writer, user) == (0, {(SHA512, 8192)})
    writer.alter_scram([], [ScramDeletion(user, SHA512)], CALLER)
    assert _described(writer, user)[0] == Errors.RESOURCE_NOT_FOUND


def test_scram_errors_are_per_user(writer: MetadataWriter) -> None:
    good, bad = f"good-{uuid.uuid4().hex[:8]}", f"bad-{uuid.uuid4().hex[:8]}"
    upserts = [
        upsertion_for_password(good, SHA256, "pw", 4096),
        ScramUpsertion(bad, SHA512, 4096, b"", b"x" * 64),  # an empty salt: not acceptable
    ]
    results = {r.user: r.error.code for r in writer.alter_scram(upserts, [], CALLER)}
    assert results == {good: 0, bad: Errors.UNACCEPTABLE_CREDENTIAL}
    assert _described(writer, good) == (0, {(SHA256, 4096)})
    assert _described(writer, bad)[0] == Errors.RESOURCE_NOT_FOUND


def test_deleting_a_credential_that_does_not_exist_is_resource_not_found(
    writer: MetadataWriter,
) -> None:
    user = f"nobody-{uuid.uuid4().hex[:8]}"
    (result,) = writer.alter_scram([], [ScramDeletion(user, SHA256)], CALLER)
    assert (result.user, result.error.code) == (user, Errors.RESOURCE_NOT_FOUND)


def test_a_user_altered_twice_in_one_request_changes_nothing(writer: MetadataWriter) -> None:
    user, other = f"twice-{uuid.uuid4().hex[:8]}", f"other-{uuid.uuid4().hex[:8]}"
    upserts = [
        upsertion_for_password(user, SHA256, "pw", 4096),
        upsertion_for_password(user, SHA512, "pw", 4096),
        upsertion_for_password(other, SHA256, "pw", 4096),
    ]
    results = {r.user: r.error.code for r in writer.alter_scram(upserts, [], CALLER)}
    assert results == {user: Errors.DUPLICATE_RESOURCE, other: 0}
    assert _described(writer, user)[0] == Errors.RESOURCE_NOT_FOUND  # neither change applied
    assert _described(writer, other) == (0, {(SHA256, 4096)})


# -- a property: any sequence of creates and deletes leaves what a set would hold -------------

_PRINCIPALS = ("User:alice", "User:bob", "User:carol")
_OPS = (AclOperation.READ, AclOperation.WRITE)
_step = st.one_of(
    st.tuples(st.just("create"), st.lists(st.tuples(st.sampled_from(_PRINCIPALS),
              st.sampled_from(_OPS)), min_size=1, max_size=3)),
    st.tuples(st.just("delete"), st.sampled_from((None, *_PRINCIPALS))),
)  # fmt: skip


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(_step, min_size=1, max_size=6))
def test_creates_and_deletes_leave_what_a_set_would_hold(
    writer: MetadataWriter, steps: list[tuple[str, object]]
) -> None:
    topic = _topic()  # a fresh name per example: examples never see each other's ACLs
    model: set[AclBinding] = set()
    for kind, arg in steps:
        if kind == "create":
            bindings = [_allow(topic, p, op) for p, op in arg]  # type: ignore[attr-defined]
            assert all(r.error.is_success for r in writer.create_acls(bindings, CALLER))
            model |= set(bindings)
        else:
            acl_filter = AclFilter(
                ResourceType.TOPIC,
                topic,
                PatternType.LITERAL,
                principal=arg,  # type: ignore[arg-type]
            )
            (result,) = writer.delete_acls([acl_filter], CALLER)
            gone = {b for b in model if arg is None or b.principal == arg}
            assert {acl.binding for acl in result.acls} == gone
            model -= gone
        assert _listed(writer, _on(topic)) == model
