"""A flood of bad connections cannot fill the disk with the server's log (issue 35.4): a real
``aclog serve`` on 127.0.0.1 gets a seeded mix of hostile connections, and its log stays within
the bound per address while still saying what happened, with counts and reasons."""

from __future__ import annotations

import random
import re
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aclog.records import ScramMechanism
from tests.wire.harness import RawClient, ServerProcess

PER_IP = 10
INTERVAL_S = 3.0
FLOOD = 400
LOGIN_FAILURES = 24  # each waits 0.1 s for the server's close after the failure
SEED = 3504


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(
        tmp_path,
        "--security-protocol",
        "SASL_PLAINTEXT",
        "--log-events-per-ip",
        str(PER_IP),
        "--log-events-interval-ms",
        str(int(INTERVAL_S * 1000)),
        "--max-pre-auth-requests",
        "4",
        name="flooded",
    )
    process.seed_user("admin", "admin-secret", ScramMechanism.SCRAM_SHA_256)
    process.start()
    try:
        yield process
    finally:
        process.stop()


def _bad_connection(server: ServerProcess, kind: int, rng: random.Random) -> None:
    """One connection the server closes with a WARNING: a size out of bounds, too many requests
    before a login, or an unknown API key. Sends, half-closes, reads until closed (bounded)."""
    if kind == 0:
        data = struct.pack(">i", rng.choice([0, -7, 600_000 + rng.randrange(10_000)]))
    elif kind == 1:
        frame = struct.pack(">hhih", 18, 0, 1, 0)  # ApiVersions v0
        data = (struct.pack(">i", len(frame)) + frame) * 5
    else:
        frame = struct.pack(">hhih", 900 + rng.randrange(50), 0, 1, 0)
        data = struct.pack(">i", len(frame)) + frame
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(65536):
                pass
        except (ConnectionResetError, BrokenPipeError):
            pass


def _failed_login(server: ServerProcess, user: str) -> None:
    with RawClient(server.host, server.port) as raw:
        response = raw.login(user, "wrong-password")
        assert response is not None and response.error_code == 58
        assert raw.is_closed_by_server()


def _connection_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if "aclog.wire.connection" in line]


def _accounted(lines: list[str]) -> int:
    """Events the lines stand for: one per line of its own, the count of each summary."""
    total = 0
    for line in lines:
        summary = re.search(r": (\d+) more connection events from", line)
        total += int(summary.group(1)) if summary else 1
    return total


def test_a_single_bad_connection_is_logged_at_once(server: ServerProcess) -> None:
    _bad_connection(server, 0, random.Random(SEED))
    assert server.logged("is outside 1..524288 bytes (the limit before authentication)")


def test_a_flood_of_bad_connections_leaves_a_bounded_log_that_says_what_happened(
    server: ServerProcess,
) -> None:
    rng = random.Random(SEED)
    started = time.monotonic()
    for _ in range(FLOOD):
        _bad_connection(server, rng.randrange(3), rng)
    for i in range(LOGIN_FAILURES):  # a user that exists and one that does not, alike
        _failed_login(server, "admin" if i % 2 else "ghost")
    time.sleep(INTERVAL_S + 1.5)  # the window ends: its summary is written
    elapsed = time.monotonic() - started
    assert server.stop() == 0
    lines = _connection_lines(server.stderr())
    windows = int(elapsed / INTERVAL_S) + 2
    assert len(lines) <= PER_IP + windows, "\n".join(lines)
    assert _accounted(lines) == FLOOD + LOGIN_FAILURES  # nothing lost, only folded
    summaries = "\n".join(line for line in lines if "more connection events" in line)
    for reason in (
        "closed: a frame of N bytes is outside N..N bytes (the limit before authentication)",
        "closed: more than N requests before authentication",
        "closed: unknown API key N (version N)",
        "closed: SASL/SCRAM-SHA-256 login of '…' failed: the user is unknown or the password "
        "is wrong",
    ):
        assert reason in summaries, summaries
    assert "admin" not in summaries and "ghost" not in summaries


def test_failed_logins_do_not_tell_which_users_exist(server: ServerProcess) -> None:
    for user in ("admin", "ghost"):
        _failed_login(server, user)
    assert server.logged("login of 'ghost' failed")
    lines = [line.split(" WARNING ", 1)[1] for line in _connection_lines(server.stderr())]
    same = [re.sub(r"c\d+", "cN", line).replace("'ghost'", "'admin'") for line in lines]
    known = [line for line, raw in zip(same, lines, strict=True) if "'admin'" in raw]
    unknown = [line for line, raw in zip(same, lines, strict=True) if "'ghost'" in raw]
    assert known == unknown and len(known) == 1
