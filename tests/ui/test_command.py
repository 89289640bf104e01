"""``aclog ui`` as a command: it refuses what it must (another address without a token, a
weak token, a missing directory), and serves real HTTP on 127.0.0.1 until stopped."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.tools.harness import run_main
from tests.ui.logs import build_log
from tests.ui.server import running_ui


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "example.com", "::"])
def test_another_address_than_loopback_needs_a_token(tmp_path: Path, host: str) -> None:
    done = run_main("ui", "--data-dir", str(tmp_path), "--host", host)
    assert done.code == 2
    assert f"refusing to listen on {host} without --token-file" in done.stderr


def test_a_short_or_missing_token_file_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    short = tmp_path / "token"
    short.write_text("abc\n")
    done = run_main("ui", "--data-dir", str(data), "--host", "0.0.0.0", "--token-file", str(short))
    assert done.code == 2 and "at least 16" in done.stderr and "abc" not in done.stderr
    gone = run_main("ui", "--data-dir", str(data), "--token-file", str(tmp_path / "nope"))
    assert gone.code == 2 and "no token file at" in gone.stderr
    short.chmod(0o000)
    try:
        if os.geteuid() != 0:  # root reads it anyway
            locked = run_main("ui", "--data-dir", str(data), "--token-file", str(short))
            assert locked.code == 3 and "Permission denied" in locked.stderr
    finally:
        short.chmod(0o600)


def test_a_missing_directory_is_refused(tmp_path: Path) -> None:
    done = run_main("ui", "--data-dir", str(tmp_path / "missing"))
    assert done.code == 2 and "does not exist" in done.stderr


def test_it_serves_http_on_loopback_and_guards_with_a_token(tmp_path: Path) -> None:
    data = build_log(tmp_path / "data")
    token_file = tmp_path / "token"
    token_file.write_text("a-token-long-enough-to-pass\n")
    with running_ui(data, "--token-file", str(token_file)) as url:
        assert url.startswith("http://127.0.0.1:")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{url}/api/state", timeout=10)
        assert refused.value.code == 401
        request = urllib.request.Request(
            f"{url}/api/state", headers={"Authorization": "Bearer a-token-long-enough-to-pass"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.load(response)["total"] == 4
            assert "script-src 'self'" in response.headers["Content-Security-Policy"]


def test_a_kraft_metadata_directory_is_refused_with_the_way_in(tmp_path: Path) -> None:
    from tests.kraft.layout import build_layout

    layout = build_layout(tmp_path)
    done = run_main("ui", "--data-dir", str(layout.directory))
    assert done.code == 2 and "aclog import --from-kraft" in done.stderr
