"""Random valid record histories, cut into random batches, replay to the same image as a dict
model of the state: through ``replay_batches`` (the broker's, the controller's and the tools'
entry point: one delta per call, batches of ACLs in one go) and record by record."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import MetadataImage, MetadataProvenance, apply_records
from aclog.records.enums import (
    ScramMechanism,
)
from aclog.records.types import (
    NoOpRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from aclog.replay import CommittedBatch, replay_batches
from tests.acl_factory import acl_record

USERS = ["alice", "bob", "carol"]
MECHANISMS = [ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512]


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Record], dict[uuid.UUID, str], dict[tuple, int]]:
    """A valid record sequence plus the model state it leads to."""
    acls: dict[uuid.UUID, str] = {}
    creds: dict[tuple[str, ScramMechanism], int] = {}
    records: list[Record] = []
    next_id = 1
    # Some histories hold ACL records only (and no-ops), so that whole batches of them take
    # the batch path of replay; the others mix SCRAM records in.
    kinds = ["add", "add", "remove", "noop"]
    if draw(st.booleans()):
        kinds += ["upsert", "unset"]
    for _ in range(draw(st.integers(0, 60))):
        choice = draw(st.sampled_from(kinds))
        if choice == "add":
            acl_id, name = uuid.UUID(int=next_id), f"t{next_id}"
            next_id += 1
            records.append(acl_record(acl_id, name))
            acls[acl_id] = name
        elif choice == "remove" and acls:
            acl_id = draw(st.sampled_from(sorted(acls)))
            records.append(RemoveAccessControlEntryRecord(acl_id))
            del acls[acl_id]
        elif choice == "upsert":
            key = (draw(st.sampled_from(USERS)), draw(st.sampled_from(MECHANISMS)))
            iterations = draw(st.integers(4096, 16384))
            records.append(UserScramCredentialRecord(*key, b"s", b"k", b"v", iterations))
            creds[key] = iterations
        elif choice == "unset" and creds:
            key = draw(st.sampled_from(sorted(creds)))
            records.append(RemoveUserScramCredentialRecord(*key))
            del creds[key]
        else:
            records.append(NoOpRecord())
    return records, acls, creds


def _batches(records: list[Record], sizes: list[int]) -> list[CommittedBatch]:
    batches, offset = [], 0
    for size in [*sizes, len(records)]:
        batch = records[offset : offset + size]
        if batch:
            batches.append(CommittedBatch(offset, 3, 7, tuple(batch)))
            offset += len(batch)
    return batches


@settings(max_examples=200, deadline=None)
@given(
    histories(),
    st.lists(st.integers(1, 20), min_size=1, max_size=40),
    st.integers(1, 4),
)
def test_any_batching_reaches_the_model_state(history, sizes, per_delta) -> None:
    """Each ``replay_batches`` call takes ``per_delta`` batches, as a broker's poll does."""
    records, acls, creds = history
    image, batches = MetadataImage.EMPTY, _batches(records, sizes)
    for first in range(0, len(batches), per_delta):
        image = replay_batches(image, batches[first : first + per_delta]).image
    assert {acl_id: acl.resource_name for acl_id, acl in image.acls.acls.items()} == acls
    assert list(image.acls.acls) == list(acls)
    flat = {
        (name, mechanism): credential.iterations
        for name, credentials in image.scram.users.items()
        for mechanism, credential in credentials.items()
    }
    assert flat == creds
    assert all(image.scram.users.values())  # no user without credentials
    whole = apply_records(MetadataImage.EMPTY, records, 0, MetadataProvenance(-1, 3, 7))
    assert whole.acls == image.acls and whole.scram == image.scram
    assert list(whole.acls.acls) == list(image.acls.acls)
    assert dict(image.acls.bindings) == {acl.key: acl.id for acl in image.acls}
    if records:
        assert image.provenance == MetadataProvenance(len(records) - 1, 3, 7)
