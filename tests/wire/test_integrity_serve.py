"""``aclog serve`` logs a torn tail it cuts (with ``--controller``: one its takeover fences) and
refuses a damaged acknowledged batch, naming file and byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.controller.controller import Controller
from aclog.log import SegmentedLog, list_segments, read_batches
from aclog.log.quarantine import list_quarantined
from aclog.log.recovery_point import FILE_NAME, encode
from aclog.records import ScramMechanism
from tests.wire.harness import ServerProcess

MODES = {
    "single": (),
    "controller": ("--controller", "--heartbeat-ms", "200", "--election-timeout-ms", "1000"),
}


def _server(tmp_path: Path, mode: str) -> ServerProcess:
    server = ServerProcess(tmp_path, *MODES[mode], "--super-users", "User:ANONYMOUS")
    server.seed_user("alice", "alice-secret")
    server.seed_user("bob", "bob-secret", ScramMechanism.SCRAM_SHA_512)
    return server


@pytest.mark.parametrize("mode", MODES)
def test_serve_logs_the_torn_tail_it_cuts(tmp_path: Path, mode: str) -> None:
    server = _server(tmp_path, mode)
    newest = list(read_batches(server.data_dir))[-1]
    with open(newest.segment, "r+b") as file:
        file.truncate(newest.position + 30)  # a crash before the newest commit's fsync
    (server.data_dir / FILE_NAME).write_bytes(encode(newest.base_offset, newest.epoch))
    server.start()
    try:
        if mode == "controller":
            # Controllers sharing a directory cut nothing (a torn tail may be a live leader's
            # write in progress): the takeover's fence ends the segment before it.
            expected = f"{newest.segment} from byte {newest.position} on is fenced"
            assert server.logged(expected), server.stderr()
            assert "WARNING" in server.stderr() and list_quarantined(server.data_dir) == []
            return
        expected = f"cut a torn tail off {newest.segment}: 30 bytes from byte {newest.position}"
        assert server.logged(expected), server.stderr()
        assert "WARNING" in server.stderr()
        [quarantined] = list_quarantined(server.data_dir)
        assert quarantined.name == f"{newest.segment.name}.{newest.position}.quarantine"
    finally:
        server.stop()


@pytest.mark.parametrize("mode", MODES)
def test_serve_refuses_a_damaged_acknowledged_batch(tmp_path: Path, mode: str) -> None:
    server = _server(tmp_path, mode)
    newest = list(read_batches(server.data_dir))[-1]
    data = bytearray(newest.segment.read_bytes())
    data[-3] ^= 0x10
    newest.segment.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="did not start"):
        server.start(timeout=20)
    assert server.process is not None and server.process.returncode == 1
    assert f"corrupt log segment {newest.segment} at byte {newest.position}" in server.stderr()
    assert newest.segment.read_bytes() == bytes(data)


@pytest.mark.parametrize("mode", MODES)
def test_serve_refuses_damage_a_snapshot_covers(tmp_path: Path, mode: str) -> None:
    """The one damage policy (README "The data directory"): a snapshot does not hide damage
    from the broker's loader or the writer, any more than from the CLI's readers."""
    server = _server(tmp_path, mode)
    first = list(read_batches(server.data_dir))[-1]  # not the first: that one names the cluster
    with Controller.open(server.data_dir) as controller:
        controller.snapshot()
    for user in ("carol", "dave"):  # two segments after it: the writer reads only those
        with SegmentedLog(server.data_dir) as log:
            log.roll()
        server.seed_user(user, f"{user}-secret")
    assert list_segments(server.data_dir)[-3][1] == first.segment
    data = bytearray(first.segment.read_bytes())
    data[first.position + 70] ^= 0x10
    first.segment.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="did not start"):
        server.start(timeout=20)
    assert server.process is not None and server.process.returncode == 1
    assert f"corrupt log segment {first.segment} at byte {first.position}" in server.stderr()
