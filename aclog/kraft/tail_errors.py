"""Why a KRaft tail (:mod:`aclog.kraft.tail`) stops: the errors for a log truncated or rolled
past what was read, and the messages (with damage's) that say what happened and what to do.

Immutable values and pure functions; thread-safe. Cost: formatting one message.
"""

from __future__ import annotations

from pathlib import Path

from aclog.kraft.errors import KraftCorruptError, KraftError
from aclog.log.segment import ScanProblem

REIMPORT = (
    "import the directory again into a new data directory (aclog import --from-kraft DIR "
    "--data-dir NEW --follow starts from its newest snapshot)"
)


class KraftTruncatedError(KraftError):
    """The KRaft log lost batches the tail had already read (a segment shrank, or a new leader
    replaced them): what was imported from them may not have been committed."""


class KraftRolledError(KraftError):
    """The next offset the tail needs is no longer in any segment (deleted after a snapshot
    before it was read), or the segments have a hole."""


def damage(path: Path, problem: ScanProblem, what: str) -> KraftCorruptError:
    """The error for bad bytes a poll cannot wait out (``what`` says why not)."""
    return KraftCorruptError(
        path,
        problem.position,
        f"{problem.reason} ({what}); nothing after offset {problem.offset - 1} was imported. "
        "Check the broker's disk and logs; once Kafka has repaired the log, restart the follow "
        f"(it resumes after the last good batch), or {REIMPORT}",
    )


def rolled_message(
    directory: Path, needed: int, start: int | None, missing: Path | None = None
) -> str:
    """Why the offset ``needed`` cannot be read any more."""
    where = (
        f"segment {missing.name} was deleted before it was read to its end"
        if missing is not None
        else f"the log now starts at offset {start}"
        if start is not None
        else "it holds no segments"
    )
    return (
        f"the KRaft log in {directory} was rolled past offset {needed}, the next one to import: "
        f"{where} (Kafka deletes segments below a new snapshot), so the changes from offset "
        f"{needed} on cannot be read one by one. Either restart the follow with --reconcile "
        "(their net effect is recorded as one batch from the newest snapshot), or "
        f"{REIMPORT}; and keep segments longer (metadata.log.segment.ms, "
        "metadata.max.retention.ms) or follow more often"
    )


def hole_message(directory: Path, needed: int, base: int) -> str:
    """Why a segment starting at ``base`` cannot follow offset ``needed - 1``."""
    return (
        f"the KRaft log in {directory} has a hole: the next segment starts at offset {base}, "
        f"but offset {needed} comes next; {REIMPORT}"
    )


def diverged(directory: Path, after: tuple[int, int, int] | None, epoch: int | None) -> str:
    """Why batch ``after`` (base, last, epoch) no longer being there is truncation."""
    assert after is not None
    base, last, was = after
    now = "is gone" if epoch is None else f"now has epoch {epoch} or other offsets"
    return (
        f"the KRaft batch {base}..{last} (epoch {was}) last imported from {directory} {now}: "
        "the log was truncated (a new leader replaced uncommitted batches), so changes imported "
        f"from it may never have been committed; {REIMPORT}"
    )
