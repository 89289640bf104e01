"""A rebuild of a small log (no snapshot, under ``SMALL_LOG_BYTES``) starts from the small
image, held in a mapping, and gives the image a replay onto a table gives; a larger log is
replayed onto a table as before."""

from __future__ import annotations

from pathlib import Path

from aclog.image import MetadataImage
from aclog.log import SegmentedLog
from aclog.records import RemoveAccessControlEntryRecord, encode
from aclog.replay import rebuild_image, replay_tail
from aclog.replay.rebuild import SMALL_LOG_BYTES
from tests.acl_factory import acl_record


def _write(directory: Path, batches: int, size: int) -> None:
    """``batches`` batches of ``size`` ACLs, the last batch removing the first ACL."""
    with SegmentedLog(directory, fsync=False) as log:
        for batch in range(batches):
            acls = [acl_record(batch * size + n, f"topic-{batch}-{n}") for n in range(size)]
            log.append([encode(a) for a in acls], epoch=1, timestamp_ms=1)
        log.append([encode(RemoveAccessControlEntryRecord(acl_record(0, "x").id))], 1)


def _log_bytes(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.glob("*.log"))


def test_a_small_log_rebuilds_into_a_mapping_equal_to_the_table(tmp_path: Path) -> None:
    _write(tmp_path, batches=30, size=3)  # a log written a command at a time
    assert _log_bytes(tmp_path) < SMALL_LOG_BYTES
    rebuilt = rebuild_image(tmp_path).image
    assert rebuilt.acls.small and rebuilt.acls.table is None
    onto_a_table = replay_tail(tmp_path, MetadataImage.EMPTY, 0)[0]
    assert onto_a_table.acls.table is not None
    assert rebuilt == onto_a_table and list(rebuilt.acls.acls) == list(onto_a_table.acls.acls)
    assert len(rebuilt.acls) == 89


def test_a_larger_log_rebuilds_onto_a_table(tmp_path: Path) -> None:
    _write(tmp_path, batches=8, size=1000)
    assert _log_bytes(tmp_path) >= SMALL_LOG_BYTES
    rebuilt = rebuild_image(tmp_path).image
    assert rebuilt.acls.table is not None and not rebuilt.acls.small
    assert len(rebuilt.acls) == 7999
