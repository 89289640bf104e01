"""Offset index files as tests see them: every entry of a data directory's indexes with the
batch at its position, and a rewrite into the first-offset convention older aclog wrote."""

from __future__ import annotations

from pathlib import Path

from aclog.log import list_segments
from aclog.log.batch import HEADER_SIZE, parse_header
from aclog.log.index import ENTRY, OffsetIndex, index_path


def index_entries(directory: Path) -> list[tuple[Path, int, tuple[int, int] | None]]:
    """(index file, entry offset, (first, last) offset of the batch at the entry's position)
    for every entry of every segment's index in ``directory``."""
    found = []
    for base, segment in list_segments(directory):
        index = OffsetIndex.load(segment, base)
        for offset, position in zip(index.offsets, index.positions, strict=True):
            found.append((index_path(segment), offset, _span(segment, position)))
    return found


def rewrite_as_first_offsets(directory: Path) -> int:
    """Rewrite every index in ``directory`` as aclog wrote them before it followed Kafka: each
    entry holding the *first* offset of the batch at its position. Returns the entries that
    changed (those at batches of more than one record)."""
    changed = 0
    for base, segment in list_segments(directory):
        index = OffsetIndex.load(segment, base)
        data = b""
        for position in index.positions:
            span = _span(segment, position)
            assert span is not None
            changed += span[0] != span[1]
            data += ENTRY.pack(span[0] - base, position)
        index_path(segment).write_bytes(data)
    return changed


def _span(segment: Path, position: int) -> tuple[int, int] | None:
    """(first, last) offset of the batch at ``position`` of ``segment``, read here rather than
    through the code under test."""
    with segment.open("rb") as file:
        file.seek(position)
        head = file.read(HEADER_SIZE)
    if len(head) < HEADER_SIZE:
        return None
    header = parse_header(head)
    return header.base_offset, header.last_offset
