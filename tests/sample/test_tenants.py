"""The tenancy generator: seeded, committed through the controller, and overlapping the way the
questions need: team PREFIXED grants that decide many topics, DENYs that override ALLOWs,
redundant ACLs, ``User:*`` and LITERAL ``*`` grants, orphan ACLs and credentials, weak
iterations and several authors."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.authorizer import Authorizer, Decision
from aclog.questions.lint import lint_acls
from aclog.records import AclOperation, ResourceType
from aclog.replay import read_decoded, rebuild_image
from aclog.sample import setup_requests, tenancy, write_tenancy


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tenants")
    write_tenancy(directory, tenancy(seed=5), changes=60, seed=5, snapshot_every=40)
    return directory


def test_same_seed_same_requests() -> None:
    def bindings(seed: int) -> list[object]:
        return [
            (r.caller, r.create, r.delete, r.upsert)
            for r in setup_requests(tenancy(seed=seed), seed)
        ]

    assert bindings(3) == bindings(3)
    assert bindings(3) != bindings(4)


def test_counts_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        tenancy(topics=0)


def test_principals_and_topics_overlap(written: Path) -> None:
    world = tenancy(seed=5)
    image = rebuild_image(written).image
    authorizer = Authorizer()
    authorizer.load(list(image.acls))
    allowed = {
        (p, t)
        for p in world.principals
        for t in world.topics
        if authorizer.authorize(p, "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, t)
        == Decision.ALLOWED
    }
    team = world.teams[0]
    own = [t for t in world.topics if t.startswith(team.prefix) and ".pii-" not in t]
    assert all((f"User:{team.accounts[1]}", t) in allowed for t in own)  # one PREFIXED grant
    pii = next(t for t in world.topics if t.startswith(team.prefix) and ".pii-" in t)
    assert (f"User:{team.accounts[1]}", pii) not in allowed  # the DENY overrides the team grant
    assert all(("User:intruder", t) in allowed for t in world.topics if t.startswith("public."))
    assert 0.05 < len(allowed) / (len(world.principals) * len(world.topics)) < 0.6
    from_quarantine = authorizer.authorize(
        f"User:{team.accounts[1]}", "10.66.6.6", AclOperation.WRITE, ResourceType.TOPIC, own[0]
    )
    assert from_quarantine == Decision.DENIED


def test_hygiene_and_orphans_have_something_to_find(written: Path) -> None:
    world = tenancy(seed=5)
    image = rebuild_image(written).image
    kinds = {finding.kind for finding in lint_acls(list(image.acls))}
    assert {"redundant_acl", "any_principal", "wildcard_resource"} <= kinds
    named = {acl.principal.removeprefix("User:") for acl in image.acls}
    credentials = set(image.scram.users)
    accounts = {a for team in world.teams for a in team.accounts}
    assert accounts & named - credentials, "ACLs of accounts without a credential"
    assert credentials - named, "credentials no ACL names"
    iterations = {c.iterations for m in image.scram.users.values() for c in m.values()}
    assert 4096 in iterations and 8192 in iterations


def test_changes_come_from_several_authors_over_time(written: Path) -> None:
    batches = [b for b in read_decoded(written) if b.author is not None]
    assert len({b.author.principal for b in batches if b.author}) >= 3
    times = [b.timestamp_ms for b in batches]
    assert times == sorted(times) and len(set(times)) == len(times)
