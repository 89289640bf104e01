"""The flat record schema the ``aclog`` data source produces: one row per record.

Every row says where the record sits (offset, epoch, batch, time), who asked for the change (the
batch's :class:`~aclog.records.RequestContextRecord`), and the record's fields flattened into
columns. Enum values are the upper-case names every ``--json`` output uses, ACL ids are Kafka's
base64 text, mechanisms are SASL names (``SCRAM-SHA-256``). SCRAM salts and keys have no column:
they never leave the decoder.

Rows from a snapshot (``source = 'snapshot'``) carry the snapshot's last offset, epoch and time in
``offset``/``epoch``/``timestamp_ms``, ``position`` is their index in the file and the batch
columns are null. For log rows ``position`` is the record's index in its batch, so ``(offset,
position)`` orders every row the way replay applies them.

Immutable; thread-safe.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from pyspark.sql.types import (
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from aclog.records.types import ACL_KEY_FIELDS, RecordType

SOURCE_LOG = "log"
SOURCE_SNAPSHOT = "snapshot"

ACL_TYPE = "AccessControlEntryRecord"
REMOVE_ACL_TYPE = "RemoveAccessControlEntryRecord"
SCRAM_TYPE = "UserScramCredentialRecord"
REMOVE_SCRAM_TYPE = "RemoveUserScramCredentialRecord"
CONTEXT_TYPE = "RequestContextRecord"

ACL_CODE = int(RecordType.ACCESS_CONTROL_ENTRY)
REMOVE_ACL_CODE = int(RecordType.REMOVE_ACCESS_CONTROL_ENTRY)
SCRAM_CODE = int(RecordType.USER_SCRAM_CREDENTIAL)
REMOVE_SCRAM_CODE = int(RecordType.REMOVE_USER_SCRAM_CREDENTIAL)
"""The ``type_code`` of those types: jobs that only tell types apart read the int column, which
costs Spark less to carry and cache than the name."""

ACL_FIELDS = ACL_KEY_FIELDS
"""The ACL columns besides ``acl_id``: named as the record's fields, in the order ``aclog``'s ACL
JSON uses."""

_L, _I, _S = LongType(), IntegerType(), StringType()

COLUMNS: tuple[tuple[str, Any], ...] = (
    ("offset", _L),
    ("epoch", _I),
    ("timestamp_ms", _L),
    ("timestamp", TimestampType()),
    ("batch_base_offset", _L),
    ("batch_last_offset", _L),
    ("source", _S),
    ("position", _L),
    ("type", _S),
    ("type_code", _I),
    ("version", _I),
    ("author_principal", _S),
    ("author_address", _S),
    ("author_client_id", _S),
    ("author_api", _S),
    ("acl_id", _S),
    ("resource_type", _S),
    ("resource_name", _S),
    ("pattern_type", _S),
    ("principal", _S),
    ("host", _S),
    ("operation", _S),
    ("permission_type", _S),
    ("user", _S),
    ("mechanism", _S),
    ("iterations", _I),
    ("leader_id", _I),
)
"""(name, Spark type) of every column, in order."""

COLUMN_NAMES: tuple[str, ...] = tuple(name for name, _ in COLUMNS)

RECORD_SCHEMA = StructType([StructField(name, kind, nullable=True) for name, kind in COLUMNS])
"""The Spark schema of ``spark.read.format("aclog")``."""

_ARROW_TYPES = {
    "LongType()": pa.int64(),
    "IntegerType()": pa.int32(),
    "StringType()": pa.string(),
    "TimestampType()": pa.timestamp("us", tz="UTC"),
}

ARROW_SCHEMA = pa.schema(
    [pa.field(name, _ARROW_TYPES[repr(kind)], nullable=True) for name, kind in COLUMNS]
)
"""The Arrow schema of the batches the reader yields; it must equal what Spark derives from
:data:`RECORD_SCHEMA` (Spark checks the first batch with ``pa.Schema.equals``)."""
