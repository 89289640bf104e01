"""Damage is detected: truncation at every byte, a flipped byte anywhere, lying headers."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path

import fastavro
import pytest

from aclog.snapshot import SnapshotCorruptError, read_snapshot, verify_snapshot
from aclog.snapshot import writer as writer_module
from aclog.snapshot.header import finish_header
from tests.snapshot.helpers import SMALL, write


@pytest.fixture(scope="module")
def small_snapshot(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    info = write(tmp_path_factory.mktemp("small"), SMALL, last_offset=41, epoch=3)
    data = info.path.read_bytes()
    assert 2_000 < len(data) < 5_000
    return data


def _refused(path: Path) -> SnapshotCorruptError:
    with pytest.raises(SnapshotCorruptError) as caught:
        verify_snapshot(path)
    assert caught.value.path == path
    assert str(path) in str(caught.value)
    return caught.value


def test_truncation_at_every_byte_is_detected(small_snapshot: bytes, tmp_path: Path) -> None:
    path = tmp_path / "cut.avro"
    for length in range(len(small_snapshot)):
        path.write_bytes(small_snapshot[:length])
        _refused(path)


def test_truncation_of_the_records_says_so(small_snapshot: bytes, tmp_path: Path) -> None:
    path = tmp_path / "cut.avro"
    path.write_bytes(small_snapshot[:-20])
    assert "it is truncated" in _refused(path).reason


def test_a_flipped_byte_anywhere_is_detected(small_snapshot: bytes, tmp_path: Path) -> None:
    # Every position with every bit inverted, and again with one random non-zero pattern.
    rng = random.Random(11)
    path = tmp_path / "flipped.avro"
    for position in range(len(small_snapshot)):
        for pattern in (0xFF, rng.randrange(1, 0xFF)):
            damaged = bytearray(small_snapshot)
            damaged[position] ^= pattern
            path.write_bytes(damaged)
            _refused(path)


def test_a_flipped_record_byte_is_a_checksum_mismatch(
    small_snapshot: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "flipped.avro"
    damaged = bytearray(small_snapshot)
    damaged[-40] ^= 0x01  # inside the last record, before the 16-byte sync marker
    path.write_bytes(damaged)
    assert "checksum mismatch" in _refused(path).reason


def test_appended_bytes_are_detected(small_snapshot: bytes, tmp_path: Path) -> None:
    path = tmp_path / "long.avro"
    path.write_bytes(small_snapshot + b"\0")
    assert "1 unexpected bytes follow its last record" in _refused(path).reason


@pytest.mark.parametrize("content", [b"", b"Obj\x01", b"not an avro file at all", b"\0" * 4096])
def test_files_that_are_not_snapshots_are_refused(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "junk.avro"
    path.write_bytes(content)
    _refused(path)


def test_a_header_whose_counts_lie_is_caught_when_the_records_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A writer bug, not damage: the checksum covers the lie, so only the count check sees it.
    def lying(
        header: bytes, counts: Mapping[str, int], data_bytes: int, data_crc: int
    ) -> tuple[bytes, int]:
        wrong = {**counts, "UserScramCredentialRecord": counts["UserScramCredentialRecord"] + 1}
        return finish_header(header, wrong, data_bytes, data_crc)

    monkeypatch.setattr(writer_module, "finish_header", lying)
    info = write(tmp_path, SMALL, last_offset=7)
    reader = read_snapshot(info.path)
    with pytest.raises(
        SnapshotCorruptError, match="holds 2 UserScramCredentialRecord records, its header says 3"
    ):
        list(reader.records())


def test_a_file_replaced_after_verification_is_refused(tmp_path: Path) -> None:
    info = write(tmp_path, SMALL, last_offset=7)
    reader = read_snapshot(info.path)
    write(tmp_path, SMALL[:3], last_offset=7)  # same name, new file (rename over it)
    with pytest.raises(SnapshotCorruptError, match="changed after it was verified"):
        list(reader.records())


def test_every_change_to_the_stored_checksum_is_detected(
    small_snapshot: bytes, tmp_path: Path
) -> None:
    # The checksum cannot cover its own eight characters; every other value of each of them,
    # including the upper-case spelling of the same digit, must still be refused.
    with open(tmp_path / "x", "wb") as out:
        out.write(small_snapshot)
    with open(tmp_path / "x", "rb") as file:
        stored = fastavro.reader(file).metadata["aclog.crc32c"]
    start = small_snapshot.index(b"aclog.crc32c\x10" + stored.encode()) + len("aclog.crc32c") + 1
    path = tmp_path / "checksum.avro"
    for position in range(start, start + 8):
        for pattern in range(1, 256):
            damaged = bytearray(small_snapshot)
            damaged[position] ^= pattern
            path.write_bytes(damaged)
            _refused(path)
