"""The contract of ``AclTable`` (``aclog.image.acl_table``): for any image and any batch, the
table either declines or gives exactly the ACLs, order and binding index that one-by-one
replay through ``AclsDelta`` gives; it never declines what a controller writes; tables built
from snapshot chunks, decoded log columns and records are the same; and its ``Mapping`` view
behaves as the dict of the same ACLs."""

from __future__ import annotations

import random
import threading
import uuid
from typing import Any
from unittest.mock import patch

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image.acl_column_rows import (
    AclColumnRows,
    of_kinds,
    of_records,
    removal_words,
    words_of_id_bytes,
)
from aclog.image.acl_pool import StringPool
from aclog.image.acl_table import AclTable
from aclog.image.acls import AclsDelta
from aclog.image.acls_image import AclsImage
from aclog.image.errors import ReplayError
from aclog.records import encode
from aclog.records.columnar import KindColumns, decode_kinds
from aclog.records.enums import AclOperation, ResourceType
from aclog.records.small_batch import decode_records
from aclog.records.types import (
    AccessControlEntryRecord,
    Record,
    RemoveAccessControlEntryRecord,
)
from aclog.snapshot.acl_columns import chunk_arrays, encode_chunk
from tests.acl_factory import acl_record

AclRecord = AccessControlEntryRecord | RemoveAccessControlEntryRecord

# Few names and codes, so that bindings collide often; unknown codes (99, 200) and empty,
# unicode and NUL-holding strings among them.
_NAMES = ["t0", "t1", "", "é", "日本", "a\x00b", "t0 "]
_RT = [ResourceType.TOPIC, ResourceType.GROUP, 99]
_OPS = [AclOperation.READ, AclOperation.WRITE, 200]


def _bound(n: int, binding: tuple[str, Any, Any]) -> AccessControlEntryRecord:
    """The ACL ``n`` of a drawn (name, resource type, operation)."""
    name, rt, op = binding
    return acl_record(n, name, rt=rt, op=op)


def _decoded(records: list[Record]) -> list[Record]:
    """``records`` written and read back (an unknown code becomes its enum's ``UNKNOWN``)."""
    return decode_records([encode(r) for r in records])[0] if records else []


_binding = st.tuples(st.sampled_from(_NAMES), st.sampled_from(_RT), st.sampled_from(_OPS))


@st.composite
def _histories(draw: st.DrawFn) -> tuple[list[Record], list[list[Record]]]:
    """Stored ACLs, then batches of mostly valid records (new ids and bindings, removals of
    live ids) with every edge mixed in: ids reused (live, removed, within the batch), removals
    of unknown ids, the binding of a live or removed ACL added under a new id (after or
    before its removal in the same batch), two unknown codes that are one binding."""
    serial = iter(range(1, 100_000))
    made: list[tuple[str, Any, Any]] = []  # every binding made so far

    def fresh() -> Any:
        n = next(serial)
        name, rt, op = draw(_binding)
        made.append((f"n{n}{name}", rt, op))
        return _bound(n, made[-1])

    base: list[Record] = [fresh() for _ in range(draw(st.integers(0, 10)))]
    live = [r.id for r in base if isinstance(r, AccessControlEntryRecord)]
    seen = list(live) or [uuid.UUID(int=1)]
    batches = []
    for _ in range(draw(st.integers(0, 5))):
        batch: list[Record] = []
        for _ in range(draw(st.sampled_from([0, 1, 3, 12]))):
            kind = draw(st.sampled_from(["add"] * 4 + ["remove"] * 2 + ["edge"] * 3))
            if kind == "add" or (kind == "remove" and not live):
                batch.append(fresh())
                live.append(batch[-1].id)  # type: ignore[attr-defined]
            elif kind == "remove":
                acl_id = live.pop(draw(st.integers(0, len(live) - 1)))
                batch.append(RemoveAccessControlEntryRecord(acl_id))
            else:
                batch.append(draw(_edge(seen, made or [("x", ResourceType.TOPIC, 99)], serial)))
            seen += [r.id for r in batch[-1:]]  # type: ignore[attr-defined]
        batches.append(batch)
    return base, batches


def _edge(
    ids: list[uuid.UUID], made: list[tuple[str, Any, Any]], serial: Any
) -> st.SearchStrategy[Record]:
    reused = st.sampled_from(ids)
    return st.one_of(
        reused.map(RemoveAccessControlEntryRecord),
        st.builds(lambda i, b: _bound(i.int, b), reused, _binding),
        st.builds(lambda b: _bound(next(serial), b), st.sampled_from(made)),
        st.builds(lambda b: _bound(next(serial), b), _binding),
    )


