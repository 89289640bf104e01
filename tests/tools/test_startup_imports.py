"""A command's start imports what it uses: pandas (about 0.2 s) only where a job needs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_cli_starts_without_importing_pandas() -> None:
    # pyarrow imports pandas on the first pa.array() call; a module-level one in the KRaft
    # decoder made every command, even a usage error, 0.2 s slower.
    probe = (
        "import sys, aclog.tools.main; "
        "print(sorted(m for m in sys.modules if m.startswith('pandas')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
