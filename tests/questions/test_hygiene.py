"""Hygiene of a data directory: SCRAM credentials dated by the commit time of their newest
record (freezegun plays "now"), weak iteration counts, and the ACL findings beside them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from freezegun import freeze_time

from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.questions.hygiene import credential_ages, lint_directory
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.snapshot import RetentionPolicy

CALLER = Caller("User:admin", "10.0.0.1", "test", "test")
SHA256, SHA512 = ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512
DAY = 86_400.0
T0 = datetime(2025, 1, 1, tzinfo=UTC).timestamp()


def _day(n: float) -> str:
    return datetime.fromtimestamp(T0 + n * DAY, UTC).isoformat()


def _set(controller: Controller, user: str, mechanism: ScramMechanism, iterations: int) -> None:
    upsert = upsertion_for_password(user, mechanism, "pw", iterations, salt=b"salt")
    assert controller.alter_scram([upsert], [], CALLER)[0].error.code == 0


def _found(report) -> set[tuple[str, str | None, str | None]]:
    return {(f.kind, f.user, f.mechanism) for f in report.findings}


def test_credentials_are_dated_by_their_newest_record(tmp_path: Path) -> None:
    clock = [T0]
    with Controller.open(tmp_path, authorizer=LocalOperator(), clock=lambda: clock[0]) as c:
        _set(c, "old", SHA256, 4096)
        _set(c, "rotated", SHA512, 8192)
        clock[0] = T0 + 50 * DAY
        _set(c, "fresh", SHA512, 8192)
        clock[0] = T0 + 100 * DAY
        _set(c, "rotated", SHA512, 8192)
    with freeze_time(_day(120)):
        report = lint_directory(tmp_path, max_age_days=90)
    assert _found(report) == {
        ("weak_iterations", "old", "SCRAM-SHA-256"),
        ("stale_credential", "old", "SCRAM-SHA-256"),
    }
    stale = next(f for f in report.findings if f.kind == "stale_credential")
    assert "last changed 2025-01-01T00:00:00Z, 120 days ago (more than 90)" in stale.message
    assert report.credentials_checked == 3 and report.acls_checked == 0
    with freeze_time(_day(120)):
        assert _found(lint_directory(tmp_path)) == {("weak_iterations", "old", "SCRAM-SHA-256")}
        strict = lint_directory(tmp_path, min_iterations=4096, max_age_days=30)
    assert _found(strict) == {
        ("stale_credential", "old", "SCRAM-SHA-256"),
        ("stale_credential", "fresh", "SCRAM-SHA-512"),
    }


def test_at_a_point_in_time_that_point_is_now(tmp_path: Path) -> None:
    clock = [T0]
    with Controller.open(tmp_path, authorizer=LocalOperator(), clock=lambda: clock[0]) as c:
        _set(c, "old", SHA256, 8192)
        clock[0] = T0 + 100 * DAY
        _set(c, "later", SHA256, 8192)
    at = int((T0 + 60 * DAY) * 1000)
    with freeze_time(_day(400)):
        report = lint_directory(tmp_path, at_time_ms=at, max_age_days=90)
    assert report.credentials_checked == 1 and report.findings == []


def test_a_log_cut_below_a_snapshot_gives_a_lower_bound(tmp_path: Path) -> None:
    clock = [T0]
    retention = RetentionPolicy(delete_log_below_snapshot=True)
    with Controller.open(
        tmp_path, authorizer=LocalOperator(), clock=lambda: clock[0], retention=retention
    ) as c:
        _set(c, "old", SHA256, 8192)
        c.log.roll()
        clock[0] = T0 + 10 * DAY
        _set(c, "mid", SHA256, 8192)
        c.snapshot()  # deletes the first segment, with the record of "old"
        clock[0] = T0 + 100 * DAY
        _set(c, "late", SHA256, 8192)
    _, ages = credential_ages(tmp_path)
    dated = {a.user: (a.changed_ms, a.exact) for a in ages}
    assert dated["late"] == (int((T0 + 100 * DAY) * 1000), True)
    snapshot_time = int((T0 + 10 * DAY) * 1000)  # its newest batch: "mid"
    assert dated["old"] == dated["mid"] == (snapshot_time, False)
    with freeze_time(_day(105)):
        report = lint_directory(tmp_path, max_age_days=90)
    assert {f.user for f in report.findings} == {"old", "mid"}
    assert all("no later than" in f.message and "at least 95" in f.message for f in report.findings)
    with freeze_time(_day(95)):
        assert lint_directory(tmp_path, max_age_days=90).findings == []  # cannot tell: no finding


def test_acl_findings_come_with_the_credential_ones(tmp_path: Path) -> None:
    with Controller.open(tmp_path, authorizer=LocalOperator()) as c:
        binding = AclBinding(
            ResourceType.TOPIC,
            "orders",
            PatternType.LITERAL,
            "User:*",
            "*",
            AclOperation.DELETE,
            AclPermissionType.ALLOW,
        )
        c.create_acls([binding], CALLER)
        _set(c, "weak", SHA512, 4096)
    report = lint_directory(tmp_path)
    assert [(f.kind, f.severity.value) for f in report.findings] == [
        ("any_principal", "error"),
        ("weak_iterations", "warning"),
        ("any_host_sensitive", "info"),
    ]
