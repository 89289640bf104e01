"""The ACL table's vectorised reads (``get_many``, ``contains_words``, ``ids``) give what its
one-id reads and its records give, on tables of several segments with removed rows."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image.acl_column_rows import of_records, words_of_id_bytes
from aclog.image.acl_table import AclTable
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord


def acl(number: int) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        uuid.UUID(int=number * 0x1_0000_0001_0000_0001),  # both words differ between ids
        ResourceType.TOPIC,
        f"topic-{number}",
        PatternType.LITERAL,
        "User:alice",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 60), unique=True, max_size=30),
    st.lists(st.integers(0, 60), unique=True, max_size=30),
    st.data(),
)
def test_vectorised_reads_equal_the_one_id_reads(base, more, data) -> None:
    added = [n for n in more if n not in base]
    gone = data.draw(st.lists(st.sampled_from(base), unique=True)) if base else []
    first = AclTable.from_records([acl(n) for n in base])
    assert first is not None
    removal = words_of_id_bytes(b"".join(acl(n).id.bytes for n in gone))
    table = first.applied(of_records([acl(n) for n in added]), removal)
    assert table is not None
    asked = [acl(n).id for n in data.draw(st.lists(st.integers(0, 70), max_size=20))]
    assert table.get_many(asked) == [table.get(i) for i in asked]
    words = words_of_id_bytes(b"".join(i.bytes for i in asked))
    assert table.contains_words(words).tolist() == [i in table for i in asked]
    hi, lo = table.ids()
    ids = [uuid.UUID(int=int(h) << 64 | int(low)) for h, low in zip(hi, lo, strict=True)]
    assert ids == [record.id for record in table.records()]
