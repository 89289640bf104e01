"""KRaft tail batches replayed from their columns (aclog/kraft/acl_kinds.py, column_batch.py,
the KraftColumnBatch branch of aclog/replay/kraft_batches.KraftTail) against the records path
they replace (read_kraft, a record per value): the same image (the same ACLs in the same
order, the same SCRAM users, the same provenance), the same ordered changes for publishers,
the same count, and for a batch the table declines the same error at the same offset."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import struct
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.record.util import calc_crc32c

from aclog.image import ReplayError
from aclog.kraft import (
    KraftColumnBatch,
    KraftCorruptError,
    KraftFormatError,
    column_batch,
    read_kraft,
)
from aclog.kraft.acl_batch import MIN_RECORDS
from aclog.kraft.acl_kinds import decode_acl_kinds
from aclog.kraft.checkpoint import read_checkpoint_info
from aclog.kraft.encoding import encode_record, frame
from aclog.kraft.reader import read_kraft_columns
from aclog.kraft.writer import LogBuilder, data_batch, write_checkpoint
from aclog.log.batch import HEADER_SIZE
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    Record,
    RemoveAccessControlEntryRecord,
    ResourceType,
)
from aclog.replay import rebuild_image, replay_batches
from aclog.replay.kraft_batches import KraftTail, kraft_decoded_batch
from aclog.replay.rebuild import restated
from tests.kraft.layout import scram

EPOCH = 1
# Strings the column decoder reads (a one-byte compact length) and some it declines (longer).
TEXTS = ["orders", "pay-*", "é日本", "a\x00b", "", "x" * 126, "y" * 127]
HOSTS = ["*", "10.0.0.1", "::1"]


def _acl(n: int, binding: int) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=n),
        list(ResourceType)[binding % len(ResourceType)],
        TEXTS[binding % len(TEXTS)],
        PatternType.LITERAL if binding % 3 else PatternType.PREFIXED,
        f"User:{TEXTS[(binding // 3) % len(TEXTS)][:20]}",
        HOSTS[binding % len(HOSTS)],
        AclOperation.READ if binding % 2 else AclOperation.WRITE,
        AclPermissionType.ALLOW,
    )


# An operation: ("add", id, binding), ("remove", id) or ("scram", n); small pools of ids and
# bindings, so removals of ids added in the same batch, in earlier ones or in the snapshot,
# removals of absent ids, and an id or a binding added twice all happen.
ops = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 40), st.integers(0, 60)),
    st.tuples(st.just("remove"), st.integers(0, 40)),
    st.tuples(st.just("scram"), st.integers(0, 3)),
)
tails = st.lists(st.lists(ops, min_size=1, max_size=12), min_size=1, max_size=6)


def _records(batch: list[tuple[Any, ...]]) -> list[Record]:
    out: list[Record] = []
    for op in batch:
        if op[0] == "add":
            out.append(_acl(op[1], op[2]))
        elif op[0] == "remove":
            out.append(RemoveAccessControlEntryRecord(uuid.UUID(int=op[1])))
        else:
            out.append(scram(f"user{op[1]}"))
    return out


def _write(directory: Path, snapshot: list[Record], tail: list[list[Record]]) -> int:
    """A checkpoint of ``snapshot`` (offsets ``0..len-1``), then ``tail`` after it; the
    checkpoint's end offset."""
    directory.mkdir(parents=True)
    end = max(len(snapshot), 1)
    write_checkpoint(directory, end, EPOCH, [encode_record(r) for r in snapshot], 0)
    log = LogBuilder(directory)
    log.start_at(end)
    for i, records in enumerate(tail):
        log.records(records, EPOCH, 1_000 + i)
    log.flush()
    return end


