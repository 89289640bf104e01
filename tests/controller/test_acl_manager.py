"""AclControlManager: call, assert the response, replay the records, assert the image."""

from __future__ import annotations

import dataclasses
import itertools
import uuid
from collections.abc import Sequence

import pytest

from aclog.acl import ApiError, Errors
from aclog.acl.filters import AclFilter
from aclog.controller import (
    MAX_RECORDS_PER_USER_OP,
    AclControlManager,
    AclCreateResult,
    AclDeleteResult,
    ControllerResult,
)
from aclog.image import AclsDelta, AclsImage
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import (
    AccessControlEntryRecord,
    AclBinding,
    Record,
    RemoveAccessControlEntryRecord,
)

READ_FOO = AclBinding(
    ResourceType.TOPIC,
    "foo",
    PatternType.LITERAL,
    "User:alice",
    "*",
    AclOperation.READ,
    AclPermissionType.ALLOW,
)
UNKNOWN_ERROR = ApiError(Errors.UNKNOWN_SERVER_ERROR, None)


def b(**changes: object) -> AclBinding:
    return dataclasses.replace(READ_FOO, **changes)  # type: ignore[arg-type]


def counter_ids(start: int = 1):
    numbers = itertools.count(start)
    return lambda: uuid.UUID(int=next(numbers))


def replay(image: AclsImage, records: Sequence[Record]) -> AclsImage:
    delta = AclsDelta(image)
    for offset, record in enumerate(records):
        assert isinstance(record, AccessControlEntryRecord | RemoveAccessControlEntryRecord)
        delta.replay(record, offset)
    return delta.apply()


def create(
    manager: AclControlManager, image: AclsImage, bindings: Sequence[AclBinding]
) -> tuple[ControllerResult[list[AclCreateResult]], AclsImage]:
    result = manager.create_acls(image, bindings)
    return result, replay(image, result.records)


def test_create_records_and_results_in_request_order() -> None:
    manager = AclControlManager(counter_ids())
    bindings = [READ_FOO, b(operation=AclOperation.WRITE), b(host="10.0.0.1")]
    result, image = create(manager, AclsImage.EMPTY, bindings)
    ids = [uuid.UUID(int=n) for n in (1, 2, 3)]
    assert result.response == [AclCreateResult(ApiError.NONE, i) for i in ids]
    assert result.records == tuple(bi.with_id(i) for bi, i in zip(bindings, ids, strict=True))
    assert [acl.binding for acl in image] == bindings
    assert list(image.acls) == ids


def test_create_changes_no_state() -> None:
    image = replay(AclsImage.EMPTY, [READ_FOO.with_id(uuid.UUID(int=99))])
    before = dict(image.acls)
    AclControlManager(counter_ids()).create_acls(image, [b(resource_name="bar")])
    assert dict(image.acls) == before


def test_duplicates_succeed_without_records() -> None:
    manager = AclControlManager(counter_ids())
    _, image = create(manager, AclsImage.EMPTY, [READ_FOO])
    bar = b(resource_name="bar")
    result, after = create(manager, image, [READ_FOO, bar, bar, READ_FOO, bar])
    assert result.records == (bar.with_id(uuid.UUID(int=2)),)
    assert [r.error for r in result.response] == [ApiError.NONE] * 5
    assert [r.acl_id for r in result.response] == [uuid.UUID(int=n) for n in (1, 2, 2, 1, 2)]
    assert len(after) == 2


def test_identity_is_exact_and_case_sensitive() -> None:
    manager = AclControlManager(counter_ids())
    variants = [
        READ_FOO,
        b(principal="user:alice"),
        b(principal="User:Alice"),
        b(resource_name="Foo"),
        b(host="10.0.0.1"),
        b(pattern_type=PatternType.PREFIXED),
        b(pattern_type=PatternType.GLOB),
        b(permission_type=AclPermissionType.DENY),
        b(operation=AclOperation.ALL),
    ]
    result, image = create(manager, AclsImage.EMPTY, variants)
    assert len(result.records) == len(variants) == len(image)


