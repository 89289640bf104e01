"""The Avro schema of every (record type, version), loaded from the checked-in ``.avsc`` files.

``CURRENT_VERSIONS`` says which version the writer uses for each type. A schema file is never
edited after release: a change ships as a new version whose added fields have defaults, so that
Avro schema resolution reads every older version as the current one.

Thread-safe: schemas are parsed once, on first use, under the import lock of ``functools.cache``.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from fastavro import parse_schema

from aclog.records.types import RecordType

CURRENT_VERSIONS: dict[RecordType, int] = {
    RecordType.USER_SCRAM_CREDENTIAL: 0,
    RecordType.ACCESS_CONTROL_ENTRY: 0,
    RecordType.REMOVE_ACCESS_CONTROL_ENTRY: 0,
    RecordType.NO_OP: 0,
    RecordType.REMOVE_USER_SCRAM_CREDENTIAL: 0,
    RecordType.LEADER_CHANGE: 0,
    RecordType.REQUEST_CONTEXT: 1,
}

_FILE_NAMES: dict[RecordType, str] = {
    RecordType.USER_SCRAM_CREDENTIAL: "UserScramCredentialRecord",
    RecordType.ACCESS_CONTROL_ENTRY: "AccessControlEntryRecord",
    RecordType.REMOVE_ACCESS_CONTROL_ENTRY: "RemoveAccessControlEntryRecord",
    RecordType.NO_OP: "NoOpRecord",
    RecordType.REMOVE_USER_SCRAM_CREDENTIAL: "RemoveUserScramCredentialRecord",
    RecordType.LEADER_CHANGE: "LeaderChangeRecord",
    RecordType.REQUEST_CONTEXT: "RequestContextRecord",
}


def known_versions(record_type: RecordType) -> range:
    """Every version of ``record_type`` this build can read: 0 through the current one."""
    return range(CURRENT_VERSIONS[record_type] + 1)


def schema_file_name(record_type: RecordType, version: int) -> str:
    """The ``.avsc`` file holding one (type, version), for example ``NoOpRecord.v0.avsc``."""
    return f"{_FILE_NAMES[record_type]}.v{version}.avsc"


@cache
def raw_schema(record_type: RecordType, version: int) -> dict[str, Any]:
    """The schema of one (type, version) as written in its ``.avsc`` file."""
    text = (
        resources.files("aclog.records")
        .joinpath("schemas", schema_file_name(record_type, version))
        .read_text(encoding="utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def parsed_schema(record_type: RecordType, version: int) -> Any:
    """The fastavro-parsed schema of one (type, version), parsed once and cached."""
    return parse_schema(raw_schema(record_type, version))
