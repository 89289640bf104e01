"""Point-in-time images as Avro object container files: naming, writer, reader, policy.

A snapshot holds the records that rebuild an image (one per ACL and per SCRAM credential) as
of a log offset; the caller turns them into an image (or, from :class:`SnapshotContents`, the
ACLs into a table straight from their column chunks) and replays the log after that offset.
Imports only :mod:`aclog.records`, fastavro, crc32c and the standard library.
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.snapshot.checks import SnapshotCheck, check_snapshots
    from aclog.snapshot.contents import SnapshotContents
    from aclog.snapshot.errors import NoUsableSnapshotError, SnapshotCorruptError, SnapshotError
    from aclog.snapshot.header import SnapshotInfo
    from aclog.snapshot.naming import (
        SNAPSHOT_SUFFIX,
        SnapshotId,
        list_snapshots,
        parse_snapshot_name,
        remove_stale_temp_files,
        snapshot_file_name,
    )
    from aclog.snapshot.policy import RetentionPolicy, SnapshotPolicy, deletable_segments
    from aclog.snapshot.reader import SnapshotReader, read_snapshot, verify_snapshot
    from aclog.snapshot.schema import SNAPSHOT_RECORD_TYPES
    from aclog.snapshot.selection import (
        Candidate,
        choose_for_point,
        newest_valid_contents,
        newest_valid_snapshot,
    )
    from aclog.snapshot.writer import write_snapshot

__all__ = [
    "SNAPSHOT_RECORD_TYPES",
    "SNAPSHOT_SUFFIX",
    "Candidate",
    "NoUsableSnapshotError",
    "RetentionPolicy",
    "SnapshotCheck",
    "SnapshotContents",
    "SnapshotCorruptError",
    "SnapshotError",
    "SnapshotId",
    "SnapshotInfo",
    "SnapshotPolicy",
    "SnapshotReader",
    "check_snapshots",
    "choose_for_point",
    "deletable_segments",
    "list_snapshots",
    "newest_valid_contents",
    "newest_valid_snapshot",
    "parse_snapshot_name",
    "read_snapshot",
    "remove_stale_temp_files",
    "snapshot_file_name",
    "verify_snapshot",
    "write_snapshot",
]

__getattr__ = lazy_face(__name__)
