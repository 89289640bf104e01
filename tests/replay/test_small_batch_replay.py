"""Batches decoded record by record (below ``SMALL_BATCH``) replay as the same records handed
over in memory do: the same image, ACL changes and first error, around both lines (the
decoder's at ``SMALL_BATCH`` and the delta's one-by-one route below ``BULK_MIN``), onto an
empty image, a table-backed one and one held in a mapping."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest

from aclog.image import MetadataImage, ReplayError
from aclog.image.metadata_batches import BULK_MIN
from aclog.records import (
    AccessControlEntryRecord,
    RemoveAccessControlEntryRecord,
    RequestContextRecord,
    encode,
)
from aclog.records.small_batch import SMALL_BATCH, decode_batch_records
from aclog.records.types import Record
from aclog.replay.batches import CommittedBatch, replay_batches
from aclog.replay.stream import DecodedBatch
from tests.acl_factory import acl_record

CONTEXT = RequestContextRecord("User:admin", "10.0.0.1", "cli", 1000, "CreateAcls")
SIZES = sorted({1, 2, BULK_MIN - 1, BULK_MIN, SMALL_BATCH - 1, SMALL_BATCH, SMALL_BATCH + 1})


def _acl(i: int, name: str = "t") -> AccessControlEntryRecord:
    return acl_record(i + 1, f"{name}{i}", "User:bob")


def _decoded(base: int, records: list[Record]) -> DecodedBatch:
    decoded = decode_batch_records([encode(r) for r in records], base)
    return DecodedBatch(base, base + len(records) - 1, 1, 1000, CONTEXT, decoded)


def _bases() -> dict[str, MetadataImage]:
    stored = tuple(_acl(i, "stored") for i in range(1000, 1050))
    table = replay_batches(MetadataImage.EMPTY, [CommittedBatch(0, 1, 1, stored)]).image
    return {"empty": MetadataImage.EMPTY, "table": table, "mapping": table.in_a_mapping()}


def _outcome(image: MetadataImage, batches: list[object]) -> object:
    try:
        replayed = replay_batches(image, batches)  # type: ignore[arg-type]
    except ReplayError as error:
        return str(error)
    assert replayed.delta is not None
    acls = replayed.delta.acls_delta
    return replayed.image, None if acls is None else list(acls.changes.items())


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("base", ["empty", "table", "mapping"])
def test_small_batches_replay_as_their_records_do(size: int, base: str) -> None:
    image = _bases()[base]
    first = image.provenance.last_offset + 1
    adds = [CONTEXT, *(_acl(i) for i in range(size - 1))]
    removes = [CONTEXT, *(RemoveAccessControlEntryRecord(_acl(i).id) for i in range(size - 1))]
    second = first + len(adds)
    decoded = [_decoded(first, adds), _decoded(second, removes)]
    given = [
        CommittedBatch(first, 1, 1000, tuple(adds)),
        CommittedBatch(second, 1, 1000, tuple(removes)),
    ]
    assert not decoded[0].decoded.columnar or size >= SMALL_BATCH  # type: ignore[union-attr]
    assert _outcome(image, decoded) == _outcome(image, given)
    assert _outcome(image, decoded[:1]) == _outcome(image, given[:1])


@pytest.mark.parametrize("size", [BULK_MIN, SMALL_BATCH - 1])
@pytest.mark.parametrize("base", ["table", "mapping"])
def test_a_duplicate_in_a_small_batch_is_the_same_error_at_its_offset(size: int, base: str) -> None:
    image = _bases()[base]
    first = image.provenance.last_offset + 1
    records = [CONTEXT, *(_acl(i) for i in range(size - 2)), _acl(1000, "stored")]
    dup = replace_id(records[-1])
    records[-1] = dup
    expected = _outcome(image, [CommittedBatch(first, 1, 1000, tuple(records))])
    assert isinstance(expected, str) and f"offset {first + size - 1}" in expected
    assert _outcome(image, [_decoded(first, records)]) == expected


def replace_id(acl: AccessControlEntryRecord) -> AccessControlEntryRecord:
    """``acl`` (an ACL the base image stores) under a new id: a duplicate binding."""
    return replace(acl, id=uuid.UUID(int=99_999))
