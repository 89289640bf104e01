"""aclog's modules byte-compiled, as a user's installed aclog has them.

pip byte-compiles every package it installs, and Python caches the bytecode of each module it
imports, unless ``PYTHONDONTWRITEBYTECODE`` says not to. Some machines set that variable for
every process (this project's sandbox does); an editable checkout run there compiles each aclog
module from source at every start, which no installed aclog does, so the start-up, serve-start
and first-view rows would time the compiler. The run clears the variable for itself and the
commands it starts, and compiles the checkout's package once before the first suite.

Cost: one compile of the package the first time (a second or two), a stat per module after.
"""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "aclog"


def as_installed(package: Path = PACKAGE) -> bool:
    """Let this process and its children write bytecode caches, and compile ``package``;
    whether every module compiled."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    return bool(compileall.compile_dir(str(package), quiet=1))
