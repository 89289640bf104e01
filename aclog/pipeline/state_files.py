"""A state written as Parquet: ``OUT/acls`` and ``OUT/users``, and what was written.

:func:`write_state` runs the two writes as concurrent Spark jobs, one per thread: Spark's
scheduler hands a free core to the other job's tasks whenever one job has none ready (its last
tasks, its broadcast being built on the driver), so the cores idle less than when the jobs run
one after the other. The summary it returns is counted from the written files' footers (the
provenance the state already holds), so nothing is collected to the driver but two counts. A
failed write removes both parts.

Thread-safe (each call writes its own folder; Spark sessions accept jobs from many threads).
Cost: the two jobs, plus two metadata-only counts.
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame

from aclog.pipeline.state import State

STATE_PARTS = ("acls", "users")
"""The folders under a written state's ``OUT``."""


@dataclass(frozen=True)
class WrittenState:
    """What :func:`write_state` wrote: the provenance (as ``aclog replay``'s header, -1 when
    there is no record) and the row count of each part (``users`` holds one row per
    credential: user and mechanism)."""

    out: str
    offset: int
    epoch: int
    timestamp: int
    acls: int
    credentials: int

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready values."""
        return asdict(self)


def _write(frame: DataFrame, path: Path) -> int:
    frame.write.mode("overwrite").parquet(str(path))
    return frame.sparkSession.read.parquet(str(path)).count()


def write_state(result: State, out: Path) -> WrittenState:
    """Write ``result``'s ACLs and users under ``out`` (replacing what is there) as two
    concurrent jobs. When either fails, its error is raised once both have stopped, and
    neither part is left behind: half a state must not pass for a whole one. ``out`` is made
    absolute here, on the driver (executors run in their own working directories)."""
    given, out = out, out.resolve()
    frames = dict(zip(STATE_PARTS, (result.acls, result.users), strict=True))
    try:
        with ThreadPoolExecutor(len(frames), thread_name_prefix="aclog-state") as pool:
            futures = {
                name: pool.submit(_write, frame, out / name) for name, frame in frames.items()
            }
            counts = {name: future.result() for name, future in futures.items()}
    except BaseException:
        for name in STATE_PARTS:
            shutil.rmtree(out / name, ignore_errors=True)
        raise
    head = result.survey
    return WrittenState(
        str(given), head.offset, head.epoch, head.timestamp, counts["acls"], counts["users"]
    )
