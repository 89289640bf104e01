"""Verifying a data directory: every batch's CRC, every snapshot's checksum, and that replaying
the whole log gives the same state as the newest snapshot plus the log after it. A torn tail
(which the next writer would quarantine and cut) is a problem too; quarantined files, files
others may read, a missing or unreadable recovery point, offset indexes Kafka's
``kafka-dump-log.sh --verify-index-only`` would find mismatches in, and bytes a deposed leader
appended after a newer leader's segment began (fenced: :mod:`aclog.log.fenced`) are listed as
warnings.

A writer may append while a verify runs (reads take no lock). The first pass, which checks
every batch, fixes the point verified: the last whole batch it read. Both replays stop there,
so they compare the same prefix of the log however much was appended between them. A torn
tail is read again after :data:`SETTLE_S` before it counts: a writer's append caught half-way
has completed by then.

Thread-safe (no shared state). Cost: two replays of the log plus a read of every snapshot.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from aclog.image import MetadataImage, ReplayError, image_records
from aclog.kraft import KraftError, list_checkpoints, read_checkpoint, read_kraft, tail_note
from aclog.log import CorruptLogError, TornTailError, fenced_tails, read_batches
from aclog.log.index import index_path, kafka_mismatches
from aclog.log.modes import loose_files
from aclog.log.quarantine import list_quarantined
from aclog.log.recovery_point import read_recovery_point
from aclog.log.segment import CRC_MISMATCH, ScanProblem, list_segments
from aclog.records import AccessControlEntryRecord, record_to_dict
from aclog.replay.rebuild import RebuildError, rebuild_image
from aclog.snapshot import SnapshotError, list_snapshots, verify_snapshot

_CHECKING = "checking batches"


@dataclass
class VerifyReport:
    """What was checked and every problem found (``ok`` when there is none)."""

    batches: int = 0
    records: int = 0
    snapshots: int = 0
    problems: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    quarantined: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.differences

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "batches": self.batches,
            "records": self.records,
            "snapshots": self.snapshots,
            "problems": self.problems,
            "differences": self.differences,
            "quarantined": self.quarantined,
            "warnings": self.warnings,
        }


OnProgress = Callable[[int, str], None]
"""Told the last offset a pass has checked and which pass it is (``checking batches``,
``full replay``, ``snapshot + tail replay``), for a progress display."""


def verify_directory(directory: Path, on_progress: OnProgress | None = None) -> VerifyReport:
    """Check everything in ``directory``; problems go into the report, nothing raises."""
    report = VerifyReport()
    last, torn = _check_batches(directory, report, on_progress)
    if torn is not None:  # perhaps a writer's append caught half-way: look again once it is done
        time.sleep(SETTLE_S)
        report = VerifyReport()
        last, torn = _check_batches(directory, report, on_progress)
    for snapshot in list_snapshots(directory):
        report.snapshots += 1
        try:
            verify_snapshot(snapshot.path)
        except SnapshotError as error:
            report.problems.append(str(error))
    if not report.problems:  # a torn tail is not replayed: compare the rest
        _compare_replays(directory, report, on_progress, last)
    report.problems += [] if torn is None else [torn]
    _storage_warnings(directory, report)
    return report


SETTLE_S = 0.2
"""How long a verify waits before it reads a torn tail again: a writer's append in progress
completes well within it, a tail torn by a crash stays torn."""


def _check_batches(
    directory: Path, report: VerifyReport, on_progress: OnProgress | None
) -> tuple[int, str | None]:
    """The first pass: every batch's CRC, counted into ``report`` (corruption in its problems).
    Returns the point verified (the last offset of the last whole batch read, -1 for none:
    what a writer appends later is left to the next verify) and a torn tail's description."""
    last = -1
    try:
        for batch in read_batches(directory, strict=True):
            report.batches += 1
            report.records += len(batch.values)
            last = batch.last_offset
            if on_progress is not None:
                on_progress(batch.last_offset, _CHECKING)
    except TornTailError as error:
        return last, str(error)
    except CorruptLogError as error:
        report.problems.append(str(error))
    return last, None


def _storage_warnings(directory: Path, report: VerifyReport) -> None:
    report.quarantined = [str(path) for path in list_quarantined(directory)]
    for name in report.quarantined:
        report.warnings.append(
            f"{name} holds bytes a writer cut off the log as a torn tail (never "
            "acknowledged); keep it to inspect, or delete it"
        )
    for path, mode in loose_files(directory):
        report.warnings.append(
            f"{path} has mode {mode:04o}: group or others may read it, and the log holds "
            f"SCRAM salts and keys; chmod {'700' if path.is_dir() else '600'} it"
        )
    _index_warnings(directory, report)
    report.warnings += [str(fenced) for fenced in fenced_tails(directory)]  # never damage
    point = read_recovery_point(directory)
    if point.problem is not None and list_segments(directory):
        report.warnings.append(
            f"{point.problem}: a damaged newest batch cannot be told from a torn write"
        )


