"""A batch decoded a type at a time (``decode_batch_records``, what replay takes) holds exactly
the records the row-order decode gives: the ACL additions with their ids, the
removals with their ids, each at its own row, the other records at theirs, and the first one."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from aclog.records import AccessControlEntryRecord, RemoveAccessControlEntryRecord
from aclog.records.column_records import acl_rows
from aclog.records.columnar import KindColumns, decode_kinds
from aclog.records.decoded import in_row_order
from aclog.records.small_batch import decode_batch_records, decode_records
from tests.records.test_column_records import _values


@given(_values, st.integers(min_value=0, max_value=1 << 40))
def test_a_type_at_a_time_holds_the_rows_records(values: list[bytes], first: int) -> None:
    records, kinds = decode_records(values, first)
    decoded = decode_batch_records(values, first)
    assert decoded.count == len(records) and decoded.records == records
    assert decoded.kinds() == kinds
    assert decoded.first() == (records[0] if records else None)
    acls = decoded.acls
    in_rows = [r for r in records if type(r) is AccessControlEntryRecord]
    removed = [r for r in records if type(r) is RemoveAccessControlEntryRecord]
    if acls is None:
        assert not in_rows and not removed
        return
    assert acls.adds == in_rows and acls.removes == removed
    assert [records[row] for row in acls.add_rows] == acls.adds
    assert [records[row] for row in acls.remove_rows] == acls.removes
    assert acls.add_ids == [r.id for r in acls.adds]
    assert acls.remove_ids == [r.id for r in acls.removes]
    others = [(i, r) for i, r in enumerate(records) if type(r) not in _ACL_CLASSES]
    assert decoded.others == others


_ACL_CLASSES = (AccessControlEntryRecord, RemoveAccessControlEntryRecord)


@given(st.lists(st.integers(0, 1), min_size=2, max_size=40), _values)
def test_one_type_in_two_kinds_is_merged_in_row_order(
    parts: list[int], values: list[bytes]
) -> None:
    """Two kinds of one ACL type (two versions of it, some day) are put in row order: here one
    kind's rows dealt into two kinds as ``parts`` says."""
    kinds = [k for k in decode_kinds(values, 0, secrets=True) if k.record_type in (18, 19)]
    split = [part for kind in kinds for part in _dealt(kind, parts)]
    whole, dealt = acl_rows(kinds) if kinds else None, acl_rows(split) if split else None
    if whole is None or dealt is None:
        assert whole is dealt
        return
    assert dealt.adds == whole.adds
    assert dealt.removes == whole.removes
    assert dealt.add_rows.tolist() == whole.add_rows.tolist()
    assert dealt.remove_rows.tolist() == whole.remove_rows.tolist()


def _dealt(kind: KindColumns, parts: list[int]) -> list[KindColumns]:
    """``kind`` dealt into two kinds: its ``i``-th row goes to part ``parts[i % len(parts)]``."""
    which = np.array([parts[i % len(parts)] for i in range(len(kind.rows))], dtype=bool)
    out = []
    for side in (False, True):
        picked = np.flatnonzero(which == side)
        if len(picked):
            columns = {n: c.take(pa.array(picked)) for n, c in kind.columns.items()}
            out.append(KindColumns(kind.record_type, kind.version, kind.rows[picked], columns))
    return out


def test_in_row_order_merges_parts() -> None:
    rows = [np.array([0, 3, 4]), np.array([1, 2]), np.array([], dtype=np.int64)]
    assert in_row_order(rows, [["a", "d", "e"], ["b", "c"], []]) == list("abcde")
    assert in_row_order([np.array([5])], [["x"]]) == ["x"]
    assert in_row_order([], []) == []
