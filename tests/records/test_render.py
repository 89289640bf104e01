"""Printable forms: SCRAM secrets are redacted unless asked, JSON uses Kafka's names, and an
ACL's fast path renders it as the general path does."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    RecordType,
    ResourceType,
    record_summary,
    record_to_dict,
)
from aclog.records.render import fields_to_dict
from tests.records.samples import SAMPLES

SCRAM = SAMPLES[(RecordType.USER_SCRAM_CREDENTIAL, 0)]


def test_scram_secrets_are_redacted_by_default() -> None:
    data = record_to_dict(SCRAM)
    assert data == {
        "name": "alice",
        "mechanism": "SCRAM-SHA-256",
        "salt": "(redacted)",
        "stored_key": "(redacted)",
        "server_key": "(redacted)",
        "iterations": 8192,
    }
    assert "stored-key" not in repr(SCRAM)
    assert "(redacted)" in record_summary(SCRAM)


def test_secrets_show_as_base64_when_not_redacted() -> None:
    data = record_to_dict(SCRAM, redact=False)
    assert data["salt"] == "c2FsdA=="
    assert data["stored_key"] == "c3RvcmVkLWtleQ=="


def test_acl_json_shape_uses_upper_case_names_and_kafka_uuid_text() -> None:
    data = record_to_dict(SAMPLES[(RecordType.ACCESS_CONTROL_ENTRY, 0)])
    assert data == {
        "id": "AAECAwQFBgcICQoLDA0ODw",
        "resource_type": "TOPIC",
        "resource_name": "foo",
        "pattern_type": "LITERAL",
        "principal": "User:alice",
        "host": "*",
        "operation": "READ",
        "permission_type": "ALLOW",
    }


@settings(max_examples=200, deadline=None)
@given(
    acl=st.builds(
        AccessControlEntryRecord,
        st.uuids(),
        st.sampled_from(list(ResourceType)),
        st.text(),
        st.sampled_from(list(PatternType)),
        st.text(),
        st.text(),
        st.sampled_from(list(AclOperation)),
        st.sampled_from(list(AclPermissionType)),
    )
)
def test_an_acl_renders_as_the_general_path_renders_it(acl: AccessControlEntryRecord) -> None:
    fast = record_to_dict(acl)
    assert fast == fields_to_dict(acl) and list(fast) == list(fields_to_dict(acl))
    numbered = dataclasses.replace(acl, operation=99)  # a code with no member: the general path
    assert record_to_dict(numbered) == {**fast, "operation": 99}
