"""The ACL table and the other records of a KRaft checkpoint read as parts
(:func:`aclog.kraft.read_checkpoint_parts`): its batches of grants as column blocks
(:class:`aclog.kraft.AclColumns`), everything else as records, in file order.

The blocks, and the grants read as records between them, become one
:class:`~aclog.image.acl_table.AclTable` in file order (what restating the records builds);
the other records (SCRAM credentials, leader changes, no-ops) are returned to be replayed
beside it: they are independent of the ACLs.

Thread-safe (pure function). Cost: O(ACLs) numpy passes plus one Python step per record that
is not in a block.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aclog.image.acl_column_rows import AclColumnRows, of_arrays, of_records
from aclog.image.acl_table import AclTable
from aclog.kraft import AclColumns
from aclog.records.types import AccessControlEntryRecord, Record, RemoveAccessControlEntryRecord


def restated_kraft_table(
    parts: Sequence[Record | AclColumns],
) -> tuple[AclTable, list[Record]] | None:
    """(the table of the snapshot's grants, its other records), or ``None`` when the parts
    hold an ACL removal or the table refuses them (an id or a binding stated twice): the
    caller then restates the records, which raises the error naming it."""
    rows: list[AclColumnRows] = []
    blocks: list[AclColumns] = []
    grants: list[AccessControlEntryRecord] = []
    others: list[Record] = []
    for part in parts:
        kind = type(part)
        if kind is AclColumns:
            if grants:
                rows.append(of_records(grants))
                grants = []
            blocks.append(part)  # type: ignore[arg-type]
            continue
        if blocks:
            rows.append(_of_blocks(blocks))
            blocks = []
        if kind is AccessControlEntryRecord:
            grants.append(part)  # type: ignore[arg-type]
        elif kind is RemoveAccessControlEntryRecord:
            return None
        else:
            others.append(part)  # type: ignore[arg-type]
    rows += [_of_blocks(blocks)] if blocks else [of_records(grants)] if grants else []
    table = AclTable.build(rows)
    return None if table is None else (table, others)


def _of_blocks(blocks: list[AclColumns]) -> AclColumnRows:
    """The rows of consecutive column blocks, as one (one pool lookup for them all)."""
    codes = [np.concatenate(field) for field in zip(*(b.codes for b in blocks), strict=True)]
    strings = list(zip(*(b.strings for b in blocks), strict=True))
    return of_arrays(b"".join([b.ids for b in blocks]), codes, strings)
