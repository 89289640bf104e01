"""A KRaft checkpoint restated from columns: its batches of grants go from bytes to the ACL
table without record objects, and the image is the one restating its records builds (same
ACLs in the same order, same SCRAM users); a checkpoint the table refuses still fails as the
records path does."""

from __future__ import annotations

import dataclasses
import random
import uuid
from pathlib import Path

import pytest

from aclog.image import MetadataImage, ReplayError
from aclog.kraft import AclColumns, read_checkpoint_info, read_checkpoint_parts
from aclog.kraft.acl_batch import MIN_RECORDS
from aclog.kraft.encoding import encode_record
from aclog.kraft.writer import LogBuilder, write_checkpoint
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    PatternType,
    Record,
    RemoveAccessControlEntryRecord,
    ResourceType,
)
from aclog.replay import rebuild_image
from aclog.replay.rebuild import restated
from benchmarks.bench_log import acl_records
from tests.kraft.layout import FEATURE, TOPIC, scram


def _grants(count: int, seed: int) -> list[Record]:
    """Distinct grants, some with unknown codes and non-ASCII names."""
    unique = {r.binding: r for r in acl_records(count * 2, seed=seed)}
    grants: list[Record] = list(unique.values())[:count]
    rng = random.Random(seed)
    for i in rng.sample(range(count), min(20, count)):
        grants[i] = dataclasses.replace(
            grants[i],  # type: ignore[type-var]
            resource_type=ResourceType.UNKNOWN,
            pattern_type=PatternType.UNKNOWN,
            operation=AclOperation.UNKNOWN,
            resource_name=f"tópic-ü-{i}",
        )
    return grants


def _records_image(path: Path) -> MetadataImage:
    """Today's records path: the checkpoint's records restated."""
    info, records = read_checkpoint_info(path)
    return restated(records, info.last_offset, info.epoch, info.timestamp_ms)


def _snapshot_only(directory: Path, records: list[Record], batch_size: int) -> Path:
    values = [encode_record(r) for r in records]
    mixed = [*values[:7], TOPIC, *values[7:100], FEATURE, *values[100:]]
    return write_checkpoint(directory, len(records), 2, mixed, 5_000, batch_size=batch_size)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_image_equals_the_records_path(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    grants = _grants(rng.randrange(2 * MIN_RECORDS, 4 * MIN_RECORDS), seed)
    records = list(grants)
    for at, name in zip(sorted(rng.sample(range(200), 3)), "abc", strict=True):
        records.insert(at, scram(f"user-{name}"))  # in the first batch: it stays records
    batch_size = rng.choice([MIN_RECORDS, MIN_RECORDS + 37, 3 * MIN_RECORDS])
    path = _snapshot_only(tmp_path, records, batch_size)
    info, parts = read_checkpoint_parts(path)
    assert any(type(p) is AclColumns for p in parts)  # the fast path was taken somewhere
    assert info == read_checkpoint_info(path)[0]
    rebuilt = rebuild_image(tmp_path, kraft=True).image
    expected = _records_image(path)
    assert rebuilt == expected
    assert list(rebuilt.acls) == list(expected.acls) == grants  # same order
    assert set(rebuilt.scram.users) == {"user-a", "user-b", "user-c"}
    assert rebuilt.provenance == expected.provenance


def test_columns_and_records_interleave_in_file_order(tmp_path: Path) -> None:
    grants = _grants(2 * MIN_RECORDS + 100, 4)
    # Batches of MIN_RECORDS + 2: the first (with the checkpoint's header records) and the last
    # (too small) are read as records, a full batch of grants between them as columns.
    path = _snapshot_only(tmp_path, grants, MIN_RECORDS + 2)
    _, parts = read_checkpoint_parts(path)
    blocks = [i for i, part in enumerate(parts) if type(part) is AclColumns]
    sizes = [len(parts[i].ids) // 16 for i in blocks]  # type: ignore[union-attr]
    # Column blocks between grants read as records: together exactly the checkpoint's grants.
    assert blocks and blocks[0] > 0 and blocks[-1] < len(parts) - 1
    assert all(size >= MIN_RECORDS for size in sizes)
    assert len(parts) - len(blocks) + sum(sizes) == len(grants)
    assert list(rebuild_image(tmp_path, kraft=True).image.acls) == grants


def test_the_log_after_the_checkpoint_replays_onto_the_table(tmp_path: Path) -> None:
    grants = _grants(MIN_RECORDS * 2, 5)
    _snapshot_only(tmp_path, grants, MIN_RECORDS)
    log = LogBuilder(tmp_path)
    log.start_at(len(grants))
    removed = [RemoveAccessControlEntryRecord(g.id) for g in grants[:10]]  # type: ignore[attr-defined]
    log.records([*removed, *_grants(5, 6)], 2, 6_000)
    log.flush()
    rebuilt = rebuild_image(tmp_path, kraft=True).image
    assert len(rebuilt.acls) == len(grants) - 10 + 5
    assert list(rebuilt.acls)[: len(grants) - 10] == grants[10:]


@pytest.mark.parametrize("twice", ["id", "binding"])
def test_a_checkpoint_stating_an_acl_twice_fails_as_the_records_path_does(
    tmp_path: Path, twice: str
) -> None:
    grants = _grants(MIN_RECORDS * 2, 7)
    first: AccessControlEntryRecord = grants[3]  # type: ignore[assignment]
    if twice == "id":
        grants[900] = dataclasses.replace(grants[900], id=first.id)  # type: ignore[type-var]
    else:
        grants[900] = dataclasses.replace(first, id=uuid.UUID(int=12345))
    path = _snapshot_only(tmp_path, grants, MIN_RECORDS)
    with pytest.raises(ReplayError) as expected:
        _records_image(path)
    with pytest.raises(ReplayError) as caught:
        rebuild_image(tmp_path, kraft=True)
    assert str(caught.value) == str(expected.value)


def test_a_removal_in_a_checkpoint_takes_the_records_path(tmp_path: Path) -> None:
    grants = _grants(MIN_RECORDS * 2, 8)
    first: AccessControlEntryRecord = grants[0]  # type: ignore[assignment]
    records = [*grants, RemoveAccessControlEntryRecord(first.id)]
    path = _snapshot_only(tmp_path, records, MIN_RECORDS)
    try:
        expected: object = _records_image(path)
    except ReplayError as error:
        expected = str(error)
    try:
        got: object = rebuild_image(tmp_path, kraft=True).image
    except ReplayError as error:
        got = str(error)
    assert got == expected
