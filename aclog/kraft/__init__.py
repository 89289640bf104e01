"""Reading Kafka's own KRaft metadata log (``__cluster_metadata-0``) into aclog record types.

Segments (``.log``) and snapshots (``.checkpoint``) are Kafka v2 record batches of framed KRaft
metadata records. The ACL and SCRAM records (api keys 18, 19, 11, 22) and NoOpRecord (20) become
aclog's record dataclasses, leader-change control records become :class:`LeaderChangeRecord`,
and every other record type is skipped by its frame and counted. Read-only and safe on a live
directory. :mod:`aclog.kraft.writer` writes the format (record values:
:mod:`aclog.kraft.encoding`), for fixtures (tests, benchmarks, trying the tools without a Kafka
cluster). Sits beside ``aclog.image`` and above ``aclog.snapshot``: it imports ``aclog.records``
and ``aclog.log``, and the snapshots' file suffix to tell an aclog data directory
(:func:`is_aclog_path`).
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.kraft.acl_batch import AclColumns
    from aclog.kraft.admission import Admission, Admitted, Rejected
    from aclog.kraft.appended import Appended
    from aclog.kraft.batch import KraftBatch, KraftRecord
    from aclog.kraft.checkpoint import (
        CheckpointFile,
        CheckpointInfo,
        KraftSnapshot,
        checkpoint_batch,
        list_checkpoints,
        newest_checkpoint,
        read_checkpoint,
        read_checkpoint_batches,
        read_checkpoint_info,
        read_checkpoint_parts,
    )
    from aclog.kraft.codec import MetadataValue, decode_metadata_value
    from aclog.kraft.column_batch import KraftColumnBatch
    from aclog.kraft.errors import (
        ImportTargetError,
        KraftCorruptError,
        KraftError,
        KraftFormatError,
        KraftLayoutError,
    )
    from aclog.kraft.follow import KraftFollow
    from aclog.kraft.importer import ImportReport, import_kraft
    from aclog.kraft.paths import (
        CHECKPOINT_SUFFIX,
        import_source_problem,
        is_aclog_path,
        is_kraft_path,
    )
    from aclog.kraft.position import BatchPosition, SnapshotPosition, position_of
    from aclog.kraft.reader import read_kraft, read_kraft_segment, tail_note
    from aclog.kraft.replay import (
        KraftReplaySource,
        kraft_replay_batches,
        kraft_replay_source,
    )
    from aclog.kraft.report_text import appended_line, report_lines
    from aclog.kraft.schemas import control_name, record_name
    from aclog.kraft.tail import KraftTail
    from aclog.kraft.tail_errors import KraftRolledError, KraftTruncatedError
    from aclog.kraft.tail_report import check_newest_tail, once_each, tail_warner

__all__ = [
    "AclColumns",
    "Admission",
    "Admitted",
    "Rejected",
    "Appended",
    "BatchPosition",
    "KraftFollow",
    "KraftRolledError",
    "KraftTail",
    "KraftTruncatedError",
    "SnapshotPosition",
    "position_of",
    "CHECKPOINT_SUFFIX",
    "CheckpointFile",
    "CheckpointInfo",
    "ImportReport",
    "ImportTargetError",
    "KraftBatch",
    "KraftColumnBatch",
    "KraftCorruptError",
    "KraftError",
    "KraftFormatError",
    "KraftLayoutError",
    "KraftRecord",
    "KraftReplaySource",
    "KraftSnapshot",
    "MetadataValue",
    "checkpoint_batch",
    "control_name",
    "decode_metadata_value",
    "import_kraft",
    "is_kraft_path",
    "kraft_replay_batches",
    "kraft_replay_source",
    "list_checkpoints",
    "newest_checkpoint",
    "read_checkpoint",
    "read_checkpoint_batches",
    "read_checkpoint_info",
    "read_checkpoint_parts",
    "read_kraft",
    "read_kraft_segment",
    "tail_note",
    "tail_warner",
    "check_newest_tail",
    "once_each",
    "record_name",
    "appended_line",
    "report_lines",
    "import_source_problem",
    "is_aclog_path",
]

__getattr__ = lazy_face(__name__)
