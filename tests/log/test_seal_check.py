"""A segment is read back before it is sealed (issue 35, item 3): a byte flipped in the active
segment while the writer runs stops the writer at the next roll, with the file and the byte,
logged once, instead of sealing the damage and acknowledging writes behind it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from aclog.acl import Errors
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.log import SegmentedLog, WriterStoppedError, commit, list_segments, read_records
from aclog.log.batch import CRC_START
from tests.acl_factory import acl_binding

ADMIN = Caller("User:admin", "10.0.0.1", "test-client", "CreateAcls")


def _flip(path: Path, position: int) -> None:
    with open(path, "r+b") as file:
        file.seek(position)
        byte = file.read(1)
        file.seek(position)
        file.write(bytes([byte[0] ^ 0x40]))


def test_a_flipped_byte_stops_the_writer_at_the_roll_instead_of_sealing_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    with SegmentedLog(tmp_path, segment_bytes=1024, fsync=False) as log:
        for i in range(3):
            log.append([b"x" * 200 + bytes([i])], epoch=1)
        ((_, active),) = list_segments(tmp_path)
        second = active.stat().st_size // 3  # three batches of one size
        _flip(active, second + CRC_START + 20)  # inside the CRC'd bytes of the second batch
        with pytest.raises(WriterStoppedError) as stopped:
            for i in range(3, 8):  # the 1 KiB segment rolls within these
                log.append([b"y" * 200 + bytes([i])], epoch=1)
        message = str(stopped.value)
        assert str(active) in message and f"at byte {second}" in message
        assert "not sealed" in message
        assert len(list_segments(tmp_path)) == 1  # no new segment behind the damage
        with pytest.raises(WriterStoppedError):
            log.append([b"z"], epoch=1)  # fail-stop: every later write refused
    logged = [r for r in caplog.records if "not sealed" in r.getMessage()]
    assert len(logged) == 1 and logged[0].levelno == logging.CRITICAL  # once, loudly


def test_whole_segments_roll_and_each_byte_is_read_back_once(tmp_path: Path) -> None:
    checked: list[tuple[int, int]] = []
    real = commit.check_written

    def counting(path: Path, start: tuple[int, int], point: object) -> int:
        done = real(path, start, point)  # type: ignore[arg-type]
        checked.append((start[1], done))
        return done

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(commit, "check_written", counting)
        with SegmentedLog(tmp_path, segment_bytes=1024, fsync=False) as log:
            for i in range(20):
                log.append([b"v" * 200 + bytes([i])], epoch=1)
        with SegmentedLog(tmp_path, segment_bytes=1024, fsync=False) as log:
            for i in range(20, 25):
                log.append([b"v" * 200 + bytes([i])], epoch=1)
    segments = list_segments(tmp_path)
    sizes = [path.stat().st_size for _, path in segments[:-1]]
    assert [done for _, done in checked] == [
        size - start for size, (start, _) in zip(sizes, checked, strict=True)
    ]  # every sealed segment read back from where the last check (or the open) left it
    assert [r.offset for r in read_records(tmp_path)] == list(range(25))


def test_a_commit_behind_damage_gets_kafka_storage_error_naming_the_file(tmp_path: Path) -> None:
    log = SegmentedLog(tmp_path, segment_bytes=4096)
    with Controller(log, authorizer=LocalOperator()) as controller:
        assert controller.create_acls([acl_binding("first")], ADMIN)[0].error.is_success
        ((_, active),) = list_segments(tmp_path)
        _flip(active, CRC_START + 20)
        results = [
            controller.create_acls([acl_binding(f"t{i}-" + "n" * 300)], ADMIN)[0].error
            for i in range(20)
        ]
    failures = [error for error in results if not error.is_success]
    assert failures, "the segment never rolled: the test writes too little"
    assert all(error.error == Errors.KAFKA_STORAGE_ERROR for error in failures)
    assert str(active) in str(failures[0].message) and "at byte 0" in str(failures[0].message)
    assert all(not error.is_success for error in results[results.index(failures[0]) :])


def test_damage_stops_the_writer_within_check_every_bytes_without_a_roll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commit, "CHECK_EVERY", 1000)
    with SegmentedLog(tmp_path, fsync=False) as log:  # 64 MiB segments: no roll here
        log.append([b"w" * 200], epoch=1)
        ((_, active),) = list_segments(tmp_path)
        _flip(active, CRC_START + 20)
        appended = 0
        with pytest.raises(WriterStoppedError, match="at byte 0"):
            for _ in range(10):
                before = active.stat().st_size
                log.append([b"w" * 200], epoch=1)
                appended += 1
        assert active.stat().st_size == before  # the refused append wrote nothing
    assert 1 <= appended <= 1000 // 200  # stopped once 1000 bytes went unchecked
    assert len(list_segments(tmp_path)) == 1


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    sizes=st.lists(st.integers(1, 300), min_size=2, max_size=30),
    check_every=st.integers(100, 3000),
    segment_bytes=st.integers(400, 4000),
    data=st.data(),
)
def test_no_segment_is_sealed_and_little_is_appended_behind_unchecked_damage(
    tmp_path_factory: pytest.TempPathFactory,
    sizes: list[int],
    check_every: int,
    segment_bytes: int,
    data: st.DataObject,
) -> None:
    directory = tmp_path_factory.mktemp("log")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(commit, "CHECK_EVERY", check_every)
        with SegmentedLog(directory, segment_bytes=segment_bytes, fsync=False) as log:
            at = data.draw(st.integers(1, len(sizes) - 1))
            for size in sizes[:at]:
                log.append([b"a" * size], epoch=1)
            _, active = list_segments(directory)[-1]
            damaged_end = active.stat().st_size
            unchecked = log._checked[1]  # damage to what was read back already: the scrub's
            assume(unchecked < damaged_end)
            with open(active, "rb") as file:
                file.seek(unchecked + 8)  # the first unchecked batch's length field
                length = int.from_bytes(file.read(4), "big") + 12
            _flip(active, data.draw(st.integers(unchecked + CRC_START, unchecked + length - 1)))
            try:
                for size in sizes[at:] * 40:  # enough to roll or pass check_every
                    log.append([b"b" * size], epoch=1)
            except WriterStoppedError as error:
                assert str(active) in str(error)
            else:
                raise AssertionError("the writer kept appending behind the damage")
    assert list_segments(directory)[-1][1] == active  # never sealed
    behind = active.stat().st_size - damaged_end
    assert behind < check_every + 400  # at most what was unchecked, plus one batch
