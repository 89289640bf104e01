"""``make run``'s walk-through: a real listener driven by kafka-python, then dump and explain."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from aclog.replay.rebuild import rebuild_image


def test_quickstart_walks_through_a_real_server(tmp_path: Path) -> None:
    data = tmp_path / "data"
    command = [
        sys.executable,
        "-m",
        "aclog.tools.main",
        "quickstart",
        "--data-dir",
        str(data),
        "--listen",
        "127.0.0.1:0",
        "--exit",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "kafka-python created 2 ACLs (0 failed)" in done.stdout
    assert "by User:ANONYMOUS from 127.0.0.1 (aclog-quickstart, CreateAcls)" in done.stdout
    assert "payments.cards: DENIED" in done.stdout and "payments.eu: ALLOWED" in done.stdout
    image = rebuild_image(data).image
    assert len(image.acls) == 2 and "ledger" in image.scram.users
