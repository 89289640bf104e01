"""The staged container files: one per record type and log piece, under ``type=<name>/``.

:func:`write_containers` takes the rows :func:`aclog.pipeline.reframe.piece_rows` builds and
writes each record type's rows to its own Avro object-container file, in blocks of about
:data:`BLOCK_BYTES`, under a temporary name that is renamed once the file is whole. Spark reads
the folder name as the ``type`` column, so a filter on the type skips the other folders.

A row is one batch's records of one type (see :mod:`aclog.pipeline.reframe`); the counts
returned are of records.

Not thread-safe (one task writes a piece's files). Cost: one join and one write per block.
"""

from __future__ import annotations

import io
import os
from functools import cache
from pathlib import Path
from typing import NamedTuple

from fastavro import parse_schema
from fastavro import writer as avro_writer

from aclog.pipeline.reframe import container_schema, piece_rows
from aclog.pipeline.source import LogPiece
from aclog.varint import zigzag

BLOCK_BYTES = 4 << 20
"""About how many bytes of rows one container block holds."""


@cache
def container_header() -> tuple[bytes, bytes]:
    """(the container's header bytes, its 16-byte sync marker): one per process, as a marker
    need only be unlikely to occur inside its own file's blocks."""
    out = io.BytesIO()
    avro_writer(out, parse_schema(container_schema()), [], codec="null")
    header = out.getvalue()
    return header, header[-16:]


TYPE_FOLDER = "type"
"""Staged rows go to ``type=<record type name>/`` folders (the partition column's name)."""


class _Container:
    """One container file being written: rows buffered into blocks of about
    :data:`BLOCK_BYTES`, written to ``<path>.tmp`` and renamed when closed."""

    def __init__(self, path: Path) -> None:
        header, self.sync = container_header()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.tmp = path, path.with_name(path.name + ".tmp")
        self.out = open(self.tmp, "wb")  # noqa: SIM115  (closed by close())
        self.out.write(header)
        self.rows: list[bytes] = []
        self.size = self.count = 0

    def add(self, row: bytes) -> None:
        self.rows.append(row)
        self.count += 1
        self.size += len(row)
        if self.size >= BLOCK_BYTES:
            self._flush()

    def _flush(self) -> None:
        body = b"".join(self.rows)
        self.out.write(zigzag(self.count) + zigzag(len(body)))
        self.out.write(body)
        self.out.write(self.sync)
        self.rows, self.size, self.count = [], 0, 0

    def close(self) -> None:
        if self.rows:
            self._flush()
        self.out.close()
        os.replace(self.tmp, self.path)

    def abandon(self) -> None:
        self.out.close()
        self.tmp.unlink(missing_ok=True)


class PieceStats(NamedTuple):
    """What one piece's staging wrote: records per type, and the newest batch's ``(last offset,
    epoch, timestamp_ms)`` (``None`` when the piece kept no record)."""

    counts: dict[str, int]
    last: tuple[int, int, int] | None


def write_containers(piece: LogPiece, folder: Path, name: str) -> PieceStats:
    """Write the piece's records as container files ``folder/type=<type>/<name>``, one per
    record type present."""
    files: dict[str, _Container] = {}
    counts: dict[str, int] = {}
    last = None
    try:
        for batch, rows in piece_rows(piece):
            last = (batch.last_offset, batch.epoch, batch.timestamp_ms)
            for record_type, count, row in rows:
                target = files.get(record_type)
                if target is None:
                    path = folder / f"{TYPE_FOLDER}={record_type}" / name
                    target = files[record_type] = _Container(path)
                target.add(row)
                counts[record_type] = counts.get(record_type, 0) + count
    except BaseException:
        for target in files.values():
            target.abandon()
        raise
    for target in files.values():
        target.close()
    return PieceStats(counts, last)
