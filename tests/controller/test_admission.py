"""A record from outside the controller (a KRaft import, ``aclog follow``) is held to the
controller's own rules: for every binding the validation tests list, the admission keeps the
record out with exactly the error and message CreateAcls answers; a credential record is
kept out with the upsertion's error; the state's rules (unique ids and bindings, removals of
what exists) and the kept-out consequences follow."""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from aclog.acl import ApiError
from aclog.controller import AclControlManager, RecordAdmission
from aclog.controller.admission import rule_error
from aclog.controller.requests import ScramUpsertion
from aclog.controller.scram_manager import ScramControlManager
from aclog.image import MetadataImage
from aclog.records import (
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from aclog.records.enums import PatternType, ResourceType
from aclog.records.types import AclBinding
from tests.controller.test_acl_scram_validation import KAFKA_CASES, OK, UP, b, up

GLOB = PatternType.GLOB

ACLOG_CASES = [
    b(host="db.example.com"),
    b(host="10.0.0.0/8"),
    b(principal="alice"),
    b(principal="User:"),
    b(resource_type=ResourceType.CLUSTER, resource_name="kafka-cluster", pattern_type=GLOB),
    b(pattern_type=GLOB, resource_name="trailing\\"),
]


def _created_error(binding: AclBinding) -> ApiError:
    result = AclControlManager().create_acls(MetadataImage.EMPTY.acls, [binding])
    return result.response[0].error


@pytest.mark.parametrize(
    "binding", [binding for binding, _ in KAFKA_CASES] + ACLOG_CASES + [OK, b(host="::1")]
)
def test_an_imported_acl_meets_exactly_what_create_acls_checks(binding: AclBinding) -> None:
    record = binding.with_id(uuid.uuid4())
    verdict = RecordAdmission(MetadataImage.EMPTY).admit([(7, record)], atomic=True)
    expected = _created_error(binding)
    if expected.is_success:
        assert (verdict.kept, verdict.rejected) == ([record], [])
        return
    (rejected,) = verdict.rejected
    assert verdict.kept == []
    assert (rejected.offset, rejected.error, rejected.reason) == (
        7,
        expected.error.name,
        expected.message,
    )


@pytest.mark.parametrize(
    "upsertion",
    [up(iterations=4095), up(iterations=16385), up(salt=b""), up(name=""), UP],
)
def test_an_imported_credential_meets_what_an_upsertion_does(upsertion: ScramUpsertion) -> None:
    decided = ScramControlManager().alter(MetadataImage.EMPTY.scram, [upsertion], [])
    error = decided.response[0].error
    keys = (b"k" * 32, b"s" * 32)  # as derived from a salted password
    record = UserScramCredentialRecord(
        upsertion.name, upsertion.mechanism, upsertion.salt, *keys, upsertion.iterations
    )
    assert rule_error(record) == (None if error.is_success else error)


def test_the_state_rules_and_what_a_kept_out_record_takes_with_it() -> None:
    admission = RecordAdmission(MetadataImage.EMPTY)
    good, bad = OK.with_id(uuid.UUID(int=1)), b(host="db").with_id(uuid.UUID(int=2))
    twin = dataclasses.replace(good, id=uuid.UUID(int=3))  # the same binding again
    first = admission.admit([(1, good), (2, bad), (3, twin)], atomic=True)
    assert first.kept == [good]
    assert [r.offset for r in first.rejected] == [2, 3]
    assert "duplicates the stored ACL" in first.rejected[1].reason
    second = admission.admit(
        [(4, RemoveAccessControlEntryRecord(bad.id)), (5, RemoveAccessControlEntryRecord(good.id))],
        atomic=True,
    )
    assert second.kept == [RemoveAccessControlEntryRecord(good.id)]
    assert second.rejected[0].reason == "it removes the ACL kept out at KRaft offset 2"
    assert list(admission.image.acls) == []


def test_a_users_changes_in_one_batch_stand_or_fall_together() -> None:
    admission = RecordAdmission(MetadataImage.EMPTY)
    sha256 = UserScramCredentialRecord("dave", UP.mechanism, b"salt", b"k" * 32, b"s" * 32, 4096)
    gone = RemoveUserScramCredentialRecord("dave", UP.mechanism)
    erin = dataclasses.replace(sha256, name="erin")
    # dave's second removal (nothing is left to remove) falls, and takes his others with it
    verdict = admission.admit([(1, sha256), (2, erin), (3, gone), (4, gone)], atomic=True)
    assert verdict.kept == [erin]
    assert [r.offset for r in verdict.rejected] == [1, 3, 4]
    # one at a time (a snapshot's records, no request ties them), each stands alone
    alone = RecordAdmission(MetadataImage.EMPTY).admit([(1, sha256), (3, gone), (4, gone)],
                                                      atomic=False)  # fmt: skip
    assert alone.kept == [sha256, gone] and [r.offset for r in alone.rejected] == [4]
