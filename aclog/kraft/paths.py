"""What names a KRaft metadata log on disk: the directory Kafka keeps it in and the suffix of
its snapshots, the tests that tell such a path from an aclog data directory (each way), and
what is wrong with a path given as an import's source (:func:`import_source_problem`).

Its own module so that commands which only ask "is this KRaft?" (``acls list`` of an aclog
directory) do not import the KRaft decoders (numpy, pyarrow, kafka-python). Pure; thread-safe;
cost: one directory listing (and one small read for :func:`is_aclog_path`).
"""

from __future__ import annotations

import os
from pathlib import Path

METADATA_DIRECTORY = "__cluster_metadata-0"
CHECKPOINT_SUFFIX = ".checkpoint"


def is_kraft_path(path: Path | str) -> bool:
    """True for a KRaft metadata log: a directory named ``__cluster_metadata-0`` or holding
    ``.checkpoint`` snapshots, or a single ``.checkpoint`` file."""
    path = Path(path)
    if path.is_file():
        return path.name.endswith(CHECKPOINT_SUFFIX)
    if not path.is_dir():
        return False
    if path.name == METADATA_DIRECTORY:
        return True
    return any(entry.name.endswith(CHECKPOINT_SUFFIX) for entry in path.iterdir())


def is_aclog_path(path: Path) -> bool:
    """Whether ``path`` is an aclog data directory: it holds aclog's recovery point (every
    directory a writer opened does) or aclog snapshots. The other direction is
    :func:`is_kraft_path`."""
    # imported here: a caller that only asks "is this KRaft?" needs neither
    from aclog.log import holds_recovery_point  # noqa: PLC0415
    from aclog.snapshot import SNAPSHOT_SUFFIX  # noqa: PLC0415

    if not path.is_dir():
        return False
    if holds_recovery_point(path):
        return True
    return any(entry.name.endswith(SNAPSHOT_SUFFIX) for entry in path.iterdir())


def import_source_problem(source: Path) -> str | None:
    """What is wrong with ``source`` as the KRaft metadata an import reads (missing, a file
    that is no ``.checkpoint``, an aclog data directory, a directory without KRaft segments or
    snapshots), said with what to give instead; ``None``: nothing."""
    if not source.exists():
        return f"no such file or directory: {source}"
    if source.is_file():
        if not source.name.endswith(CHECKPOINT_SUFFIX):
            return (
                f"{source} is not a KRaft snapshot; give the metadata log directory "
                "(__cluster_metadata-0) or one of its .checkpoint files"
            )
        return None
    if is_aclog_path(source):
        return (
            f"{source} is an aclog data directory, not a KRaft one: read it as it is "
            f"(aclog replay --data-dir {source}), or give --from-kraft Kafka's metadata log "
            "directory (<metadata.log.dir>/__cluster_metadata-0)"
        )
    names = [entry.name for entry in os.scandir(source)]
    if not is_kraft_path(source) and not any(name.endswith(".log") for name in names):
        return (
            f"no KRaft segments (.log) or snapshots (.checkpoint) in {source}; give the "
            "metadata log directory, usually <metadata.log.dir>/__cluster_metadata-0"
        )
    return None
