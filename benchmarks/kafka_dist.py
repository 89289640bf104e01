"""The Kafka distribution the ``java`` suite runs against: where it is and what it is.

Thread-safe (reads files). Cost: a directory listing and one small file read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def kafka_home() -> Path | None:
    """``$KAFKA_HOME``, else ``../shared/kafka`` beside the checkout, if it holds ``libs/*.jar``."""
    configured = os.environ.get("KAFKA_HOME")
    home = Path(configured) if configured else REPO.parent / "shared" / "kafka"
    libs = home / "libs"
    return home.resolve() if libs.is_dir() and any(libs.glob("*.jar")) else None


def kafka_distribution() -> str:
    """Version and commit of the distribution, from its README (``none`` without one)."""
    home = kafka_home()
    if home is None:
        return "none"
    try:
        text = (home / "README.md").read_text()
    except OSError:
        return "none"
    version = re.search(r"Apache Kafka (\S+)", text)
    commit = re.search(r"commit `([0-9a-f]{7})[0-9a-f]*`", text)
    return " ".join(m.group(1) for m in (version, commit) if m) or str(home)