def test_invalid_items_fail_alone() -> None:
    manager = AclControlManager(counter_ids())
    bindings = [
        b(resource_type=ResourceType.CLUSTER, resource_name="*"),
        READ_FOO,
        b(resource_name=""),
        b(operation=AclOperation.ANY),
        b(principal="alice"),
        b(host="localhost"),
        b(pattern_type=PatternType.GLOB, resource_name="bad\\"),
        b(resource_name="ok"),
    ]
    result, image = create(manager, AclsImage.EMPTY, bindings)
    errors = [r.error.error for r in result.response]
    assert errors == [Errors.INVALID_REQUEST, Errors.NONE, *[Errors.INVALID_REQUEST] * 5, 0]
    succeeded = {1, 7}
    assert [r.acl_id is not None for r in result.response] == [
        i in succeeded for i in range(len(bindings))
    ]
    assert result.response[0].error.message == (
        "The only valid name for the CLUSTER resource is kafka-cluster"
    )
    assert result.response[2].error.message == "Invalid empty resource name"
    assert result.response[3].error.message == "Invalid operation ANY"
    assert [acl.binding for acl in image] == [READ_FOO, b(resource_name="ok")]


def test_glob_acls_are_created() -> None:
    glob = b(
        resource_type=ResourceType.GROUP,
        resource_name="team-?-*",
        pattern_type=PatternType.GLOB,
        principal="User:svc-*",
        host="10.1.?.*",
    )
    result, image = create(AclControlManager(counter_ids()), AclsImage.EMPTY, [glob])
    assert result.response == [AclCreateResult(ApiError.NONE, uuid.UUID(int=1))]
    assert image.id_of(glob) == uuid.UUID(int=1)


def test_id_factory_collisions_are_skipped() -> None:
    stored = b(resource_name="stored").with_id(uuid.UUID(int=1))
    image = replay(AclsImage.EMPTY, [stored])
    ids = iter([uuid.UUID(int=n) for n in (1, 2, 2, 1, 3)])
    manager = AclControlManager(lambda: next(ids))
    result, after = create(manager, image, [READ_FOO, b(resource_name="bar")])
    assert [r.acl_id for r in result.response] == [uuid.UUID(int=2), uuid.UUID(int=3)]
    assert len(after) == 3


def test_default_id_factory_makes_kafka_compatible_ids() -> None:
    result = AclControlManager().create_acls(AclsImage.EMPTY, [READ_FOO, b(resource_name="x")])
    first, second = (r.acl_id for r in result.response)
    assert first is not None and second is not None and first != second


def many(count: int, prefix: str = "t") -> list[AclBinding]:
    return [b(resource_name=f"{prefix}{i}") for i in range(count)]


def test_exactly_ten_thousand_new_acls_are_accepted() -> None:
    bindings = [*many(MAX_RECORDS_PER_USER_OP), READ_FOO]
    image = replay(AclsImage.EMPTY, [READ_FOO.with_id(uuid.UUID(int=0xFFFF_FFFF))])
    result = AclControlManager(counter_ids()).create_acls(image, bindings)
    assert len(result.records) == MAX_RECORDS_PER_USER_OP
    assert all(r.error.is_success for r in result.response)


def test_more_than_ten_thousand_new_acls_fail_the_request() -> None:
    bindings = [
        b(resource_name=""),
        *many(MAX_RECORDS_PER_USER_OP + 1),
        b(operation=AclOperation.UNKNOWN),
        b(resource_type=ResourceType.CLUSTER, resource_name="x"),
    ]
    result = AclControlManager(counter_ids()).create_acls(AclsImage.EMPTY, bindings)
    assert result.records == ()
    errors = [r.error for r in result.response]
    assert len(errors) == len(bindings)
    # Kafka's AclApis answers its pre-check failures before the controller runs.
    assert errors[0] == ApiError(Errors.INVALID_REQUEST, "Invalid empty resource name")
    assert errors[-1].error == Errors.INVALID_REQUEST
    # As a Kafka 4.0 broker answers it (tests/tools/test_as_code_kafka.py).
    cap = ApiError(
        Errors.UNKNOWN_SERVER_ERROR, "Unable to perform excessively large batch operation."
    )
    assert set(errors[1:-1]) == {cap}
    assert all(r.acl_id is None for r in result.response)


