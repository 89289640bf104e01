"""Where the bytes live: segments of Kafka v2 record batches, offsets, epochs, recovery.

The log knows bytes, offsets and epochs, never record types.
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.log.appends import BatchSpec
    from aclog.log.created import empty_directory, first_missing, remove_created
    from aclog.log.errors import (
        CorruptLogError,
        DeposedError,
        FencedEpochError,
        LogError,
        LogLockedError,
        StaleOffsetError,
        StorageError,
        WriterStoppedError,
    )
    from aclog.log.fenced import FencedTail, fenced_tails
    from aclog.log.index import estimated_end_offset
    from aclog.log.lock import LOCK_FILE
    from aclog.log.log import SegmentedLog
    from aclog.log.reader import read_batches, read_records, read_segment_file
    from aclog.log.recovery import RecoveryReport
    from aclog.log.recovery_point import FILE_NAME as RECOVERY_POINT_FILE
    from aclog.log.recovery_point import holds_recovery_point
    from aclog.log.region import LogBatch, LogRecord
    from aclog.log.segment import list_segments, segment_base_offset
    from aclog.log.torn import TornTailError

__all__ = [
    "BatchSpec",
    "CorruptLogError",
    "DeposedError",
    "FencedEpochError",
    "FencedTail",
    "LOCK_FILE",
    "LogBatch",
    "LogError",
    "LogLockedError",
    "LogRecord",
    "RECOVERY_POINT_FILE",
    "RecoveryReport",
    "SegmentedLog",
    "StaleOffsetError",
    "StorageError",
    "TornTailError",
    "WriterStoppedError",
    "estimated_end_offset",
    "fenced_tails",
    "holds_recovery_point",
    "list_segments",
    "read_batches",
    "read_records",
    "read_segment_file",
    "segment_base_offset",
    "empty_directory",
    "first_missing",
    "remove_created",
]

__getattr__ = lazy_face(__name__)
