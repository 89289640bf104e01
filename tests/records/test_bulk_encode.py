"""The batch encoder writes exactly the bytes of the one-record encoder, and its errors."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordType,
    RemoveAccessControlEntryRecord,
    ResourceType,
    encode,
)
from aclog.records.bulk_encode import MIN_RUN, encode_many
from aclog.records.schemas import CURRENT_VERSIONS
from tests.records.samples import SAMPLES

GOLDEN = Path(__file__).parent / "golden"
# Any text (non-ASCII and strings past the 8 KiB the length table covers included).
_text = st.one_of(st.text(max_size=12), st.text(min_size=8190, max_size=8200, alphabet="ab"))
_uuids = st.builds(uuid.UUID, int=st.integers(0, (1 << 128) - 1))


def _codes(enum: type) -> st.SearchStrategy[object]:
    # Members, and plain ints in their place (what a caller may pass; fastavro writes both).
    return st.one_of(st.sampled_from(list(enum)), st.integers(0, 20))


_acls = st.builds(
    AccessControlEntryRecord,
    _uuids,
    _codes(ResourceType),
    _text,
    _codes(PatternType),
    _text,
    _text,
    _codes(AclOperation),
    _codes(AclPermissionType),
)
_records = st.one_of(
    _acls,
    _uuids.map(RemoveAccessControlEntryRecord),
    st.sampled_from([SAMPLES[(t, v)] for t in RecordType for v in [CURRENT_VERSIONS[t]]]),
)
_runs = st.lists(
    st.one_of(_records.map(lambda r: [r]), st.lists(_acls, min_size=MIN_RUN, max_size=3 * MIN_RUN)),
    max_size=6,
).map(lambda runs: [record for run in runs for record in run])


@given(_runs)
def test_encode_many_writes_what_encode_writes(records) -> None:
    assert encode_many(records) == [encode(r) for r in records]


def test_golden_acl_records_in_a_run() -> None:
    """The golden bytes come out of the batch path too (a run of one sample, and of removals)."""
    for record_type in (RecordType.ACCESS_CONTROL_ENTRY, RecordType.REMOVE_ACCESS_CONTROL_ENTRY):
        golden = (GOLDEN / f"{record_type.name}.v0.hex").read_text().strip()
        values = encode_many([SAMPLES[(record_type, 0)]] * MIN_RUN)
        assert [v.hex() for v in values] == [golden] * MIN_RUN


@pytest.mark.parametrize(
    "bad",
    [
        {"resource_name": b"bytes"},
        {"principal": None},
        {"host": "\udc80"},  # a lone surrogate: not UTF-8
        {"operation": 2.0},
        {"operation": "2"},
        {"operation": True},
        {"permission_type": PatternType.PREFIXED},
        {"pattern_type": -1 << 70},
        {"pattern_type": -1},
        {"resource_type": 1 << 40},
    ],
)
def test_a_run_with_an_odd_field_does_what_encode_does(bad: dict[str, object]) -> None:
    """Writes the same bytes, or raises the same error."""
    good = SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)]
    fields = {
        name: getattr(good, name)
        for name in AccessControlEntryRecord.__dataclass_fields__  # type: ignore[attr-defined]
    }
    broken = AccessControlEntryRecord(**{**fields, **bad})  # type: ignore[arg-type]
    run = [good] * MIN_RUN + [broken] + [good]
    try:
        expected = [encode(r) for r in run]
    except Exception as error:
        with pytest.raises(type(error)) as got:
            encode_many(run)
        assert str(got.value) == str(error)
    else:
        assert encode_many(run) == expected