def _parts(batch: list[Record]) -> tuple[AclColumnRows, Any]:
    adds = [r for r in batch if isinstance(r, AccessControlEntryRecord)]
    ids = b"".join(r.id.bytes for r in batch if isinstance(r, RemoveAccessControlEntryRecord))  # type: ignore[attr-defined]
    return of_records(adds), words_of_id_bytes(ids)


def _replayed(image: AclsImage, batch: list[Record]) -> AclsImage | None:
    """The reference: the batch replayed record by record; ``None`` when replay raises."""
    delta = AclsDelta(image)
    try:
        for offset, record in enumerate(batch):
            delta.replay(record, offset)  # type: ignore[arg-type]
    except ReplayError:
        return None
    return delta.apply()


def _assert_same(table: AclTable, image: AclsImage, other_keys: list[Any]) -> None:
    """The table holds exactly the image's ACLs, in order, with the same binding index."""
    assert table.records() == list(image.acls.values())
    assert len(table) == len(image)
    for record in image.acls.values():
        assert table.id_of_key(record.key) == image.id_of_key(record.key) == record.id
        assert record.id in table
        assert table.get(record.id) == record
    for key in other_keys:
        assert table.id_of_key(key) == image.id_of_key(key)


@settings(max_examples=300, deadline=None)
@given(_histories())
def test_a_table_declines_or_applies_exactly_as_one_by_one_replay(
    history: tuple[list[Record], list[list[Record]]],
) -> None:
    base, batches = history
    base = _decoded(base)
    image = _replayed(AclsImage.EMPTY, base)
    assert image is not None
    table = AclTable.from_records(list(image.acls.values()))
    assert table is not None
    pool = table.pool
    for raw in batches:
        batch = _decoded(raw)
        keys = [r.key for r in batch if isinstance(r, AccessControlEntryRecord)]
        expected = _replayed(image, batch)
        applied = table.applied(*_parts(batch))
        if applied is None:  # declined: the caller replays one by one, then goes on from there
            if expected is not None:
                image = expected
            table = AclTable.from_records(list(image.acls.values()), pool)  # type: ignore[assignment]
            assert table is not None
            continue
        assert expected is not None, "the table applied a batch that one-by-one replay refuses"
        before = table.records()
        _assert_same(applied, expected, keys)
        assert table.records() == before  # the table it was derived from is unchanged
        table, image = applied, expected
    _assert_same(table, image, [])


@st.composite
def _controller_batches(draw: st.DrawFn) -> tuple[int, list[list[tuple[int, int]]]]:
    """A base size, then batches of (kind, n): 0 adds a fresh ACL, 1 removes a live one."""
    size = draw(st.integers(0, 40))
    batches = draw(
        st.lists(
            st.lists(st.tuples(st.integers(0, 1), st.integers(0, 10**6)), max_size=30), max_size=8
        )
    )
    return size, batches


@settings(max_examples=100, deadline=None)
@given(_controller_batches())
def test_what_a_controller_writes_is_never_declined(
    plan: tuple[int, list[list[tuple[int, int]]]],
) -> None:
    size, batches = plan
    rng_names = iter(range(10**7))
    records = [acl_record(n + 1, f"base{n}") for n in range(size)]
    table = AclTable.from_records(records)
    assert table is not None
    image = _replayed(AclsImage.EMPTY, list(records))
    assert image is not None
    serial = size + 1
    for steps in batches:
        live = [r.id for r in image.acls.values()]
        random.Random(len(live)).shuffle(live)
        batch: list[Record] = []
        for kind, n in steps:
            if kind and live:
                batch.append(RemoveAccessControlEntryRecord(live.pop()))
            else:
                serial += 1
                batch.append(acl_record(serial, f"n{next(rng_names)}", op=_OPS[n % 2]))
        expected = _replayed(image, batch)
        assert expected is not None
        applied = table.applied(*_parts(batch))
        assert applied is not None
        _assert_same(applied, expected, [])
        table, image = applied, expected


@settings(max_examples=100, deadline=None)
@given(st.lists(_binding, max_size=40), st.integers(1, 9))
def test_tables_from_chunks_decoded_columns_and_records_are_the_same(
    bindings: list[tuple[str, Any, Any]], chunk: int
) -> None:
    written, records, keys = [], [], set()
    for n, (name, rt, op) in enumerate(bindings):
        raw = acl_record(n + 1, f"{n % 5}{name}", rt=rt, op=op)
        (record,) = _decoded([raw])
        if record.key not in keys:  # type: ignore[attr-defined]
            keys.add(record.key)  # type: ignore[attr-defined]
            written.append(raw)
            records.append(record)
    reference = AclTable.from_records(records)  # type: ignore[arg-type]
    cut = range(0, len(written), chunk)
    from_chunks = AclTable.from_chunks(
        chunk_arrays(encode_chunk(written[i : i + chunk]), split=chunk % 2 == 0) for i in cut
    )
    kinds = decode_kinds([encode(r) for r in written])
    from_log = AclTable.build([of_kinds(kinds)])
    assert reference is not None and from_chunks is not None and from_log is not None
    for table in (from_chunks, from_log):
        assert table.records() == reference.records() == records
        for record in records:
            assert table.id_of_key(record.key) == record.id  # type: ignore[attr-defined]


