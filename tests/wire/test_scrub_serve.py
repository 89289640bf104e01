"""Damage under a running server is found by its scrub (issue 35.3): writes then fail with
KAFKA_STORAGE_ERROR (56) naming the file and the byte, instead of being acknowledged behind
bytes the next start would refuse; the log says so once, and again when it clears."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from kafka.protocol.admin import CreateAclsRequest, CreateAclsResponse

from aclog.log import SegmentedLog, list_segments, read_batches
from aclog.node.scrub import Scrub
from tests.wire.harness import RawClient, ServerProcess

STORAGE_ERROR = 56


def _create(raw: RawClient, topic: str) -> tuple[int, str | None]:
    creation = CreateAclsRequest.AclCreation(
        resource_type=2,
        resource_name=topic,
        resource_pattern_type=3,
        principal="User:a",
        host="*",
        operation=3,
        permission_type=3,
    )
    response = raw.request(CreateAclsRequest(version=3, creations=[creation]), CreateAclsResponse)
    result = response.results[0]
    return result.error_code, result.error_message


def _flip(path: Path, position: int) -> None:
    with open(path, "r+b") as file:
        file.seek(position)
        byte = file.read(1)[0]
        file.seek(position)
        file.write(bytes([byte ^ 0x08]))


def test_the_scrub_stops_writes_behind_damage_and_resumes_once_repaired(tmp_path: Path) -> None:
    server = ServerProcess(
        tmp_path, "--super-users", "User:ANONYMOUS", "--scrub-interval-ms", "200", name="scrub"
    ).start()
    try:
        with RawClient(server.host, server.port) as raw:
            assert _create(raw, "before") == (0, None)
            acknowledged = list(read_batches(server.data_dir))[-1]
            damaged = acknowledged.position + 70  # inside its records: the CRC no longer holds
            _flip(acknowledged.segment, damaged)
            assert server.logged("the scrub found damage; writes stop", timeout=10)
            code, message = _create(raw, "behind-the-damage")
            assert code == STORAGE_ERROR
            where = f"corrupt log segment {acknowledged.segment} at byte {acknowledged.position}"
            assert message is not None and where in message
            _flip(acknowledged.segment, damaged)  # restored from a copy
            assert server.logged("the scrub finds the log whole again; writes resume", timeout=10)
            assert _create(raw, "after") == (0, None)
    finally:
        assert server.stop() == 0
    log = server.stderr()
    assert log.count("the scrub found damage") == 1  # said once, not at every pass
    names = [b.values for b in read_batches(server.data_dir)]
    assert not any(b"behind-the-damage" in value for values in names for value in values)


def test_a_pass_finds_damage_in_any_segment_and_says_it_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with SegmentedLog(tmp_path, segment_bytes=200) as log:
        for n in range(9):
            log.append([bytes([n]) * 60], epoch=1, timestamp_ms=n)
    segments = list_segments(tmp_path)
    assert len(segments) >= 3
    middle = segments[len(segments) // 2][1]
    scrub = Scrub(tmp_path, interval=60)
    scrub.run_pass()
    assert scrub.damage is None
    _flip(middle, 70)
    with caplog.at_level(logging.ERROR, logger="aclog.node.scrub"):
        scrub.run_pass()
        scrub.run_pass()
        assert scrub.damage is not None and scrub.damage.path == str(middle)
        _flip(middle, 70)
        scrub.run_pass()
    assert scrub.damage is None
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 2, messages
    assert f"corrupt log segment {middle} at byte 0" in messages[0]
    assert "whole again" in messages[1]