def setup_image() -> AclsImage:
    bindings = [
        READ_FOO,  # 1
        b(operation=AclOperation.WRITE),  # 2
        b(resource_name="*"),  # 3: wildcard
        b(resource_name="fo", pattern_type=PatternType.PREFIXED),  # 4
        b(resource_name="f*", pattern_type=PatternType.GLOB),  # 5
        b(resource_name="foo", pattern_type=PatternType.PREFIXED),  # 6
        b(resource_type=ResourceType.GROUP, principal="User:bob"),  # 7
        b(resource_name="bar", permission_type=AclPermissionType.DENY),  # 8
    ]
    _, image = create(AclControlManager(counter_ids()), AclsImage.EMPTY, bindings)
    return image


def ids_of(result: AclDeleteResult) -> list[int]:
    return [acl.id.int for acl in result.acls]


@pytest.mark.parametrize(
    ("acl_filter", "expected"),
    [
        (AclFilter(), [1, 2, 3, 4, 5, 6, 7, 8]),
        (AclFilter(resource_type=ResourceType.GROUP), [7]),
        (AclFilter(resource_name="foo"), [1, 2, 6, 7]),
        (AclFilter(resource_name="foo", pattern_type=PatternType.LITERAL), [1, 2, 7]),
        (AclFilter(resource_name="*"), [3]),
        (AclFilter(resource_name="foo", pattern_type=PatternType.MATCH), [1, 2, 3, 4, 5, 6, 7]),
        (
            AclFilter(
                resource_type=ResourceType.TOPIC,
                resource_name="food",
                pattern_type=PatternType.MATCH,
            ),
            [3, 4, 5, 6],
        ),
        (AclFilter(resource_name="f*", pattern_type=PatternType.GLOB), [5]),
        (AclFilter(resource_name="f", pattern_type=PatternType.GLOB), []),
        (AclFilter(operation=AclOperation.WRITE), [2]),
        (AclFilter(operation=AclOperation.ALL), []),
        (AclFilter(permission_type=AclPermissionType.DENY), [8]),
        (AclFilter(principal="User:bob"), [7]),
        (AclFilter(principal="User:*"), []),
        (AclFilter(host="10.0.0.1"), []),
    ],
)
def test_delete_filter_matching(acl_filter: AclFilter, expected: list[int]) -> None:
    image = setup_image()
    result = AclControlManager().delete_acls(image, [acl_filter])
    [only] = result.response
    assert only.error == ApiError.NONE
    assert ids_of(only) == expected
    assert result.records == tuple(
        RemoveAccessControlEntryRecord(uuid.UUID(int=n)) for n in expected
    )
    after = replay(image, result.records)
    assert sorted(i.int for i in after.acls) == sorted(set(range(1, 9)) - set(expected))


def test_delete_removes_each_acl_once_and_reports_it_per_filter() -> None:
    image = setup_image()
    filters = [
        AclFilter(resource_name="foo", pattern_type=PatternType.LITERAL),
        AclFilter(operation=AclOperation.WRITE),
        AclFilter(resource_name="nothing"),
    ]
    result = AclControlManager().delete_acls(image, filters)
    assert [ids_of(r) for r in result.response] == [[1, 2, 7], [2], []]
    assert [r.id.int for r in result.records] == [1, 2, 7]  # type: ignore[union-attr]
    assert len(replay(image, result.records)) == 5


def test_invalid_filters_fail_alone() -> None:
    image = setup_image()
    filters = [
        AclFilter(resource_type=ResourceType.UNKNOWN),
        AclFilter(operation=AclOperation.UNKNOWN),
        AclFilter(principal="User:bob"),
        AclFilter(pattern_type=PatternType.UNKNOWN, permission_type=AclPermissionType.UNKNOWN),
    ]
    result = AclControlManager().delete_acls(image, filters)
    assert result.response == [
        AclDeleteResult(ApiError(Errors.INVALID_REQUEST, "Unknown patternFilter.")),
        AclDeleteResult(ApiError(Errors.INVALID_REQUEST, "Unknown entryFilter.")),
        AclDeleteResult(ApiError.NONE, (image.acls[uuid.UUID(int=7)],)),
        AclDeleteResult(ApiError(Errors.INVALID_REQUEST, "Unknown patternFilter.")),
    ]
    assert result.records == (RemoveAccessControlEntryRecord(uuid.UUID(int=7)),)


