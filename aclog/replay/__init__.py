"""The one way from a snapshot and committed batches to an image, shared by the broker, the
controller and the tools (as Kafka's ``image/loader``): the decoded stream of a data directory,
:func:`replay_batches` (every replay loop), :func:`rebuild_image` (newest snapshot + tail, or
the state as of an offset or a time), and the checks built on them: :func:`diff` between two
points and :func:`verify_directory`.

Imports :mod:`aclog.image`, :mod:`aclog.snapshot`, :mod:`aclog.kraft` and the layers below.
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.replay.batches import CommittedBatch, ReplayBatch, Replayed, replay_batches
    from aclog.replay.diff import Diff, Point, diff, diff_images
    from aclog.replay.dump_rows import (
        Removal,
        batch_line,
        dump_row,
        dump_rows,
        record_line,
        with_removed,
    )
    from aclog.replay.dump_source import dump_entries, reporting_batches, snapshot_batch
    from aclog.replay.kraft_batches import kraft_decoded_batch
    from aclog.replay.kraft_reconcile import kraft_reconcile, reconcile_records
    from aclog.replay.kraft_stream import kraft_decoded_batches
    from aclog.replay.moments import TIME_FORMATS, backwards, range_point, time_ms, time_text
    from aclog.replay.point_note import point_note
    from aclog.replay.rebuild import RebuildError, Rebuilt, rebuild_image, replay_tail
    from aclog.replay.stream import (
        DecodedBatch,
        Entry,
        decode_batch,
        entries_between,
        read_decoded,
        read_segment_decoded,
    )
    from aclog.replay.verify import VerifyReport, verify_directory, verify_kraft_directory

__all__ = [
    "TIME_FORMATS",
    "CommittedBatch",
    "DecodedBatch",
    "Diff",
    "Entry",
    "Point",
    "RebuildError",
    "Removal",
    "Rebuilt",
    "ReplayBatch",
    "Replayed",
    "VerifyReport",
    "backwards",
    "decode_batch",
    "diff",
    "diff_images",
    "batch_line",
    "dump_entries",
    "dump_row",
    "dump_rows",
    "entries_between",
    "kraft_decoded_batch",
    "kraft_decoded_batches",
    "kraft_reconcile",
    "point_note",
    "range_point",
    "read_decoded",
    "read_segment_decoded",
    "record_line",
    "reporting_batches",
    "reconcile_records",
    "rebuild_image",
    "replay_batches",
    "replay_tail",
    "time_ms",
    "snapshot_batch",
    "time_text",
    "verify_directory",
    "verify_kraft_directory",
    "with_removed",
]

__getattr__ = lazy_face(__name__)
