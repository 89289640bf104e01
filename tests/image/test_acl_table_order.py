"""What a reader that regroups a table's ACLs relies on (the authorizer's
:func:`~aclog.authorizer.table_load.index_from_table`): ``records_at`` gives the records at
any places of image order, in that order, and two ACLs share a ``pattern_keys`` word exactly
when their records share resource type, pattern type and name, for a table of one segment
and for one a batch changed (several segments, removed rows masked out)."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image.acl_column_rows import of_records, words_of_id_bytes
from aclog.image.acl_table import AclTable
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord

# Unknown codes (99, 98) become UNKNOWN in every record the table gives: one pattern.
_RT = (ResourceType.TOPIC, ResourceType.GROUP, 99, 98)
_PT = (PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB, 9)
_fields = st.tuples(
    st.sampled_from(_RT),
    st.sampled_from(("t0", "t1", "", "日本", "*")),
    st.sampled_from(_PT),
    st.sampled_from(("User:a", "User:b", "User:*")),
)


def _seen(fields: tuple[Any, ...]) -> tuple[Any, ...]:
    """``fields`` as a record read back holds them: a code without a member is UNKNOWN."""
    rt, name, pt, who = fields
    known_rt = rt if rt in tuple(ResourceType) else ResourceType.UNKNOWN
    return known_rt, name, pt if pt in tuple(PatternType) else PatternType.UNKNOWN, who


@st.composite
def _tables(draw: st.DrawFn) -> AclTable:
    """A table of distinct ACLs, often with a batch applied to it."""
    drawn = draw(st.lists(_fields, max_size=30))
    # One binding once (as its records see it: the unknown codes are one), else a decline.
    fields = list({_seen(f): f for f in drawn}.values())
    acls = [
        AccessControlEntryRecord(
            uuid.UUID(int=i + 1), rt, name, pt, who, "*", AclOperation.READ, AclPermissionType.ALLOW
        )
        for i, (rt, name, pt, who) in enumerate(fields)
    ]
    split = draw(st.integers(0, len(acls)))
    table = AclTable.from_records(acls[:split])
    assert table is not None
    gone = draw(st.lists(st.sampled_from(acls[:split]), unique=True)) if split else []
    removed = words_of_id_bytes(b"".join(acl.id.bytes for acl in gone))
    changed = table.applied(of_records(acls[split:]), removed)
    assert changed is not None
    return changed


@settings(max_examples=150, deadline=None)
@given(_tables(), st.data())
def test_records_at_gives_the_records_at_those_places(table: AclTable, data: Any) -> None:
    records = table.records()
    places = data.draw(st.lists(st.integers(0, max(len(records) - 1, 0)), max_size=40))
    places = places if records else []
    assert table.records_at(np.array(places, dtype=np.intp)) == [records[i] for i in places]


@settings(max_examples=150, deadline=None)
@given(_tables())
def test_pattern_keys_are_equal_exactly_when_the_patterns_are(table: AclTable) -> None:
    records = table.records()
    keys = table.pattern_keys().tolist()
    assert len(keys) == len(records)
    patterns = [(a.resource_type, a.pattern_type, a.resource_name) for a in records]
    for i in range(len(records)):
        for j in range(len(records)):
            assert (keys[i] == keys[j]) == (patterns[i] == patterns[j]), (records[i], records[j])
