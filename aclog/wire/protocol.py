"""Request decoding and response encoding with kafka-python's schema-generated message classes.

A request frame is ``int32 size | int16 api_key | int16 api_version | int32 correlation_id |
client_id | [tagged fields] | body``. kafka-python decodes it leniently: it lets a string run past
the end of the frame and reads a null into a non-nullable field. Kafka's parser rejects both, so
:func:`decode_request` checks them and raises :class:`~aclog.wire.errors.CloseConnection`, as
Kafka closes such a connection. Bytes after the body are ignored, as Kafka ignores them
(librdkafka 2.16 sends one extra zero byte after AlterUserScramCredentials).

kafka-python compiles each (message, version) codec on first use, and compiling is not
thread-safe; :func:`warm_up` compiles every codec the listener uses before any worker thread
runs. After that, decoding and encoding are thread-safe (encode buffers are thread-local).

Cost: O(request size) to decode (the wire suite of ``make bench`` times whole requests); the
null check walks the schema once per field.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kafka.protocol.metadata import ApiVersionsResponse

from aclog.varint import skip_tagged_fields
from aclog.wire.errors import CloseConnection

HEADER_PREFIX = struct.Struct(">hhi")
"""The part of every request header that does not depend on the version."""

_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class RequestHeader:
    """A decoded request header."""

    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None


def peek_header(payload: bytes) -> tuple[int, int, int]:
    """``(api_key, api_version, correlation_id)`` of a request frame's payload."""
    if len(payload) < HEADER_PREFIX.size:
        raise CloseConnection(
            f"a frame of {len(payload)} bytes is too short to hold a request header"
        )
    api_key, api_version, correlation_id = HEADER_PREFIX.unpack_from(payload, 0)
    return int(api_key), int(api_version), int(correlation_id)


def decode_request(request_class: Any, payload: bytes, version: int) -> tuple[RequestHeader, Any]:
    """The header and body of a request, strictly: the body must fit in the frame and every
    non-nullable string, bytes, array or struct must be present."""
    name = request_class.name
    try:
        flexible = request_class.flexible_version_q(version)
        header, start = _decode_header(payload, flexible)
        decoder = request_class._struct.compiled_decode_from(
            version, compact=flexible, tagged=flexible, data_class=request_class[None]
        )
        body, end = decoder(memoryview(payload), start)
    except Exception as error:  # any codec failure means the bytes are not this request
        raise CloseConnection(
            f"malformed {name} v{version}: {type(error).__name__}: {error}"
        ) from None
    if end > len(payload):
        raise CloseConnection(
            f"malformed {name} v{version}: the body runs past the end of the frame"
        )
    missing = _first_null_field(request_class, body, version)
    if missing is not None:
        raise CloseConnection(f"malformed {name} v{version}: non-nullable field {missing} is null")
    return header, body


_CLIENT_ID_SIZE = struct.Struct(">h")


def _decode_header(payload: bytes, flexible: bool) -> tuple[RequestHeader, int]:
    """A request header (v1, or v2 when ``flexible``) and where the body starts. Decoded here
    rather than by kafka-python's generic codec, which costs more than the body of a small
    request: api key, version and correlation id, a nullable (never compact) client id, then
    in v2 tagged fields, which no header field uses yet and are skipped."""
    api_key, api_version, correlation_id = HEADER_PREFIX.unpack_from(payload, 0)
    (size,) = _CLIENT_ID_SIZE.unpack_from(payload, HEADER_PREFIX.size)
    position = HEADER_PREFIX.size + _CLIENT_ID_SIZE.size
    client_id = None
    if size >= 0:
        if position + size > len(payload):
            raise ValueError("the client id runs past the end of the frame")
        client_id = payload[position : position + size].decode("utf-8")
        position += size
    elif size != -1:
        raise ValueError(f"client id length {size}")
    if flexible:
        try:
            position = skip_tagged_fields(payload, position)
        except ValueError:  # a varint over 5 bytes
            raise ValueError("a malformed unsigned varint") from None
        except IndexError:  # a varint or a field cut short by the end of the frame
            raise ValueError("the header's tagged fields run past the end of the frame") from None
    return RequestHeader(api_key, api_version, correlation_id, client_id), position


@dataclass(frozen=True, slots=True)
class EncodedResponse:
    """A response body a handler encoded itself, where kafka-python's message classes would
    cost too much (one Python object per array element): the same bytes, built directly."""

    body: bytes
    flexible: bool
    """Whether the version is flexible: its response header then ends with tagged fields."""


_CORRELATION = struct.Struct(">i")
_FRAME_HEAD = struct.Struct(">ii")


