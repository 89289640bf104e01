"""A run of ACL records (many small batches' worth) as two table applies instead of one
reference replay per record.

A log written one request at a time holds a few ACL records per batch. Replaying each of them
through the reference (:class:`~aclog.image.acls.AclsDelta` over a table) pays a vectorised
table lookup of one binding per addition, a fixed numpy cost per record. :func:`net_of`
instead reads a run of records in Python (a dict step per record) and states it as what the
table's batch apply (:meth:`~aclog.image.acl_table.AclTable.applied`) checks: every addition
of the run, in order, with the removals of ACLs stored before the run; then, in a second
apply, the removals of ACLs the run itself added (:func:`applied_net`). The first apply checks
every addition's id and binding against the table and every stored removal, as one-by-one
replay would; the run's own checks (an id or binding added twice, an id removed twice, an id
added again after its removal) are made here. Anything that might fail one by one is
declined (``None``): the caller then replays the run in smaller pieces, and a single record
through the reference, which raises the error naming its offset.

So when :func:`applied_net` applies, the table is the one one-by-one replay of the run gives
(additions still live appended in commit order, removals gone), and one-by-one replay of the
run raises nothing. ``tests/image/test_acl_table_net.py`` holds it to the reference.

Thread-safe (no shared state). Cost: O(records) dict steps, plus two table applies.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from aclog.image.acl_column_rows import of_records, words_of, words_of_id_bytes
from aclog.image.acl_table import AclTable
from aclog.records.types import (
    AccessControlEntryRecord,
    AclKey,
    RemoveAccessControlEntryRecord,
    acl_key,
)

AclRecord = AccessControlEntryRecord | RemoveAccessControlEntryRecord


@dataclass(frozen=True, slots=True)
class NetRun:
    """A run of ACL records as two applies: ``additions`` (every addition, in commit order)
    with ``stored_removals`` (ids stored before the run), then ``cancelled`` (ids the run added
    and removed again). Immutable."""

    additions: list[AccessControlEntryRecord]
    stored_removals: list[uuid.UUID]
    cancelled: list[uuid.UUID]


def net_of(records: Sequence[AclRecord]) -> NetRun | None:
    """``records`` (in commit order) as a :class:`NetRun`, or ``None`` when the run names an
    id or a binding in a way the two applies cannot state (see the module)."""
    live: dict[uuid.UUID, AclKey] = {}  # added by the run and not removed since
    bindings: set[AclKey] = set()  # every binding the run adds (each may be added once)
    seen: set[uuid.UUID] = set()  # every id the run adds or removes from the table
    additions: list[AccessControlEntryRecord] = []
    stored: list[uuid.UUID] = []
    cancelled: list[uuid.UUID] = []
    for record in records:
        acl_id = record.id
        if type(record) is AccessControlEntryRecord:
            key = acl_key(record)
            if acl_id in seen or key in bindings:
                return None
            seen.add(acl_id)
            bindings.add(key)
            live[acl_id] = key
            additions.append(record)
        elif acl_id in live:
            del live[acl_id]
            cancelled.append(acl_id)
        elif acl_id in seen:
            return None  # removed twice, or removed after its removal's cancelled addition
        else:
            seen.add(acl_id)
            stored.append(acl_id)
    return NetRun(additions, stored, cancelled)


def applied_net(table: AclTable, records: Sequence[AclRecord]) -> AclTable | None:
    """``table`` with ``records`` replayed as one-by-one replay would, in two applies; ``None``
    (nothing changed) when :func:`net_of` or the table declines."""
    run = net_of(records)
    if run is None:
        return None
    removed = b"".join([acl_id.bytes for acl_id in run.stored_removals])
    applied = table.applied(of_records(run.additions), words_of_id_bytes(removed))
    if applied is None or not run.cancelled:
        return applied
    # Every cancelled id was added by the first apply and is removed once: this cannot decline.
    done = applied.applied(of_records([]), words_of(run.cancelled))
    assert done is not None
    return done
