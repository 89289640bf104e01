"""What ``aclog serve`` tells a person once it listens: the mechanism to log in with is one the
stored users hold (a banner naming SCRAM-SHA-256 to users who hold only SCRAM-SHA-512 sent them
to a login that fails)."""

from __future__ import annotations

from pathlib import Path

from aclog.records import ScramMechanism
from aclog.tools.serve_banner import connect_lines
from aclog.wire import SecurityProtocol, ServerConfig
from tests.wire.harness import ServerProcess


def test_the_banner_names_a_mechanism_the_users_hold(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, "--security-protocol", "SASL_PLAINTEXT", name="banner")
    server.seed_user("ops", "pw", ScramMechanism.SCRAM_SHA_512)
    server.start()
    try:
        assert server.info["user_mechanisms"] == ["SCRAM-SHA-512"]
        assert server.info["sasl_mechanisms"] == ["SCRAM-SHA-256", "SCRAM-SHA-512"]
    finally:
        assert server.stop() == 0, server.stderr()[-2000:]
    config = ServerConfig(
        data_dir=tmp_path / "data", security_protocol=SecurityProtocol.SASL_PLAINTEXT
    )
    held = tuple(server.info["user_mechanisms"])
    assert all("SCRAM-SHA-512" in line for line in connect_lines("127.0.0.1:9", config, held))
    fresh = connect_lines("127.0.0.1:9", config, ())  # no user yet: the common default
    assert all("SCRAM-SHA-256" in line for line in fresh)
