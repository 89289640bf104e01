"""Reconciling a KRaft follow that fell behind a roll: the records that take the state a data
directory holds to the state a KRaft snapshot holds.

When Kafka deleted the segments after the last batch a follow imported (a newer snapshot made
them unneeded), the changes in them cannot be read one by one any more. ``aclog import
--from-kraft --follow --reconcile`` then records their net effect instead of stopping: one
batch taking the data directory's state to the snapshot's (:func:`reconcile_records`), after
which the follow goes on from the snapshot's end offset. Both states are rebuilt the one way,
:func:`aclog.replay.rebuild_image`.

Pure (:func:`reconcile_records`) or read-only (:func:`kraft_reconcile`); thread-safe. Cost: two
rebuilds, then O(ACLs + credentials).
"""

from __future__ import annotations

from pathlib import Path

from aclog.image import MetadataImage
from aclog.image.acl_reads import acls_by_id
from aclog.records import (
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from aclog.replay.rebuild import rebuild_image


def reconcile_records(held: MetadataImage, wanted: MetadataImage) -> list[Record]:
    """The records that turn ``held`` into ``wanted``: ACLs removed (by id) and added, SCRAM
    credentials set (new or changed) and removed, in a stable order.

    >>> reconcile_records(MetadataImage.EMPTY, MetadataImage.EMPTY)
    []
    """
    # Each image's records read once (a table's view makes a record at each lookup).
    have, want = acls_by_id(held.acls), acls_by_id(wanted.acls)
    records: list[Record] = [
        RemoveAccessControlEntryRecord(acl_id)
        for acl_id in sorted(have)
        if want.get(acl_id) != have[acl_id]
    ]
    records += [want[acl_id] for acl_id in sorted(want) if have.get(acl_id) != want[acl_id]]
    for name in sorted(wanted.scram.users):
        for mechanism, credential in sorted(wanted.scram.users[name].items()):
            if held.scram.credential(name, mechanism) != credential:
                records.append(
                    UserScramCredentialRecord(
                        name,
                        mechanism,
                        credential.salt,
                        credential.stored_key,
                        credential.server_key,
                        credential.iterations,
                    )
                )
    records += [
        RemoveUserScramCredentialRecord(name, mechanism)
        for name in sorted(held.scram.users)
        for mechanism in sorted(held.scram.users[name])
        if wanted.scram.credential(name, mechanism) is None
    ]
    return records


def kraft_reconcile(data_dir: Path, source: Path, end_offset: int) -> list[Record]:
    """The records taking ``data_dir``'s state to the state of the KRaft directory ``source``
    just before ``end_offset`` (a snapshot's end offset)."""
    held = rebuild_image(data_dir).image
    wanted = rebuild_image(source, at_offset=end_offset - 1, kraft=True).image
    return reconcile_records(held, wanted)
