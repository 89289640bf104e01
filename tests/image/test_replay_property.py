"""Random valid record histories, cut into random batches, replay to the same image as a dict
model of the state."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import MetadataImage, MetadataProvenance, apply_records
from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.types import (
    AccessControlEntryRecord,
    NoOpRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)

USERS = ["alice", "bob", "carol"]
MECHANISMS = [ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512]


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Record], dict[uuid.UUID, str], dict[tuple, int]]:
    """A valid record sequence plus the model state it leads to."""
    acls: dict[uuid.UUID, str] = {}
    creds: dict[tuple[str, ScramMechanism], int] = {}
    records: list[Record] = []
    next_id = 1
    for _ in range(draw(st.integers(0, 30))):
        choice = draw(st.sampled_from(["add", "remove", "upsert", "unset", "noop"]))
        if choice == "add":
            acl_id, name = uuid.UUID(int=next_id), f"t{next_id}"
            next_id += 1
            records.append(_acl(acl_id, name))
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


def _acl(acl_id: uuid.UUID, name: str) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        acl_id,
        ResourceType.TOPIC,
        name,
        PatternType.LITERAL,
        "User:x",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )


@settings(max_examples=200, deadline=None)
@given(histories(), st.lists(st.integers(1, 5), min_size=1, max_size=40))
def test_any_batching_reaches_the_model_state(history, sizes) -> None:
    records, acls, creds = history
    image, offset = MetadataImage.EMPTY, 0
    for size in [*sizes, len(records)]:
        batch = records[offset : offset + size]
        if batch:
            image = apply_records(image, batch, offset)
            offset += len(batch)
    assert offset == len(records)
    assert {acl_id: acl.resource_name for acl_id, acl in image.acls.acls.items()} == acls
    assert list(image.acls.acls) == list(acls)
    flat = {
        (name, mechanism): credential.iterations
        for name, credentials in image.scram.users.items()
        for mechanism, credential in credentials.items()
    }
    assert flat == creds
    assert all(image.scram.users.values())  # no user without credentials
    whole = apply_records(MetadataImage.EMPTY, records, 0)
    assert whole == image
    if records:
        assert image.provenance == MetadataProvenance(len(records) - 1, -1, -1)
