"""The lint's fast path (:mod:`aclog.questions.lint_fast`) against its reference
(:func:`aclog.questions.lint.lint_acls`): the same findings, in the same order; and the
per-image entry (:func:`aclog.questions.lint_image`) a reader that keeps images calls."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.controller import upsertion_for_password
from aclog.controller.controller import Controller, LocalOperator
from aclog.image import AclsImage
from aclog.questions import lint_directory, lint_image
from aclog.questions import lint_memo as memo_module
from aclog.questions.lint import lint_acls
from aclog.questions.lint_fast import lint_records
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ScramMechanism,
)
from aclog.replay import rebuild_image
from tests.authorizer.strategies import acl_sets, make_acl

Op, DENY, ALLOW = AclOperation, AclPermissionType.DENY, AclPermissionType.ALLOW


def _stored(acls: list[AccessControlEntryRecord]) -> list[AccessControlEntryRecord]:
    """``acls`` as an image holds them: each binding once."""
    return list({acl.key: acl for acl in acls}.values())


@settings(max_examples=400, deadline=None)
@given(st.lists(acl_sets(max_size=30), min_size=1, max_size=3))
def test_the_fast_lint_finds_what_the_reference_finds(
    sets: list[list[AccessControlEntryRecord]],
) -> None:
    acls = _stored([acl for part in sets for acl in part])
    assert lint_records(acls) == lint_acls(acls)


def _inventory(count: int, seed: int) -> list[AccessControlEntryRecord]:
    """Tenant-style ACLs with PREFIXED parents, DENYs, wildcards, GLOBs and named hosts."""
    rng = random.Random(seed)
    principals = [f"User:svc-{i}" for i in range(40)] + ["User:*"]
    acls = []
    for i in range(count):
        pattern = rng.choice([PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB])
        name = f"t{rng.randrange(30):02d}.orders-{i % 13}"
        if pattern == PatternType.GLOB and rng.random() < 0.5:
            name = name[: rng.randrange(len(name))] + "*"
        elif rng.random() < 0.01:
            name = "*" if pattern == PatternType.LITERAL else ""
        acls.append(
            make_acl(
                name,
                pattern,
                rng.choice(principals),
                rng.choice(["*", "*", "10.0.0.1", "::1", "0:0:0:0:0:0:0:1"]),
                rng.choice([Op.READ, Op.WRITE, Op.DESCRIBE, Op.ALL, Op.ALTER, Op.DELETE]),
                DENY if rng.random() < 0.15 else ALLOW,
            )
        )
    return _stored(acls)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_fast_lint_equals_the_reference_on_a_seeded_inventory(seed: int) -> None:
    acls = _inventory(3_000, seed)
    fast = lint_records(acls)
    assert fast == lint_acls(acls)
    assert {f.kind for f in fast} >= {"redundant_acl", "allow_never_decides", "any_principal"}


def _data_dir(tmp_path: Path, acls: list[AccessControlEntryRecord]) -> Path:
    """A data directory whose state holds those of ``acls`` the controller accepts (not an
    empty PREFIXED name, say) and one weak SCRAM credential."""
    with Controller.open(tmp_path, authorizer=LocalOperator()) as controller:
        for start in range(0, len(acls), 1_000):
            controller.create_acls([a.binding for a in acls[start : start + 1_000]])
        upsert = upsertion_for_password("weak", ScramMechanism.SCRAM_SHA_256, "pw", 4096)
        assert controller.alter_scram([upsert], [])[0].error.code == 0
    return tmp_path


def test_lint_image_is_the_lint_of_the_directory_without_ages(tmp_path: Path) -> None:
    acls = _inventory(5_000, 7)  # above a small image's size: the fast path on a table
    directory = _data_dir(tmp_path, acls)
    image = rebuild_image(directory).image
    assert image.acls.table is not None and len(image.acls) > 4_096
    report = lint_image(image)
    assert report.to_dict() == lint_directory(directory).to_dict()
    assert report.last_offset == image.provenance.last_offset
    assert [f.kind for f in report.findings].count("weak_iterations") == 1


def test_lint_image_works_an_image_out_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = _data_dir(tmp_path, _inventory(200, 8))
    image = rebuild_image(directory).image
    calls: list[AclsImage] = []
    real = memo_module._worked_out
    monkeypatch.setattr(memo_module, "_worked_out", lambda acls: calls.append(acls) or real(acls))
    first, again = lint_image(image), lint_image(image)
    assert first == again and first.findings and len(calls) == 1
    other = rebuild_image(directory).image  # an equal state, another image: worked out anew
    assert lint_image(other) == first and len(calls) == 2