def test_an_id_or_a_binding_stated_twice_builds_no_table() -> None:
    assert AclTable.from_records([acl_record(1, "a"), acl_record(1, "b")]) is None
    assert AclTable.from_records([acl_record(1, "a"), acl_record(2, "a")]) is None
    # Two unknown codes are one binding, as their records (both UNKNOWN) are.
    chunk = chunk_arrays(encode_chunk([acl_record(1, "a", rt=99), acl_record(2, "a", rt=98)]))
    assert AclTable.from_chunks([chunk]) is None
    assert (
        AclTable.from_records([acl_record(1, "a"), acl_record(2, "a", op=AclOperation.WRITE)])
        is not None
    )


def test_a_decoded_batch_gives_its_additions_and_removals_in_row_order() -> None:
    stored = [acl_record(n, f"s{n}") for n in range(1, 6)]
    batch: list[Record] = [
        RemoveAccessControlEntryRecord(uuid.UUID(int=4)),
        acl_record(10, "x"),
        RemoveAccessControlEntryRecord(uuid.UUID(int=2)),
        acl_record(11, "y", op=AclOperation.WRITE),
    ]
    kinds = decode_kinds([encode(r) for r in batch])
    additions, removals = of_kinds(kinds), removal_words(kinds)
    assert [int(w) for w in removals[1]] == [4, 2]
    table = AclTable.from_records(stored)
    assert table is not None
    applied = table.applied(additions, removals)
    assert applied is not None
    assert [r.resource_name for r in applied.records()] == ["s1", "s3", "s5", "x", "y"]


def test_the_mapping_view_behaves_as_the_dict() -> None:
    records = [acl_record(n, f"t{n}") for n in (5, 3, 9, 1)]
    table = AclTable.from_records(records)
    assert table is not None
    table = table.applied(
        of_records([acl_record(7, "t7")]), words_of_id_bytes(uuid.UUID(int=3).bytes)
    )
    assert table is not None
    expected = {r.id: r for r in [records[0], records[2], records[3], acl_record(7, "t7")]}
    view = table.acls
    assert list(view) == list(expected)
    assert list(view.items()) == list(expected.items())
    assert list(view.values()) == list(expected.values())
    assert len(view) == 4 and view == expected and dict(view) == expected
    assert view[uuid.UUID(int=9)] == expected[uuid.UUID(int=9)]
    assert view.get(uuid.UUID(int=3)) is None and uuid.UUID(int=3) not in view
    assert "not an id" not in view and view.get("x") is None  # type: ignore[call-overload]
    with pytest.raises(KeyError):
        view[uuid.UUID(int=3)]


def test_a_declined_batch_changes_no_table() -> None:
    pool = StringPool()
    table = AclTable.from_records([acl_record(1, "a")], pool)
    assert table is not None
    # A new binding with a new string, then an addition under a stored id: declined.
    assert (
        table.applied(
            of_records([acl_record(2, "fresh"), acl_record(1, "b")]), words_of_id_bytes(b"")
        )
        is None
    )
    assert table.records() == [acl_record(1, "a")] and "fresh" not in [
        r.resource_name for r in table
    ]
    assert table.applied(of_records([]), words_of_id_bytes(uuid.UUID(int=8).bytes)) is None
    # The strings it brought may stay in the pool; a later table codes them the same way.
    later = table.applied(of_records([acl_record(2, "fresh")]), words_of_id_bytes(b""))
    assert later is not None and later.records() == [acl_record(1, "a"), acl_record(2, "fresh")]
    assert later.id_of_key(acl_record(2, "fresh").key) == uuid.UUID(int=2)


def test_fingerprints_shared_by_different_ids_and_bindings_change_no_answer() -> None:
    # Real fingerprints collide about once in 2^64 pairs; these collide all the time, so the
    # lookups' word comparisons decide every answer.
    def weak(words: Any) -> Any:
        return words[1] & np.uint64(3)

    with (
        patch("aclog.image.acl_segment.fingerprints", weak),
        patch("aclog.image.acl_table_apply.fingerprints", weak),
    ):
        test_a_table_declines_or_applies_exactly_as_one_by_one_replay()
        test_what_a_controller_writes_is_never_declined()
        test_an_id_or_a_binding_stated_twice_builds_no_table()


