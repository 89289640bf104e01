"""KRaft tail batches replayed from their columns (aclog/kraft/acl_kinds.py, column_batch.py,
the KraftColumnBatch branch of aclog/replay/kraft_batches.KraftTail) against the records path
they replace (read_kraft, a record per value): the same image (the same ACLs in the same
order, the same SCRAM users, the same provenance), the same ordered changes for publishers,
the same count, and for a batch the table declines the same error at the same offset."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aclog.kraft.column_batch as column_batch
from aclog.image import MetadataImage, ReplayError
from aclog.kraft import KraftColumnBatch, KraftCorruptError, KraftFormatError, read_kraft
from aclog.kraft.acl_batch import MIN_RECORDS
from aclog.kraft.acl_kinds import decode_acl_kinds
from aclog.kraft.checkpoint import read_checkpoint_info
from aclog.kraft.encoding import encode_record, frame
from aclog.kraft.reader import read_kraft_columns
from aclog.kraft.writer import LogBuilder, write_checkpoint
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
    plain = [all(type(r) is not type(scram("u")) for r in b) for b in tail]
    plain = [p and all(len(t.encode()) < 127 for r in b for t in _texts(r)) for p, b in zip(plain, tail, strict=True)]
    assert (KraftColumnBatch in kinds) == any(plain)


def _texts(record: Record) -> list[str]:
    if isinstance(record, AccessControlEntryRecord):
        return [record.resource_name, record.principal, record.host]
    return []