def _outcome(directory: Path, end: int, *, columns: bool) -> Any:
    """What replaying the tail after the checkpoint gives: the image's ACLs in order, its
    SCRAM users, provenance, the records counted and the ACL delta's ordered changes; or the
    error's message and offset."""
    info, records = read_checkpoint_info(next(directory.glob("*.checkpoint")))
    image = restated(records, info.last_offset, info.epoch, info.timestamp_ms)
    read = read_kraft_columns if columns else read_kraft
    tail = KraftTail(read(directory, end))
    try:
        replayed = replay_batches(image, tail, start=end)
    except ReplayError as error:
        return ("error", str(error), error.offset)
    assert replayed.delta is not None
    acls_delta = replayed.delta.acls_delta
    changes = None if acls_delta is None else list(acls_delta.changes.items())
    return (
        list(replayed.image.acls.acls.items()),
        replayed.image.scram,
        replayed.image.provenance,
        tail.records,
        changes,
    )


@contextlib.contextmanager
def _small_batches_as_columns() -> Iterator[None]:
    """Batches of any size take the column path (by default only those of at least
    MIN_RECORDS), so that small generated batches exercise it."""
    with pytest.MonkeyPatch.context() as patch:
        small = functools.partial(decode_acl_kinds, min_records=1)
        patch.setattr(column_batch, "decode_acl_kinds", small)
        yield


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=12, unique=True), tails)
def test_tail_from_columns_replays_as_the_records_path(
    snapshot_bindings: list[int], tail_ops: list[list[tuple[Any, ...]]]
) -> None:
    snapshot: list[Record] = [_acl(i, b) for i, b in enumerate(snapshot_bindings)]
    tail = [_records(batch) for batch in tail_ops]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp, "__cluster_metadata-0")
        end = _write(directory, snapshot, tail)
        with _small_batches_as_columns():
            columns = _outcome(directory, end, columns=True)
            kinds = {type(b) for b in read_kraft_columns(directory, end)}
        assert columns == _outcome(directory, end, columns=False)
    plain = [all(_plain(r) for r in records) for records in tail]
    assert (KraftColumnBatch in kinds) == any(plain)


def _plain(record: Record) -> bool:
    """An ACL record whose strings the column decoder reads (a one-byte compact length)."""
    if isinstance(record, RemoveAccessControlEntryRecord):
        return True
    if not isinstance(record, AccessControlEntryRecord):
        return False
    return all(len(t.encode()) < 127 for t in (record.resource_name, record.principal, record.host))


def _numbered(first: int, count: int) -> list[Record]:
    """ACLs of ids ``first..first+count-1``, each its own binding (a topic named by its id)."""
    return [_numbered_acl(n) for n in range(first, first + count)]


def _numbered_acl(n: int) -> AccessControlEntryRecord:
    return dataclasses.replace(_acl(n, n % 6), resource_name=f"topic-{n}")


def _big_tail() -> tuple[list[Record], list[list[Record]]]:
    """A snapshot and a tail of batches big enough for the column path by default, removing
    ids of the snapshot, of an earlier batch and of their own batch."""
    snapshot = _numbered(0, 300)
    first = _numbered(1_000, MIN_RECORDS)
    first[5] = RemoveAccessControlEntryRecord(uuid.UUID(int=7))  # the snapshot's
    first[9] = RemoveAccessControlEntryRecord(uuid.UUID(int=1_003))  # its own, added before
    second = _numbered(2_000, MIN_RECORDS + 40)
    second[0] = RemoveAccessControlEntryRecord(uuid.UUID(int=1_100))  # the first batch's
    second[-1] = RemoveAccessControlEntryRecord(uuid.UUID(int=2_001))
    return snapshot, [first, second]


