"""ACL column chunks (snapshot format 2): what a chunk decodes to, and what it refuses."""

from __future__ import annotations

import subprocess
import sys
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.records import AccessControlEntryRecord, RecordType
from aclog.records.codec import record_from_fields, record_to_fields
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.snapshot.acl_columns import (
    ACL_COLUMNS_SCHEMA,
    chunk_arrays,
    chunk_strings,
    decode_chunk,
    encode_chunk,
)
from tests.snapshot.helpers import acl, acl_records


@settings(max_examples=80, deadline=None)
@given(acls=st.lists(acl_records, max_size=60))
def test_a_chunk_decodes_to_the_records_it_was_made_of(
    acls: list[AccessControlEntryRecord],
) -> None:
    decoded = decode_chunk(encode_chunk(acls))
    assert decoded == acls
    # The records are complete: every field (and the UUID's) reads back as the original's.
    for got, want in zip(decoded, acls, strict=True):
        assert record_to_fields(got) == record_to_fields(want)
        assert got.id.is_safe is want.id.is_safe or got.id.is_safe is uuid.SafeUUID.unknown
        assert hash(got) == hash(want)


def test_equal_strings_of_a_chunk_are_one_object() -> None:
    acls = [acl(n) for n in range(30)]
    decoded = decode_chunk(encode_chunk(acls))
    assert len({id(a.host) for a in decoded}) == 1
    assert len({id(a.principal) for a in decoded}) == 7
    assert [a.resource_name for a in decoded] == [a.resource_name for a in acls]


def test_non_ascii_and_empty_strings_round_trip() -> None:
    acls = [
        AccessControlEntryRecord(uuid.UUID(int=i), *fields)
        for i, fields in enumerate(
            [
                (2, "tøpic-ß-日本", 3, "User:bøb", "*", 3, 3),
                (2, "", 3, "User:", "", 3, 2),
                (3, "😀", 4, "User:😀", "::1", 2, 3),
            ]
        )
    ]
    assert decode_chunk(encode_chunk(acls)) == acls


def test_unknown_codes_decode_as_the_row_codec_decodes_them() -> None:
    fields = encode_chunk([acl(1)])
    for name in ("resource_type", "pattern_type", "operation", "permission_type"):
        fields[name] = bytes([99])
    row = record_to_fields(acl(1))
    row.update(resource_type=99, pattern_type=99, operation=99, permission_type=99)
    assert decode_chunk(fields) == [record_from_fields(RecordType.ACCESS_CONTROL_ENTRY, row)]


def test_the_columns_are_the_fields_of_the_current_acl_schema() -> None:
    # A new AccessControlEntryRecord version needs a new column layout and snapshot format.
    assert CURRENT_VERSIONS[RecordType.ACCESS_CONTROL_ENTRY] == 0
    acl_fields = [f["name"] for f in raw_schema(RecordType.ACCESS_CONTROL_ENTRY, 0)["fields"]]
    columns = {f["name"] for f in ACL_COLUMNS_SCHEMA["fields"]}
    assert set(acl_fields) <= columns
    assert columns - set(acl_fields) == {"count", "strings", "string_count", "separator"}


def _broken(change: dict[str, Any]) -> dict[str, Any]:
    fields = encode_chunk([acl(n) for n in range(5)])
    fields.update(change)
    return fields


_BROKEN: list[tuple[dict[str, Any], str]] = [
    ({"count": 6}, "column id holds 80 bytes"),
    ({"id": b"\x00" * 79}, "column id holds 79 bytes"),
    ({"operation": b"\x03" * 4}, "column operation holds 4 codes"),
    ({"principal": b"\x00" * 19}, "column principal holds 19 bytes"),
    ({"string_count": 12}, "holds 11 strings, its header says 12"),
    ({"strings": b"x"}, "holds 1 strings, its header says 11"),
    ({"separator": ""}, "separator is '', not one character"),
    ({"host": b"\xff\x00\x00\x00" * 5}, "column host indexes past the chunk's 11 strings"),
]
"""Changes that break a chunk, and the error each gives."""


@pytest.mark.parametrize(("change", "error"), _BROKEN)
def test_columns_that_do_not_fit_together_are_refused(change: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        decode_chunk(_broken(change))


@pytest.mark.parametrize(("change", "error"), _BROKEN)
def test_chunks_split_together_refuse_the_same_columns(change: dict[str, Any], error: str) -> None:
    # The ACL table's path: the strings of many chunks split at once, by Arrow.
    with pytest.raises(ValueError, match=error):
        chunk_strings([chunk_arrays(_broken(fields), split=False) for fields in ({}, change)])


def test_chunks_split_together_give_the_strings_split_alone() -> None:
    chunks = [encode_chunk([acl(n) for n in range(5)]), encode_chunk([]), encode_chunk([acl(9)])]
    together = chunk_strings([chunk_arrays(c, split=False) for c in chunks]).to_pylist()
    assert together == [s for c in chunks for s in chunk_arrays(c).strings]


def test_strings_holding_the_separator_get_another_one() -> None:
    acls = [
        AccessControlEntryRecord(uuid.UUID(int=1), 2, "a\x00b", 3, "User:\x01", "\x02", 3, 3),
        AccessControlEntryRecord(uuid.UUID(int=2), 2, "\x00", 3, "User:x", "*", 3, 3),
    ]
    fields = encode_chunk(acls)
    assert fields["separator"] == "\x03"
    assert decode_chunk(fields) == acls
    assert encode_chunk([acl(1)])["separator"] == "\x00"


def test_invalid_utf8_is_refused() -> None:
    fields = _broken({})
    fields["strings"] = b"\xff" + fields["strings"][1:]
    with pytest.raises(UnicodeDecodeError):
        decode_chunk(fields)
    with pytest.raises(ValueError, match="a chunk's strings are not UTF-8"):
        chunk_strings([chunk_arrays(fields, split=False)])


def test_splitting_chunks_strings_imports_no_pandas() -> None:
    # pa.array imports pandas on its first call (a third of a second of every snapshot load:
    # the UI's first view, a broker's start); the strings are wrapped from their buffers.
    code = (
        "import sys\n"
        "from aclog.snapshot.acl_columns import chunk_arrays, chunk_strings, encode_chunk\n"
        "from tests.snapshot.helpers import acl\n"
        "fields = [encode_chunk([acl(n) for n in range(k, k + 20)]) for k in (0, 20)]\n"
        "strings = chunk_strings([chunk_arrays(f, split=False) for f in fields])\n"
        "print(len(strings), 'pandas' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    count, pandas = done.stdout.split()
    assert int(count) > 0 and pandas == "False", done.stdout
