"""Observed differences as records: replaying them onto the image gives exactly the observed
state, whatever the image held before (a property), and nothing when nothing changed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from aclog.desired import CurrentState, DesiredState, DesiredUser, Ownership, PasswordSource, plan
from aclog.desired.follow import UNKNOWN_REQUESTER, observed_records, observer
from aclog.image import MetadataImage, apply_records
from aclog.records import ScramMechanism
from tests.desired.test_plan import bindings, credentials


def _image(acls: list, users: dict) -> MetadataImage:  # type: ignore[type-arg]
    state = CurrentState(CurrentState.from_described(acls, []).acls, users)
    records = observed_records(MetadataImage.EMPTY, state)
    return apply_records(MetadataImage.EMPTY, records, 0)


@given(st.lists(bindings), credentials, st.lists(bindings), credentials)
def test_replaying_what_was_observed_gives_the_observed_state(
    had: list,
    had_users: dict,
    seen: list,
    seen_users: dict,  # type: ignore[type-arg]
) -> None:
    image = _image(had, had_users)
    observed = CurrentState(CurrentState.from_described(seen, []).acls, seen_users)
    records = observed_records(image, observed)
    after = apply_records(image, records, image.provenance.last_offset + 1)
    assert CurrentState.from_image(after).fingerprint == observed.fingerprint
    assert observed_records(after, observed) == []
    # An observed credential carries no secret: the admin API shows none.
    for by_mechanism in after.scram.users.values():
        assert all(c.salt == c.stored_key == c.server_key == b"" for c in by_mechanism.values())


def test_the_observer_names_the_cluster_and_no_requester() -> None:
    caller = observer("10.1.2.3:9092", 1_795_600_000_000)
    assert caller.principal == UNKNOWN_REQUESTER
    assert caller.client_address == "10.1.2.3:9092"
    assert caller.api is not None
    assert "2026-11-" in caller.api and "the requester is unknown" in caller.api


def test_a_followed_credential_has_an_unknown_password_not_another_one() -> None:
    key = ("orders-app", ScramMechanism.SCRAM_SHA_512)
    current = CurrentState.from_image(_image([], {key: 8192}))
    assert current.password_matches(key, "any-password") is None
    owns = Ownership(everything=True)
    user = DesiredUser(key[0], key[1], 8192, PasswordSource(env="UNUSED"), 1)
    desired = DesiredState("test.yaml", "00", owns, (), (user,), {})
    computed = plan(desired, current, passwords={key: "any-password"})
    assert not computed.has_changes
    assert computed.unverified == ("orders-app (SCRAM-SHA-512)",)
    assert computed.unverified_reason is not None and "aclog follow" in computed.unverified_reason
    forced = plan(desired, current, passwords={key: "any-password"}, set_unverified=True)
    assert [u.reason for u in forced.upsert] == ["password set (not checkable)"]
