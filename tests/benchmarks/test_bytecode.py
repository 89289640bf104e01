"""The benchmark run times aclog as installed: its modules byte-compiled, whatever
PYTHONDONTWRITEBYTECODE the machine sets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bytecode


def test_a_run_compiles_the_package_and_lets_its_commands_cache_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("VALUE = 1\n")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert bytecode.as_installed(package)
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ
    assert any(p.name.startswith("mod.") for p in (package / "__pycache__").iterdir())
    # A command the run starts writes the cache of what it imports, as a user's Python does.
    (package / "late.py").write_text("VALUE = 2\n")
    subprocess.run(
        [sys.executable, "-c", "import pkg.late"], cwd=tmp_path, env=dict(os.environ), check=True
    )
    assert any(p.name.startswith("late.") for p in (package / "__pycache__").iterdir())
