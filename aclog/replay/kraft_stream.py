"""A KRaft directory as the decoded stream the tools read (``dump``, ``replay``, ``explain``,
``verify``): its log segments, one ``.log`` segment or one ``.checkpoint`` snapshot, each KRaft
batch turned into a :class:`~aclog.replay.stream.DecodedBatch` by
:func:`~aclog.replay.kraft_batches.kraft_decoded_batch`.

Read-only; safe on a live directory. Not thread-safe per iterator. Cost: O(bytes read), lazily.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from aclog.kraft import (
    CheckpointInfo,
    checkpoint_batch,
    kraft_replay_batches,
    read_kraft,
    read_kraft_segment,
    tail_warner,
)
from aclog.kraft.checkpoint import CHECKPOINT_SUFFIX
from aclog.records.warning import OnWarning, ignore_warning
from aclog.replay.kraft_batches import kraft_decoded_batch
from aclog.replay.stream import DecodedBatch


def kraft_decoded_batches(
    path: Path,
    from_offset: int = 0,
    to_offset: int | None = None,
    *,
    on_warning: OnWarning | None = None,
) -> Iterator[DecodedBatch]:
    """The decoded batches of a KRaft directory (its log segments), of one ``.log`` segment, or
    of one ``.checkpoint`` snapshot (as one batch at its last covered offset). ``on_warning``
    hears of a whole last batch that fails its CRC when the read gets there
    (:func:`~aclog.kraft.tail_warner`)."""
    on_tail = None if on_warning is None else tail_warner(on_warning)
    if path.is_file() and path.name.endswith(CHECKPOINT_SUFFIX):
        yield kraft_decoded_batch(checkpoint_batch(path))
    elif path.is_file():
        for batch in read_kraft_segment(path, on_tail=on_tail):
            yield kraft_decoded_batch(batch)
    else:
        for batch in read_kraft(path, from_offset, to_offset, on_tail=on_tail):
            yield kraft_decoded_batch(batch)


def kraft_replay_decoded(
    directory: Path,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    on_warning: OnWarning = ignore_warning,
) -> tuple[CheckpointInfo | None, Iterator[DecodedBatch]]:
    """(the snapshot used, its records as one batch then the log batches after it), decoded;
    replay the first batch as a snapshot when the snapshot is not ``None``."""
    info, batches = kraft_replay_batches(directory, at_offset, at_time_ms, on_warning=on_warning)
    return info, (kraft_decoded_batch(b) for b in batches)
