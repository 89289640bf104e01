"""Running a probe in a fresh interpreter: what importing something loads, before anything else
in the test process was imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fresh_output(probe: str) -> str:
    """What the Python source ``probe`` prints, run with the repository first on the path."""
    done = subprocess.run(
        [sys.executable, "-c", probe],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
