"""Records as ``aclog dump`` shows them, for every reader that shows a log (the CLI's ``dump``,
``demo`` and ``quickstart``, and the UI's Changes view): each entry's dict (``--json``), redacted
unless asked not to, and for an ACL removal the ACL its id named; as text, a line per batch
(:func:`batch_line`) and a line per record (:func:`record_line`).

Thread-safe (no shared state; each call keeps its own map). Cost: a dict of the ACLs added and
not yet removed among the entries read.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from aclog.records import (
    AccessControlEntryRecord,
    RemoveAccessControlEntryRecord,
    acl_text,
    record_summary,
    record_to_dict,
)
from aclog.replay.stream import Entry

Removal = AccessControlEntryRecord | None
"""For a RemoveAccessControlEntryRecord, the ACL it removed, when the records read added it."""


def with_removed(
    entries: Iterator[Entry], types: set[str] | None = None
) -> Iterator[tuple[Entry, Removal]]:
    """The entries of the chosen ``types`` (``None``: all), each removal with the ACL its id
    named: a bare id says nothing, and the ACL's addition was read before it (unless the
    entries start later, or the ACL is in a snapshot, when it is ``None``)."""
    added: dict[uuid.UUID, AccessControlEntryRecord] = {}
    for entry in entries:
        record, removed = entry.record, None
        if isinstance(record, AccessControlEntryRecord):
            added[record.id] = record
        elif isinstance(record, RemoveAccessControlEntryRecord):
            removed = added.pop(record.id, None)
        if types is None or entry.type_name in types:
            yield entry, removed


def dump_row(entry: Entry, removed: Removal, *, redact: bool = True) -> dict[str, Any]:
    """One record as ``dump --json`` prints it: the entry's dict and, for a removal,
    ``removed_acl`` (the ACL its id named, or ``None`` when its addition was not read)."""
    row = entry.to_dict(redact=redact)
    if isinstance(entry.record, RemoveAccessControlEntryRecord):
        row["removed_acl"] = None if removed is None else record_to_dict(removed)
    return row


def dump_rows(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """Every entry as ``dump --json`` prints it (redacted)."""
    return [dump_row(entry, removed) for entry, removed in with_removed(iter(entries))]


def batch_line(entry: Entry) -> str:
    """The text line that heads ``entry``'s batch: its base offset, epoch, time and author."""
    # imported here: the moments module imports the diff (numpy), which a reader that only
    # wants the rows (demo --show, quickstart --json) has no use for
    from aclog.replay.moments import time_text  # noqa: PLC0415

    line = f"batch {entry.batch_base_offset}  epoch {entry.epoch}  {time_text(entry.timestamp_ms)}"
    author = entry.author
    if author is not None:
        line += f"  by {author.principal} from {author.client_address} ({author.client_id}"
        line += f", {author.api})" if author.api else ")"
    return line


def record_line(entry: Entry, removed: Removal, *, redact: bool = True) -> str:
    """The text line of one record: offset, type, version and fields, and for a removal the ACL
    its id named (``removed``)."""
    summary = record_summary(entry.record, redact=redact)
    if removed is not None:
        summary += f"  (was {acl_text(removed)})"
    return f"  {entry.offset:>8}  {entry.type_name} v{entry.version}  {summary}"
