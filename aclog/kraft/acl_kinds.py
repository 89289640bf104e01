"""A KRaft data batch of ACL grants and removals as the columns aclog's own decoder gives:
:func:`decode_acl_kinds` makes the :class:`~aclog.records.decoded.DecodedRecords` of such a
batch straight from its bytes (:class:`~aclog.kraft.acl_batch.AclValues`), one
:class:`~aclog.records.column_layout.KindColumns` per kind (grants, removals), so replay takes
a KRaft tail batch onto the ACL table the way it takes one of aclog's own
(:meth:`aclog.image.MetadataDelta.replay_decoded`): no record object, no Python string per
value. Its records are built only when someone reads them (the same ones the records path
decodes: :func:`aclog.records.column_records.acl_rows` over the same values), e.g. when the
table declines the batch and the reference replays it record by record.

Both kinds are written as KRaft version 0: the (type, version) of every record is
``(RecordType, 0)``, as :func:`aclog.replay.kraft_batches.kraft_decoded_batch` says.

Thread-safe (pure function). Cost: the numpy passes of :mod:`aclog.kraft.acl_batch` plus a
few Arrow wraps of their buffers; nothing per record.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from aclog.kraft.acl_batch import MIN_RECORDS, AclColumns, acl_values
from aclog.records.column_layout import KindColumns
from aclog.records.column_records import acl_rows
from aclog.records.decoded import DecodedRecords
from aclog.records.types import RecordType

_ID_TYPE = pa.binary(16)
_CODE_COLUMNS = ("resource_type", "pattern_type", "operation", "permission_type")
_STRING_COLUMNS = ("resource_name", "principal", "host")
_GRANT = (RecordType.ACCESS_CONTROL_ENTRY, 0)
_REMOVAL = (RecordType.REMOVE_ACCESS_CONTROL_ENTRY, 0)


def decode_acl_kinds(
    data: bytes, count: int, *, min_records: int = MIN_RECORDS
) -> DecodedRecords | None:
    """The records of the uncompressed data batch ``data`` (header included, CRC checked),
    whose header says ``count`` records, as columns, when
    :func:`~aclog.kraft.acl_batch.decode_acl_batch` would decode it; else ``None`` (the
    general path decides, and raises any error naming the record's offset)."""
    values = acl_values(data, count, min_records=min_records)
    if values is None:
        return None
    kinds: list[KindColumns] = []
    kind_rows = []
    if len(values.adds):
        grants = values.grants()
        if grants is None:
            return None
        kinds.append(KindColumns(_GRANT[0], 0, values.adds, _grant_columns(grants)))
        kind_rows.append((_GRANT, values.adds))
    if len(values.removes):
        ids = values.removal_ids()
        if ids is None:
            return None
        kinds.append(KindColumns(_REMOVAL[0], 0, values.removes, {"id": _id_column(ids)}))
        kind_rows.append((_REMOVAL, values.removes))
    return DecodedRecords(count, kinds, [], kind_rows, acl_rows)


def _grant_columns(grants: AclColumns) -> dict[str, pa.Array]:
    """The columns of the grants as the columnar decoder names and types them (codes as
    ``int32``: the code of the member each record holds)."""
    columns: dict[str, pa.Array] = {"id": _id_column(grants.ids)}
    for name, codes in zip(_CODE_COLUMNS, grants.codes, strict=True):
        columns[name] = pa.array(codes.astype(np.int32))
    columns.update(zip(_STRING_COLUMNS, grants.strings, strict=True))
    return columns


def _id_column(ids: bytes) -> pa.Array:
    """Ids given as 16 bytes each, back to back, as a ``fixed_size_binary[16]`` column."""
    return pa.FixedSizeBinaryArray.from_buffers(_ID_TYPE, len(ids) // 16, [None, pa.py_buffer(ids)])