def test_rebuild_takes_big_tail_batches_from_columns_as_the_records_path(tmp_path: Path) -> None:
    snapshot, tail = _big_tail()
    directory = tmp_path / "__cluster_metadata-0"
    end = _write(directory, snapshot, tail)
    assert all(type(b) is KraftColumnBatch for b in read_kraft_columns(directory, end))
    told: list[Any] = []
    rebuilt = rebuild_image(directory, kraft=True, on_batch=told.append)
    acls, scram_image, provenance, count, _ = _outcome(directory, end, columns=False)
    assert list(rebuilt.image.acls.acls.items()) == acls
    assert (rebuilt.image.scram, rebuilt.image.provenance) == (scram_image, provenance)
    assert rebuilt.records_replayed == count == sum(map(len, tail))
    # on_batch hears the batches as the records path tells them (same records and kinds).
    assert told == [kraft_decoded_batch(b) for b in read_kraft(directory, end)]
    assert [e.offset for b in told for e in b.entries] == list(range(end, end + count))


@pytest.mark.parametrize(
    ("at", "twice"),
    [(17, "id"), (MIN_RECORDS - 1, "binding"), (3, "removed absent")],
)
def test_a_declined_big_batch_fails_at_the_records_paths_offset(
    tmp_path: Path, at: int, twice: str
) -> None:
    snapshot, tail = _big_tail()
    batch = tail[1]
    if twice == "id":  # an id of the first batch added again
        batch[at] = dataclasses.replace(_numbered_acl(2_000 + at), id=uuid.UUID(int=1_020))
    elif twice == "binding":  # the binding of a snapshot ACL under a new id
        batch[at] = dataclasses.replace(_numbered_acl(11), id=uuid.UUID(int=9_999))
    else:
        batch[at] = RemoveAccessControlEntryRecord(uuid.UUID(int=123_456))
    directory = tmp_path / "__cluster_metadata-0"
    end = _write(directory, snapshot, tail)
    expected = _outcome(directory, end, columns=False)
    assert expected[0] == "error" and expected[2] == end + len(tail[0]) + at
    assert _outcome(directory, end, columns=True) == expected
    with pytest.raises(ReplayError) as caught:
        rebuild_image(directory, kraft=True)
    assert (str(caught.value), caught.value.offset) == expected[1:]


def test_a_damaged_value_in_a_big_batch_fails_at_its_own_offset(tmp_path: Path) -> None:
    good = [encode_record(r) for r in _numbered(0, MIN_RECORDS)]
    null_name = frame(18) + bytes(16) + b"\x02" + b"\x00"  # a null ResourceName, then nothing
    log = LogBuilder(tmp_path)
    log.start_at(500)
    log.data([*good[:7], null_name, *good[7:]], 1, 0)
    log.flush()
    with pytest.raises(KraftFormatError) as caught:
        list(read_kraft_columns(tmp_path))
    assert caught.value.offset == 507


@settings(max_examples=200, deadline=None)
@given(st.lists(ops.filter(lambda op: op[0] != "scram"), min_size=1, max_size=30), st.data())
def test_damaged_batches_decode_as_columns_as_records_or_not_at_all(
    batch_ops: list[tuple[Any, ...]], data: st.DataObject
) -> None:
    """A damaged value under a valid CRC (as a buggy writer would leave it): the column path
    reads what the records path reads, or raises the same error naming the same offset."""
    records = _records(batch_ops)
    batch = bytearray(data_batch([encode_record(r) for r in records], 500, EPOCH, 0))
    at = data.draw(st.integers(HEADER_SIZE, len(batch) - 1))
    batch[at] = data.draw(st.integers(0, 255))
    struct.pack_into(">I", batch, 17, calc_crc32c(memoryview(batch)[21:]))
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        Path(tmp, f"{500:020d}.log").write_bytes(bytes(batch))
        with _small_batches_as_columns():
            columns = _read_all(lambda: read_kraft_columns(directory))
        records_path = _read_all(lambda: read_kraft(directory))
    assert columns == records_path


def _read_all(read: Any) -> Any:
    """The batches as decoded batches (records and kinds), or the error's type and offset."""
    try:
        return [
            kraft_decoded_batch(b if not isinstance(b, KraftColumnBatch) else b.kraft_batch())
            for b in read()
        ]
    except (KraftCorruptError, KraftFormatError) as error:
        return (type(error), getattr(error, "offset", None), str(error))
