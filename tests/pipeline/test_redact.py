"""Cutting SCRAM secrets out of encoded values equals decoding and encoding them again."""

from __future__ import annotations

import io

from fastavro import schemaless_reader, schemaless_writer
from hypothesis import given
from hypothesis import strategies as st

from aclog.pipeline.redact import plan, redact
from aclog.pipeline.reframe import _redacted_schema
from aclog.records import ScramMechanism, UserScramCredentialRecord, encode
from aclog.records.codec import RecordDecodeError, decode_framed, frame_of
from aclog.records.schemas import CURRENT_VERSIONS
from aclog.records.types import RecordType

KIND = RecordType.USER_SCRAM_CREDENTIAL
FRAME = frame_of(KIND, CURRENT_VERSIONS[KIND])
FIELDS = plan(KIND)

credentials = st.builds(
    UserScramCredentialRecord,
    st.text(min_size=1, max_size=40),
    st.sampled_from(list(ScramMechanism)[1:]),
    st.binary(max_size=64),
    st.binary(max_size=80),
    st.binary(max_size=80),
    st.integers(-(1 << 31), (1 << 31) - 1),
)


def _read(value: bytes) -> dict[str, object]:
    """A redacted value's fields, read with the redacted schema after the frame."""
    assert value.startswith(FRAME)
    buffer = io.BytesIO(value[len(FRAME) :])
    fields = schemaless_reader(buffer, _redacted_schema(KIND), None)
    assert buffer.read() == b""  # the whole value was read
    assert isinstance(fields, dict)
    # A code with no mechanism reads UNKNOWN on both paths (the JVM names it by the same rule).
    known = {int(m) for m in ScramMechanism}
    return {**fields, "mechanism": fields["mechanism"] if fields["mechanism"] in known else 0}


def _slow(value: bytes) -> bytes:
    """The redacted value the decode-and-encode path gives."""
    record = decode_framed(value, 0).record
    out = io.BytesIO()
    out.write(FRAME)
    kept = {name: getattr(record, name) for name in ("name", "mechanism", "iterations")}
    schemaless_writer(out, _redacted_schema(KIND), {**kept, "mechanism": int(kept["mechanism"])})
    return out.getvalue()


def test_the_credential_record_has_a_plan_that_drops_exactly_the_secrets() -> None:
    assert FIELDS is not None
    assert [keep for _, keep in FIELDS] == [True, True, False, False, False, True]


@given(credentials)
def test_cutting_equals_decoding_and_encoding_again(record: UserScramCredentialRecord) -> None:
    assert FIELDS is not None
    value = encode(record)
    cut = redact(value, FRAME, FIELDS)
    assert cut == _slow(value)
    assert _read(cut) == {
        "name": record.name,
        "mechanism": int(record.mechanism),
        "iterations": record.iterations,
    }


@given(credentials, st.data())
def test_a_damaged_value_is_left_to_the_codec(
    record: UserScramCredentialRecord, data: st.DataObject
) -> None:
    """Whatever bytes the cut accepts, the codec decodes to the same fields; what the codec
    refuses, the cut refuses too (so the caller's decode raises the codec's error)."""
    assert FIELDS is not None
    value = bytearray(encode(record))
    if data.draw(st.booleans()):
        del value[data.draw(st.integers(len(FRAME), len(value) - 1)) :]
    else:
        value[data.draw(st.integers(len(FRAME), len(value) - 1))] = data.draw(st.integers(0, 255))
    damaged = bytes(value)
    cut = redact(damaged, FRAME, FIELDS)
    try:
        slow = _slow(damaged)
    except RecordDecodeError:
        assert cut is None
        return
    if cut is not None:
        assert _read(cut) == _read(slow)


def test_out_of_range_ints_bad_text_and_trailing_bytes_are_refused() -> None:
    assert FIELDS is not None
    good = encode(UserScramCredentialRecord("alice", ScramMechanism(1), b"s", b"k", b"v", 4096))
    assert redact(good, FRAME, FIELDS) is not None
    assert redact(good + b"\x00", FRAME, FIELDS) is None
    too_big = good[:-2] + b"\x80\x80\x80\x80\x10"  # 2**31 as the iteration count
    assert redact(too_big, FRAME, FIELDS) is None
    bad_text = FRAME + b"\x02\xff" + good[len(FRAME) + 6 :]  # a one-byte name, not UTF-8
    assert redact(bad_text, FRAME, FIELDS) is None