def _index_warnings(directory: Path, report: VerifyReport) -> None:
    """A warning per offset index that Kafka's ``kafka-dump-log.sh --verify-index-only`` would
    find mismatches in (reads are not affected: an index is only a hint)."""
    for base, segment in list_segments(directory):
        mismatches = kafka_mismatches(segment, base)
        if mismatches:
            offset, found = mismatches[0]
            report.warnings.append(
                f"{index_path(segment)}: {len(mismatches)} entries do not hold the last offset "
                f"of the batch at their position (first: index offset {offset}, log offset "
                f"{found}), as Kafka's kafka-dump-log.sh --verify-index-only will report; reads "
                "are not affected, and the next writer to open the log rebuilds an index in the "
                "first-offset convention of earlier aclog versions"
            )


def _replays(
    directory: Path, on_progress: OnProgress | None, last: int, *, kraft: bool = False
) -> tuple[MetadataImage, MetadataImage, list[str]]:
    """(the full replay, snapshot + tail, the warnings of choosing the snapshot), both as of
    offset ``last`` (whatever a writer appended after the first pass is left out of both)."""

    def told(what: str) -> Callable[[Any], None] | None:
        if on_progress is None:
            return None
        return lambda batch: on_progress(batch.last_offset, what)

    full = rebuild_image(
        directory, at_offset=last, use_snapshots=False, on_batch=told("full replay"), kraft=kraft
    ).image
    warnings: list[str] = []
    fast = rebuild_image(
        directory,
        at_offset=last,
        on_warning=warnings.append,
        on_batch=told("snapshot + tail replay"),
        kraft=kraft,
    ).image
    return full, fast, warnings


def _compare_replays(
    directory: Path, report: VerifyReport, on_progress: OnProgress | None, last: int
) -> None:
    segments = list_segments(directory)
    if segments and segments[0][0] > 0:
        report.problems.append(
            f"the log starts at offset {segments[0][0]} (older segments were deleted), so a full "
            "replay cannot be compared with the snapshot; the snapshots and batches were checked"
        )
        return
    try:
        full, fast, warnings = _replays(directory, on_progress, last)
    except (RebuildError, ValueError) as error:
        report.problems.append(f"replay failed: {error}")
        return
    report.problems += warnings
    report.differences = image_differences(full, fast)


def _judge_kraft_tail(report: VerifyReport, path: Path, problem: ScanProblem) -> None:
    """A whole last batch that fails its CRC is a problem; an incomplete one a warning."""
    found = report.problems if problem.reason == CRC_MISMATCH else report.warnings
    found.append(tail_note(path, problem))


def verify_kraft_directory(directory: Path, on_progress: OnProgress | None = None) -> VerifyReport:
    """The same checks on a KRaft metadata directory: every batch of every segment and every
    ``.checkpoint`` is read and decoded, and, when the log still starts at offset 0, the
    newest checkpoint + tail must hold the same ACLs and credentials as a full replay (KRaft
    snapshots list ACLs in their own order, so order is not compared)."""
    report = VerifyReport()
    last = -1  # the point verified, as in verify_directory: Kafka appends meanwhile
    try:
        for batch in read_kraft(directory, on_tail=partial(_judge_kraft_tail, report)):
            report.batches += 1
            report.records += batch.record_count
            last = batch.last_offset
            if on_progress is not None:
                on_progress(batch.last_offset, _CHECKING)
    except KraftError as error:
        report.problems.append(str(error))
    for checkpoint in list_checkpoints(directory):
        report.snapshots += 1
        try:
            read_checkpoint(checkpoint.path)
        except (KraftError, OSError) as error:
            report.problems.append(str(error))
    if report.problems:
        return report
    segments = list_segments(directory)
    if segments and segments[0][0] > 0:
        return report  # Kafka deleted the segments below its snapshots: nothing to compare
    try:
        full, fast, warnings = _replays(directory, on_progress, last, kraft=True)
    except (RebuildError, ReplayError, ValueError) as error:
        report.problems.append(f"replay failed: {error}")
        return report
    report.problems += warnings
    report.differences = image_differences(full, fast, ordered=False)
    return report


def image_differences(
    full: MetadataImage, fast: MetadataImage, *, ordered: bool = True
) -> list[str]:
    """Human-readable differences between the full replay and snapshot + tail (``ordered``:
    the ACLs' commit order must match too)."""
    out = []
    if full.provenance != fast.provenance:
        out.append(f"provenance: full replay {full.provenance}, snapshot + tail {fast.provenance}")
    # Each image's records read once: a table-backed image makes them at each pass.
    full_list, fast_list = list(image_records(full)), list(image_records(fast))
    full_records = {_key(r): r for r in full_list}
    fast_records = {_key(r): r for r in fast_list}
    for key in full_records.keys() - fast_records.keys():
        out.append(f"only in the full replay: {record_to_dict(full_records[key])}")
    for key in fast_records.keys() - full_records.keys():
        out.append(f"only in snapshot + tail: {record_to_dict(fast_records[key])}")
    if ordered and _acl_ids(full_list) != _acl_ids(fast_list) and not out:
        out.append("the same ACLs, in a different commit order")
    return sorted(out)


def _acl_ids(records: list[Any]) -> list[Any]:
    """The ids of the ACL records among ``records``, in order (an image's commit order)."""
    return [r.id for r in records if isinstance(r, AccessControlEntryRecord)]


def _key(record: Any) -> tuple[Any, ...]:
    return tuple(record_to_dict(record, redact=False).items())
