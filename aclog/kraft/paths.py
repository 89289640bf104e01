"""What names a KRaft metadata log on disk: the directory Kafka keeps it in and the suffix of
its snapshots, and the test that tells such a path from an aclog data directory.

Its own module so that commands which only ask "is this KRaft?" (``acls list`` of an aclog
directory) do not import the KRaft decoders (numpy, pyarrow, kafka-python). Pure; thread-safe;
cost: one directory listing.
"""

from __future__ import annotations

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