def test_delete_changes_no_state_and_empty_request_is_empty() -> None:
    image = setup_image()
    before = dict(image.acls)
    AclControlManager().delete_acls(image, [AclFilter()])
    assert dict(image.acls) == before
    assert AclControlManager().delete_acls(image, []) == ControllerResult((), [])


@pytest.fixture(scope="module")
def big_image() -> AclsImage:
    """10,000 ACLs for User:alice plus 5 for User:bob."""
    manager = AclControlManager(counter_ids())
    _, image = create(manager, AclsImage.EMPTY, many(MAX_RECORDS_PER_USER_OP, "a"))
    bobs = [dataclasses.replace(x, principal="User:bob") for x in many(5, "b")]
    _, image = create(manager, image, bobs)
    assert len(image) == MAX_RECORDS_PER_USER_OP + 5
    return image


def test_delete_of_exactly_ten_thousand_succeeds(big_image: AclsImage) -> None:
    filters = [
        AclFilter(principal="User:alice"),
        AclFilter(resource_name="a7"),
        AclFilter(principal="User:alice", resource_type=ResourceType.TOPIC),
    ]
    result = AclControlManager().delete_acls(big_image, filters)
    assert [len(r.acls) for r in result.response] == [MAX_RECORDS_PER_USER_OP, 1, 10_000]
    assert all(r.error.is_success for r in result.response)
    assert len(result.records) == MAX_RECORDS_PER_USER_OP
    after = replay(big_image, result.records)
    assert [acl.resource_name for acl in after] == [f"b{i}" for i in range(5)]


def test_delete_past_ten_thousand_fails_every_filter(big_image: AclsImage) -> None:
    filters = [
        AclFilter(resource_type=ResourceType.UNKNOWN),
        AclFilter(resource_name="b0"),
        AclFilter(principal="User:alice"),
        AclFilter(resource_name="nothing"),
    ]
    result = AclControlManager().delete_acls(big_image, filters)
    assert result.records == ()
    assert result.response == [AclDeleteResult(UNKNOWN_ERROR)] * 4
    everything = AclControlManager().delete_acls(big_image, [AclFilter()])
    assert everything == ControllerResult((), [AclDeleteResult(UNKNOWN_ERROR)])


def test_a_request_decides_alike_over_a_table_and_over_a_mapping() -> None:
    """The controller looks a request's bindings and new ids up in one vectorised call over a
    table: the results, ids and records equal those over the same ACLs held in a mapping,
    stored bindings, repeats, invalid bindings and id collisions included."""
    stored = [b(resource_name=f"s{n}").with_id(uuid.UUID(int=100 + n)) for n in range(20)]
    table = replay(AclsImage.EMPTY, stored)
    mapping = table.in_a_mapping()
    assert table.table is not None and mapping.table is None
    request = [
        b(resource_name="s3"),
        b(resource_name="new"),
        b(pattern_type=PatternType.MATCH),  # invalid: fails alone
        b(resource_name="new"),
        b(resource_name="s19", host="10.0.0.1"),  # not stored: another host
        b(resource_name="other"),
        b(resource_name="s7"),
    ]
    outcomes = []
    for image in (table, mapping):
        ids = iter([uuid.UUID(int=n) for n in (105, 1, 1, 119, 2, 3)])  # stored ids skipped
        result = AclControlManager(lambda ids=ids: next(ids)).create_acls(image, request)
        outcomes.append((result.response, result.records))
    assert outcomes[0] == outcomes[1]
    response, records = outcomes[0]
    assert [r.acl_id for r in response] == [
        uuid.UUID(int=103), uuid.UUID(int=1), None, uuid.UUID(int=1),
        uuid.UUID(int=2), uuid.UUID(int=3), uuid.UUID(int=107),
    ]  # fmt: skip
    assert len(records) == 3