def encode_response(response: Any, correlation_id: int) -> bytes:
    """The framed response (size prefix, response header, body), ready to write. The header
    is written here: kafka-python's generic header codec costs more than a small body."""
    if isinstance(response, EncodedResponse):
        body, tagged = response.body, response.flexible
    else:
        body = response.encode(header=False)
        version = response.API_VERSION
        tagged = response.flexible_version_q(version) and response.API_KEY not in _HEADER_V0
    header_size = _CORRELATION.size + (1 if tagged else 0)
    head = _FRAME_HEAD.pack(header_size + len(body), correlation_id)
    return head + (b"\x00" if tagged else b"") + body  # no tagged fields: a count of 0


_HEADER_V0 = frozenset({ApiVersionsResponse.API_KEY})
"""APIs whose responses always use header v0, flexible versions included: ApiVersions. A client
sends it before it knows which versions the broker serves, and a broker that does not serve the
requested version answers with a v0 body; a header without tagged fields lets the client read
the correlation id either way (KIP-511; kafka-python's ApiVersionsResponse does the same)."""


def encode_raw_frame(payload: bytes) -> bytes:
    """``payload`` behind an int32 size prefix (SASL tokens after a v0 SaslHandshake)."""
    return struct.pack(">i", len(payload)) + payload


def warm_up(classes: Iterable[tuple[Any, Any, Sequence[int]]]) -> None:
    """Compile the codecs of every (request class, response class, versions) up front."""
    for request_class, response_class, versions in classes:
        for version in versions:
            flexible = request_class.flexible_version_q(version)
            request_class._struct.compiled_decode_from(
                version, compact=flexible, tagged=flexible, data_class=request_class[None]
            )
            flexible = response_class.flexible_version_q(version)
            response_class._struct.compiled_encode_into(version, compact=flexible, tagged=flexible)


def _in_versions(spec: str | None, version: int) -> bool:
    if spec is None or spec.strip() in ("", "none"):
        return False
    if spec.endswith("+"):
        return version >= int(spec[:-1])
    low, _, high = spec.partition("-")
    return int(low) <= version <= int(high or low)


@dataclass(frozen=True, slots=True)
class _Check:
    """One field the null check looks at, compiled from the schema for one version."""

    name: str
    nullable: bool
    """Null is allowed (else a null string, bytes, array or struct is an error)."""
    array: bool
    fields: tuple[_Check, ...] | None
    """The checks of a struct, or of each element of an array of structs."""
    null_elements: bool
    """An array of strings or bytes, whose elements must not be null."""


_PLANS: dict[tuple[Any, int], tuple[_Check, ...]] = {}


def _plan(fields: Sequence[Mapping[str, Any]], version: int) -> tuple[_Check, ...]:
    """The checks for ``fields`` at ``version``: only strings, bytes, arrays and structs (other
    types cannot be null-checked), each with its nested checks."""
    checks = []
    for field in fields:
        if "tag" in field or not _in_versions(field.get("versions"), version):
            continue
        kind = str(field["type"])
        array = kind.startswith("[]")
        nested = _plan(field["fields"], version) if "fields" in field else None
        if not (array or nested is not None or kind in ("string", "bytes")):
            continue
        checks.append(
            _Check(
                _SNAKE.sub("_", str(field["name"])).lower(),
                _in_versions(field.get("nullableVersions"), version),
                array,
                nested,
                array and nested is None and kind[2:] in ("string", "bytes"),
            )
        )
    return tuple(checks)


def _first_null_field(request_class: Any, message: Any, version: int) -> str | None:
    """The dotted name of the first non-nullable field that decoded as null, else ``None``.
    The schema is compiled into checks once per (request class, version): walking the JSON
    schema for every request cost about a fifth of answering a small one."""
    key = (request_class, version)
    plan = _PLANS.get(key)
    if plan is None:  # two threads may both build it; they build the same thing
        plan = _PLANS[key] = _plan(request_class.json["fields"], version)
    return _first_null(message, plan, "")


def _first_null(message: Any, checks: tuple[_Check, ...], prefix: str) -> str | None:
    for check in checks:
        value = getattr(message, check.name, None)
        if value is None:
            if not check.nullable:
                return prefix + check.name
            continue
        if check.fields is not None:
            items = enumerate(value) if check.array else ((None, value),)
            for index, item in items:
                where = f"[{index}]." if check.array else "."
                missing = _first_null(item, check.fields, f"{prefix}{check.name}{where}")
                if missing is not None:
                    return missing
        elif check.null_elements and any(item is None for item in value):
            return f"{prefix}{check.name}[]"
    return None
