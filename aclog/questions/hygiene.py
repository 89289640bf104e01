"""The hygiene of one data directory: the ACL findings of :mod:`aclog.questions.lint` plus
SCRAM credential findings, for the state as of a point.

- ``weak_iterations`` (warning): a credential with fewer iterations than the minimum asked
  (8192 by default; Kafka accepts 4096 to 16384).
- ``stale_credential`` (warning): a credential last changed (set or rotated) more than the
  maximum age before "now" (the ``at_time`` point when given, else the clock).

A credential's last change is the commit time of the batch holding its newest
``UserScramCredentialRecord``, found by replaying the whole log with every batch's timestamp
(as ``aclog diff`` does). When the log no longer reaches back to offset 0 (segments deleted
below a snapshot), the state comes from the snapshot and a credential not changed since is
known only to have changed no later than the snapshot: its age is then a lower bound, and it is
reported stale only when that bound already exceeds the maximum.

Reads only: no lock, no write. Thread-safe (no shared state but the per-image memo of
:mod:`aclog.questions.lint_memo`, which locks). Cost: a full replay (O(records)) when ages are
asked, else a rebuild from the newest snapshot; then the lint
(:mod:`aclog.questions.lint_fast`, near-linear in the ACLs).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from aclog.controller.scram_limits import LINT_MIN_ITERATIONS
from aclog.image import MetadataImage
from aclog.questions.findings import Finding, LintReport, Severity
from aclog.questions.lint_memo import acl_findings
from aclog.records import Record, ScramMechanism, UserScramCredentialRecord
from aclog.records.warning import OnWarning, ignore_warning
from aclog.replay.rebuild import RebuildError, Rebuilt, rebuild_image
from aclog.replay.stream import DecodedBatch

_DAY_MS = 86_400_000


@dataclass(frozen=True)
class CredentialAge:
    """One SCRAM credential, its iterations and when it last changed (ms since the epoch):
    exactly, or (``exact`` False) at the latest then; ``None`` when unknown."""

    user: str
    mechanism: ScramMechanism
    iterations: int
    changed_ms: int | None
    exact: bool


def credential_ages(
    directory: Path,
    *,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    kraft: bool = False,
    on_warning: OnWarning = ignore_warning,
    full_replay: bool = True,
    on_batch: Callable[[DecodedBatch], None] | None = None,
) -> tuple[Rebuilt, list[CredentialAge]]:
    """The state as of the point and every credential in it with its last change time.
    ``full_replay=False`` starts from the newest snapshot, as every reader does: faster, but a
    credential not changed since is dated only by the snapshot. ``on_batch`` is told each batch
    replayed (progress)."""
    changed: dict[tuple[str, ScramMechanism], int] = {}

    def remember(batch: DecodedBatch) -> None:
        if on_batch is not None:
            on_batch(batch)
        for record in _not_acls(batch):
            if isinstance(record, UserScramCredentialRecord):
                changed[(record.name, record.mechanism)] = batch.timestamp_ms

    def rebuild(use_snapshots: bool) -> Rebuilt:
        changed.clear()
        return rebuild_image(
            directory,
            at_offset=at_offset,
            at_time_ms=at_time_ms,
            use_snapshots=use_snapshots,
            on_warning=on_warning,
            on_batch=remember,
            kraft=kraft,
        )

    try:
        rebuilt = rebuild(use_snapshots=not full_replay)
    except RebuildError:
        if not full_replay:
            raise
        rebuilt = rebuild(use_snapshots=True)  # the log starts above 0: bounds from a snapshot
    return rebuilt, _dated(rebuilt, changed)


def _not_acls(batch: DecodedBatch) -> Iterable[Record]:
    """The batch's records, but for its ACL records when it keeps them apart (a batch read
    from a segment): replay takes its ACLs as columns, and reading ``records`` would build
    an object per ACL of a bulk batch only to find it is no credential."""
    if batch.decoded is None:
        return batch.records
    return (record for _, record in batch.decoded.others)


def _dated(rebuilt: Rebuilt, changed: dict[tuple[str, ScramMechanism], int]) -> list[CredentialAge]:
    """Every credential of the state, by user and mechanism, dated by ``changed`` or else
    bounded by the snapshot."""
    source = rebuilt.snapshot or rebuilt.kraft_checkpoint
    bound = None if source is None else source.timestamp_ms
    return [
        CredentialAge(
            user,
            mechanism,
            credential.iterations,
            changed.get((user, mechanism), bound),
            (user, mechanism) in changed,
        )
        # By user, then mechanism: an order any reader of the state can reproduce (the
        # pipeline's lint job sorts so), unlike the image's insertion order.
        for user, mechanisms in sorted(rebuilt.image.scram.users.items())
        for mechanism, credential in sorted(mechanisms.items())
    ]


def lint_credentials(
    ages: list[CredentialAge],
    *,
    now_ms: int,
    min_iterations: int = LINT_MIN_ITERATIONS,
    max_age_days: float | None = None,
) -> list[Finding]:
    """The ``weak_iterations`` and ``stale_credential`` findings, credential by credential."""
    findings = []
    for age in ages:
        what = f"SCRAM credential {age.mechanism.mechanism_name} of {age.user!r}"
        user, mechanism = age.user, age.mechanism.mechanism_name
        if age.iterations < min_iterations:
            message = f"{what}: {age.iterations} iterations, below the minimum {min_iterations}"
            findings.append(
                Finding("weak_iterations", Severity.WARNING, message, (), user, mechanism)
            )
        stale = _staleness(age, now_ms, max_age_days)
        if stale is not None:
            message = f"{what}: {stale}"
            findings.append(
                Finding("stale_credential", Severity.WARNING, message, (), user, mechanism)
            )
    return findings


def _staleness(age: CredentialAge, now_ms: int, max_age_days: float | None) -> str | None:
    """Why the credential is stale, or ``None`` when it is not (or cannot be told)."""
    if max_age_days is None or age.changed_ms is None:
        return None
    days = (now_ms - age.changed_ms) / _DAY_MS
    if days <= max_age_days:
        return None
    when = datetime.fromtimestamp(age.changed_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    changed = f"last changed {when}" if age.exact else f"last changed no later than {when}"
    at_least = "" if age.exact else "at least "
    return f"{changed}, {at_least}{days:.0f} days ago (more than {max_age_days:g})"


def lint_directory(
    directory: Path,
    *,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    kraft: bool = False,
    min_iterations: int = LINT_MIN_ITERATIONS,
    max_age_days: float | None = None,
    now_ms: int | None = None,
    on_warning: OnWarning = ignore_warning,
    on_batch: Callable[[DecodedBatch], None] | None = None,
) -> LintReport:
    """Every finding about the state of ``directory`` as of the point (see the module
    docstring); ``now_ms`` defaults to ``at_time_ms``, else the clock. ``on_batch`` is told
    each batch replayed (progress)."""
    rebuilt, ages = credential_ages(
        directory,
        at_offset=at_offset,
        at_time_ms=at_time_ms,
        kraft=kraft,
        on_warning=on_warning,
        full_replay=max_age_days is not None,
        on_batch=on_batch,
    )
    if now_ms is None:
        now_ms = at_time_ms if at_time_ms is not None else int(time.time() * 1000)
    credentials = lint_credentials(
        ages, now_ms=now_ms, min_iterations=min_iterations, max_age_days=max_age_days
    )
    return _report(rebuilt.image, credentials, len(ages))


def lint_image(image: MetadataImage, *, min_iterations: int = LINT_MIN_ITERATIONS) -> LintReport:
    """:func:`lint_directory`'s report of the state ``image`` holds, without credential ages
    (they need the log): what ``aclog lint --json`` says of that state without
    ``--max-credential-age-days``. The ACL findings are worked out once per image
    (:func:`~aclog.questions.lint_memo.acl_findings`): the entry for a reader that keeps
    images, such as the UI."""
    ages = [
        CredentialAge(user, mechanism, credential.iterations, None, False)
        for user, mechanisms in sorted(image.scram.users.items())
        for mechanism, credential in sorted(mechanisms.items())
    ]
    credentials = lint_credentials(ages, now_ms=0, min_iterations=min_iterations)
    return _report(image, credentials, len(ages))


def _report(image: MetadataImage, credentials: list[Finding], checked: int) -> LintReport:
    """The report of ``image``'s ACL findings and ``credentials``' of ``checked``."""
    findings = acl_findings(image.acls) + credentials
    return LintReport.of(findings, len(image.acls), checked, image.provenance.last_offset)
