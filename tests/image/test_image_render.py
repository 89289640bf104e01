"""The JSON views of ACLs and users."""

from __future__ import annotations

import json
import uuid

from aclog.image import ScramCredential, acl_to_dict, user_to_dict
from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.types import AccessControlEntryRecord


def test_acl_to_dict_uses_kafka_id_text_and_enum_names() -> None:
    record = AccessControlEntryRecord(
        uuid.UUID("00010203-0405-0607-0809-0a0b0c0d0e0f"),
        ResourceType.TRANSACTIONAL_ID,
        "tx-*",
        PatternType.GLOB,
        "User:svc-?",
        "10.0.0.*",
        AclOperation.DESCRIBE_CONFIGS,
        AclPermissionType.DENY,
    )
    rendered = acl_to_dict(record)
    assert rendered == {
        "id": "AAECAwQFBgcICQoLDA0ODw",
        "resource_type": "TRANSACTIONAL_ID",
        "resource_name": "tx-*",
        "pattern_type": "GLOB",
        "principal": "User:svc-?",
        "host": "10.0.0.*",
        "operation": "DESCRIBE_CONFIGS",
        "permission_type": "DENY",
    }
    assert json.loads(json.dumps(rendered)) == rendered


def test_user_to_dict_lists_mechanisms_in_code_order_without_secrets() -> None:
    credentials = {
        ScramMechanism.SCRAM_SHA_512: ScramCredential(b"salt5", b"sk5", b"vk5", 9000),
        ScramMechanism.SCRAM_SHA_256: ScramCredential(b"salt2", b"sk2", b"vk2", 4096),
    }
    rendered = user_to_dict("alice", credentials)
    assert rendered == {
        "name": "alice",
        "credentials": [
            {"mechanism": "SCRAM-SHA-256", "iterations": 4096},
            {"mechanism": "SCRAM-SHA-512", "iterations": 9000},
        ],
    }
    assert "salt" not in json.dumps(rendered)
