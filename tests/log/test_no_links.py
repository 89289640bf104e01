"""No file of a data directory is followed through a symbolic link (issue 35, item 7): a link
where a segment, index, recovery point or snapshot belongs is refused with its path, and the
file it points to is never read as the log, truncated or written. A new data directory's
parent is fsynced, so the directory entry survives a power loss with the first commits."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.log import RECOVERY_POINT_FILE, SegmentedLog, read_records
from aclog.log.index import index_path
from aclog.log.segment import list_segments
from aclog.snapshot import SnapshotCorruptError, newest_valid_snapshot, write_snapshot
from aclog.snapshot.reader import read_snapshot

OUTSIDE = b"someone else's file: not a log segment, must never be cut or written\n" * 3


def _log_with_data(directory: Path) -> Path:
    with SegmentedLog(directory) as log:
        log.append([b"a", b"b"], 1)
    return list_segments(directory)[-1][1]


def _link(path: Path, outside: Path) -> None:
    """Replace ``path`` by a link to ``outside`` (holding :data:`OUTSIDE`)."""
    outside.write_bytes(OUTSIDE)
    path.unlink(missing_ok=True)
    path.symlink_to(outside)


@pytest.mark.parametrize("which", ["segment", "index", "recovery point"])
def test_a_linked_file_is_refused_with_its_path_and_left_alone(tmp_path: Path, which: str) -> None:
    data = tmp_path / "data"
    segment = _log_with_data(data)
    linked = {
        "segment": segment,
        "index": index_path(segment),
        "recovery point": data / RECOVERY_POINT_FILE,
    }[which]
    outside = tmp_path / "outside"
    _link(linked, outside)
    with pytest.raises(OSError, match="symbolic link") as refused:
        SegmentedLog(data).close()
    assert str(linked) in str(refused.value)
    assert outside.read_bytes() == OUTSIDE  # never truncated, never written through
    assert linked.is_symlink()


def test_readers_refuse_a_linked_segment_too(tmp_path: Path) -> None:
    data = tmp_path / "data"
    segment = _log_with_data(data)
    _link(segment, tmp_path / "outside")
    with pytest.raises(OSError, match="symbolic link"):
        list(read_records(data))


def test_a_linked_snapshot_is_not_used(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _log_with_data(data)
    real = write_snapshot(data, [], last_offset=1, epoch=1, timestamp_ms=0, fsync=False)
    moved = tmp_path / real.path.name
    real.path.rename(moved)
    real.path.symlink_to(moved)
    with pytest.raises(SnapshotCorruptError, match="symbolic link"):
        read_snapshot(real.path)
    warnings: list[str] = []
    assert newest_valid_snapshot(data, on_warning=warnings.append) is None  # from the log
    assert len(warnings) == 1 and str(real.path) in warnings[0]


def test_a_new_data_directory_is_durable_in_its_parent(tmp_path: Path) -> None:
    from aclog.log.files import Faults, injected

    data = tmp_path / "new" / "data"
    with injected(Faults()) as faults:
        SegmentedLog(data).close()
    calls = faults.calls
    for directory in (data, data.parent):
        made = calls.index(("mkdir", str(directory)))
        assert ("fsync", str(directory.parent)) in calls[made:], calls


def test_a_lone_segment_given_by_a_link_is_refused_before_any_read(tmp_path: Path) -> None:
    """``aclog dump FILE`` of a file not named like a segment reads its first header to learn
    its base offset: through the seam too, so a link is refused at once. (Through a plain
    ``open`` a link to a FIFO hung the read for ever.)"""
    import os
    import threading

    from aclog.replay import read_segment_decoded

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    lone = tmp_path / "lone.bin"
    lone.symlink_to(fifo)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            list(read_segment_decoded(lone))
            outcome.append(None)
        except BaseException as error:  # the thread reports whatever ended it
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # let the blocked open return, so the thread ends
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
        pytest.fail("reading a lone segment through a link to a FIFO blocked")
    assert isinstance(outcome[0], OSError)
    assert "symbolic link" in str(outcome[0]) and str(lone) in str(outcome[0])