def _split(kind: KindColumns) -> list[KindColumns]:
    """``kind`` as two kinds with interleaved rows, as a batch written at two versions is."""
    halves = []
    for start in (0, 1):
        picked = pa.array(np.arange(start, len(kind.rows), 2))
        columns = {name: column.take(picked) for name, column in kind.columns.items()}
        halves.append(KindColumns(kind.record_type, kind.version, kind.rows[start::2], columns))
    return halves


def test_additions_and_removals_of_several_kinds_come_in_row_order() -> None:
    batch: list[Record] = []
    for n in range(1, 8):
        batch += [acl_record(n + 10, f"x{n}"), RemoveAccessControlEntryRecord(uuid.UUID(int=n))]
    kinds = [part for kind in decode_kinds([encode(r) for r in batch]) for part in _split(kind)]
    additions, removals = of_kinds(kinds), removal_words(kinds)
    assert [int(w) for w in removals[1]] == list(range(1, 8))
    table = AclTable.build([additions])
    assert table is not None
    assert table.records() == [r for r in batch if isinstance(r, AccessControlEntryRecord)]


def test_a_key_with_a_code_no_record_holds_finds_nothing_as_in_the_image() -> None:
    record = _decoded([acl_record(1, "a", rt=99)])[0]
    image = _replayed(AclsImage.EMPTY, [record])
    table = AclTable.from_records([record])  # type: ignore[list-item]
    assert image is not None and table is not None
    key = record.key  # type: ignore[attr-defined]
    assert table.id_of_key(key) == image.id_of_key(key) == uuid.UUID(int=1)
    unknown = (99, *key[1:])
    assert table.id_of_key(unknown) is None and image.id_of_key(unknown) is None  # type: ignore[arg-type]
    assert table.id_of_key((key[0], "b", *key[2:])) is None  # type: ignore[arg-type]


def test_a_long_run_of_batches_is_held_in_few_segments() -> None:
    # A lookup searches every segment: small ones are merged as they pile up (O(log) remain).
    table = AclTable.from_records([acl_record(n, f"base{n}") for n in range(1, 1001)])
    expected = [f"base{n}" for n in range(1, 1001)]
    for batch in range(200):
        adds = [acl_record(10_000 + batch * 10 + i, f"b{batch}.{i}") for i in range(10)]
        removal = words_of_id_bytes(uuid.UUID(int=batch + 1).bytes)
        assert table is not None
        table = table.applied(of_records(adds), removal)
        expected = expected[1:] + [a.resource_name for a in adds]
        assert table is not None and table.segments <= 10
    assert table is not None
    assert [r.resource_name for r in table.records()] == expected


def test_threads_deriving_tables_from_one_pool_get_what_each_would_alone() -> None:
    # Each thread derives its own chain of tables from one base, all over one pool, with
    # strings shared between threads (so they race to add them), while reading as they go.
    base = AclTable.from_records([acl_record(n, f"base{n}") for n in range(1, 51)])
    assert base is not None
    results: dict[int, list[Any]] = {}

    def work(worker: int) -> None:
        rng = random.Random(worker)
        table, expected = base, base.records()
        for step in range(40):
            adds = [
                acl_record(
                    1000 * (worker + 1) * 100 + step * 10 + i, f"shared{rng.randrange(30)}.{i}"
                )
                for i in range(5)
            ]
            gone = expected[rng.randrange(len(expected))].id
            applied = table.applied(of_records(adds), words_of_id_bytes(gone.bytes))
            if applied is None:  # the same binding drawn twice: one-by-one territory
                continue
            expected = [r for r in expected if r.id != gone] + adds
            assert applied.records() == expected
            assert all(applied.id_of_key(a.key) == a.id for a in adds)
            table = applied
        results[worker] = table.records()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results) == [0, 1, 2, 3]
    assert base.records() == [acl_record(n, f"base{n}") for n in range(1, 51)]
    pool = base.pool
    assert len(set(pool.strings)) == len(pool.strings)  # no string coded twice
    assert all(pool.code_of(text) == code for code, text in enumerate(pool.strings))


def test_a_code_past_a_byte_is_unknown_as_in_the_records() -> None:
    written = acl_record(1, "a", rt=300, op=-1)
    (record,) = _decoded([written])
    for table in (
        AclTable.from_records([written]),
        AclTable.build([of_kinds(decode_kinds([encode(written)]))]),
    ):
        assert table is not None and table.records() == [record]
