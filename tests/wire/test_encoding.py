"""The responses aclog encodes itself are byte for byte what kafka-python's message classes
encode: DescribeAcls bodies and the cached ApiVersions body at every served version, with the
response header and frame; every served response's header and frame; and request headers decode
as kafka-python decodes them."""

from __future__ import annotations

import io
import struct
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.protocol.admin import DescribeAclsResponse

from aclog.acl import ApiError, Errors
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from aclog.varint import uvarint
from aclog.wire.apis import ADVERTISED_VERSIONS, APIS, api_versions
from aclog.wire.apis.describe_acls import encode_body
from aclog.wire.context import Api
from aclog.wire.errors import CloseConnection
from aclog.wire.protocol import EncodedResponse, decode_request, encode_response

_Resource = DescribeAclsResponse.DescribeAclsResource
_Acl = _Resource.AclDescription

# Non-ASCII, empty and long (a 2-byte varint length) strings included.
texts = st.sampled_from(["", "a", "t\u00e9st", "\U0001f600", "x" * 200, "User:alice", "*"])
acls = st.lists(
    st.builds(
        lambda i, rt, name, pt, principal, host, op, perm: AccessControlEntryRecord(
            uuid.UUID(int=i), rt, name, pt, principal, host, op, perm
        ),
        st.integers(1, 2**64),
        st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER]),
        texts,
        st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
        texts,
        texts,
        st.sampled_from(list(AclOperation)[2:]),
        st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]),
    ),
    max_size=40,
)
errors = st.sampled_from(
    [
        ApiError.NONE,
        ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED, "denied"),
        ApiError(Errors.UNKNOWN_SERVER_ERROR, ""),
    ]
)


def _reference(version: int, error: ApiError, records: list[AccessControlEntryRecord]) -> bytes:
    grouped: dict[tuple[int, str, int], list[object]] = {}
    for acl in records:
        key = (int(acl.resource_type), acl.resource_name, int(acl.pattern_type))
        grouped.setdefault(key, []).append(
            _Acl(
                principal=acl.principal,
                host=acl.host,
                operation=int(acl.operation),
                permission_type=int(acl.permission_type),
            )
        )
    resources = [
        _Resource(resource_type=rt, resource_name=name, pattern_type=pt, acls=entries)
        for (rt, name, pt), entries in grouped.items()
    ]
    response = DescribeAclsResponse(
        version=version,
        throttle_time_ms=0,
        error_code=error.code,
        error_message=error.message,
        resources=resources,
    )
    return encode_response(response, 12345)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([1, 2, 3]), errors, acls)
def test_describe_acls_body_matches_kafka_python(
    version: int, error: ApiError, records: list[AccessControlEntryRecord]
) -> None:
    encoded = EncodedResponse(encode_body(version, error, records), version >= 2)
    assert encode_response(encoded, 12345) == _reference(version, error, records)


def test_describe_acls_many_resources_need_a_long_array_length() -> None:
    records = [
        AccessControlEntryRecord(
            uuid.UUID(int=i + 1),
            ResourceType.TOPIC,
            f"t{i}",
            PatternType.LITERAL,
            "User:a",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )
        for i in range(300)
    ]
    for version in (1, 2, 3):
        encoded = EncodedResponse(encode_body(version, ApiError.NONE, records), version >= 2)
        assert encode_response(encoded, 12345) == _reference(version, ApiError.NONE, records)


def test_uvarint() -> None:
    assert uvarint(0) == b"\x00"
    assert uvarint(127) == b"\x7f"
    assert uvarint(128) == b"\x80\x01"
    assert uvarint(300) == b"\xac\x02"
    assert uvarint(2**21) == b"\x80\x80\x80\x01"


def test_api_versions_cached_body_matches_kafka_python() -> None:
    for version in range(api_versions.API.max_version + 1):
        body = api_versions._success_body(version, tuple(ADVERTISED_VERSIONS.items()))
        reference = api_versions._response(version, 0, api_versions._api_keys(ADVERTISED_VERSIONS))
        cached = encode_response(EncodedResponse(body, flexible=False), 99)
        assert cached == encode_response(reference, 99)


SERVED = [(api, version) for api in APIS.values() for version in api.versions]


def _name(case: tuple[Api, int]) -> str:
    return f"{case[0].name}-v{case[1]}"


@pytest.mark.parametrize("case", SERVED, ids=_name)
def test_response_header_and_frame_match_kafka_python(case: tuple[Api, int]) -> None:
    api, version = case
    theirs = api.response_class(version=version)
    theirs.with_header(correlation_id=-7)
    expected = bytes(theirs.encode(header=True, framed=True))
    assert encode_response(api.response_class(version=version), -7) == expected


@settings(max_examples=300, deadline=None)
@given(
    case=st.sampled_from(SERVED),
    client_id=st.one_of(st.none(), texts),
    correlation_id=st.integers(-(2**31), 2**31 - 1),
    tags=st.lists(st.tuples(st.integers(0, 300), st.binary(max_size=3)), max_size=3),
)
def test_request_headers_decode_as_kafka_python_decodes_them(
    case: tuple[Api, int],
    client_id: str | None,
    correlation_id: int,
    tags: list[tuple[int, bytes]],
) -> None:
    api, version = case
    flexible = api.request_class.flexible_version_q(version)
    size = (
        struct.pack(">h", -1) if client_id is None else struct.pack(">h", len(client_id.encode()))
    )
    raw = struct.pack(">hhi", api.key, version, correlation_id) + size
    raw += b"" if client_id is None else client_id.encode()
    if flexible:  # header v2: tagged fields, which kafka-python reads and aclog skips
        raw += uvarint(len(tags)) + b"".join(uvarint(t) + uvarint(len(v)) + v for t, v in tags)
    body = bytes(api.request_class(version=version).encode())
    try:
        body_expected = api.request_class.decode(body, version=version)
    except Exception:
        return  # an empty body is not valid for this request: the header is all that matters
    header, decoded = decode_request(api.request_class, raw + body, version)
    theirs = api.request_class.parse_header(io.BytesIO(raw), version=version)
    assert (header.api_key, header.api_version) == (api.key, version)
    assert (header.correlation_id, header.client_id) == (theirs.correlation_id, theirs.client_id)
    assert decoded == body_expected


@pytest.mark.parametrize(
    "client_id",
    [struct.pack(">h", 5) + b"ab", struct.pack(">h", -2), struct.pack(">h", 2) + b"\xff\xfe"],
    ids=["past the frame", "negative length", "not utf-8"],
)
def test_a_malformed_request_header_closes_the_connection(client_id: bytes) -> None:
    frame = struct.pack(">hhi", 3, 1, 9) + client_id
    with pytest.raises(CloseConnection, match="malformed MetadataRequest v1"):
        decode_request(APIS[3].request_class, frame, 1)


@pytest.mark.parametrize(
    ("tags", "reason"),
    [
        (b"\x01\x00\x05ab", "ValueError: the header's tagged fields run past the end of the frame"),
        (b"\x01\xff\xff\xff\xff\xff\x00", "ValueError: a malformed unsigned varint"),
    ],
    ids=["field past the frame", "varint over 5 bytes"],
)
def test_malformed_header_tagged_fields_close_the_connection(tags: bytes, reason: str) -> None:
    frame = struct.pack(">hhih", 18, 3, 9, -1) + tags
    with pytest.raises(CloseConnection, match=f"malformed ApiVersionsRequest v3: {reason}"):
        decode_request(APIS[18].request_class, frame, 3)
