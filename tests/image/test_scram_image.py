"""ScramImage / ScramDelta: upsert and strict remove, snapshots, describe, redaction."""

from __future__ import annotations

import pytest

from aclog.acl import ApiError, Errors
from aclog.image import (
    CredentialInfo,
    ReplayError,
    ScramCredential,
    ScramDelta,
    ScramDescribeResult,
    ScramImage,
)
from aclog.records.enums import ScramMechanism
from aclog.records.types import RemoveUserScramCredentialRecord, UserScramCredentialRecord

SHA256 = ScramMechanism.SCRAM_SHA_256
SHA512 = ScramMechanism.SCRAM_SHA_512


def upsert(name: str, mechanism: ScramMechanism = SHA256, iterations: int = 4096, tag: bytes = b""):
    return UserScramCredentialRecord(
        name, mechanism, b"salt" + tag, b"stored" + tag, b"server" + tag, iterations
    )


def remove(name: str, mechanism: ScramMechanism = SHA256) -> RemoveUserScramCredentialRecord:
    return RemoveUserScramCredentialRecord(name, mechanism)


def replay_all(image: ScramImage, records, first_offset: int = 0) -> ScramImage:
    delta = ScramDelta(image)
    for offset, record in enumerate(records, start=first_offset):
        delta.replay(record, offset)
    return delta.apply()


def cred(record: UserScramCredentialRecord) -> ScramCredential:
    return ScramCredential.from_record(record)


def test_upsert_inserts_and_overwrites() -> None:
    image = replay_all(ScramImage.EMPTY, [upsert("alice"), upsert("alice", SHA512)])
    assert set(image.users["alice"]) == {SHA256, SHA512}
    newer = upsert("alice", iterations=8192, tag=b"2")
    image = replay_all(image, [newer])
    assert image.credential("alice", SHA256) == cred(newer)
    assert image.credential("alice", SHA512) == cred(upsert("alice", SHA512))
    assert image.credential("bob", SHA256) is None


def test_remove_last_credential_removes_user() -> None:
    image = replay_all(ScramImage.EMPTY, [upsert("alice"), upsert("alice", SHA512)])
    image = replay_all(image, [remove("alice")])
    assert list(image.users["alice"]) == [SHA512]
    image = replay_all(image, [remove("alice", SHA512)])
    assert "alice" not in image.users
    assert image == ScramImage.EMPTY


def test_remove_missing_credential_raises_with_offset() -> None:
    image = replay_all(ScramImage.EMPTY, [upsert("alice")])
    with pytest.raises(ReplayError, match=r"offset 17.*SCRAM-SHA-512.*'alice'"):
        ScramDelta(image).replay(remove("alice", SHA512), 17)
    with pytest.raises(ReplayError, match="offset 3"):
        ScramDelta(image).replay(remove("bob"), 3)
    delta = ScramDelta(image)
    delta.replay(remove("alice"), 0)
    with pytest.raises(ReplayError, match="offset 1"):
        delta.replay(remove("alice"), 1)


def test_upsert_then_remove_in_one_delta_cancels() -> None:
    delta = ScramDelta(ScramImage.EMPTY)
    delta.replay(upsert("alice"), 0)
    delta.replay(remove("alice"), 1)
    assert dict(delta.changes) == {}
    assert delta.apply() is ScramImage.EMPTY


def test_overwrite_then_remove_of_stored_credential_is_a_removal() -> None:
    image = replay_all(ScramImage.EMPTY, [upsert("alice")])
    delta = ScramDelta(image)
    delta.replay(upsert("alice", tag=b"x"), 0)
    delta.replay(remove("alice"), 1)
    assert dict(delta.changes) == {("alice", SHA256): None}
    assert delta.apply() == ScramImage.EMPTY


def test_changes_keep_commit_order() -> None:
    image = replay_all(ScramImage.EMPTY, [upsert("carol")])
    delta = ScramDelta(image)
    for offset, record in enumerate([upsert("bob"), remove("carol"), upsert("alice")]):
        delta.replay(record, offset)
    assert list(delta.changes) == [("bob", SHA256), ("carol", SHA256), ("alice", SHA256)]
    assert delta.changes[("carol", SHA256)] is None


def test_finish_snapshot() -> None:
    image = replay_all(ScramImage.EMPTY, [upsert("alice"), upsert("bob"), upsert("bob", SHA512)])
    delta = ScramDelta(image, snapshot=True)
    delta.replay(upsert("bob", SHA512), 0)
    delta.replay(upsert("dave"), 1)
    result = delta.apply()
    assert result == replay_all(ScramImage.EMPTY, [upsert("bob", SHA512), upsert("dave")])
    plain = ScramDelta(image)
    plain.finish_snapshot()
    assert plain.apply() == ScramImage.EMPTY


def test_snapshot_delta_rejects_removal_of_unstated_credential() -> None:
    image = replay_all(ScramImage.EMPTY, [upsert("alice")])
    with pytest.raises(ReplayError):
        ScramDelta(image, snapshot=True).replay(remove("alice"), 0)


def test_image_is_read_only() -> None:
    image = replay_all(ScramImage.EMPTY, [upsert("alice")])
    with pytest.raises(TypeError):
        image.users["bob"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        image.users["alice"][SHA512] = cred(upsert("x"))  # type: ignore[index]
    built = ScramImage({"alice": {SHA256: cred(upsert("alice"))}})
    assert built == image


def test_credential_repr_and_to_dict_redact_secrets() -> None:
    credential = ScramCredential(b"SALTSALT", b"STOREDKEY", b"SERVERKEY", 4096)
    text = repr(credential)
    for secret in ("SALTSALT", "STOREDKEY", "SERVERKEY", "U0FMVF"):
        assert secret not in text
    assert "iterations=4096" in text
    image = ScramImage({"bob": {SHA512: credential}, "alice": {SHA256: credential}})
    assert image.to_dict() == [
        {"name": "alice", "credentials": [{"mechanism": "SCRAM-SHA-256", "iterations": 4096}]},
        {"name": "bob", "credentials": [{"mechanism": "SCRAM-SHA-512", "iterations": 4096}]},
    ]
    assert "SALT" not in repr(image) and "STORED" not in repr(image)


def test_credential_equality() -> None:
    a = ScramCredential(b"s", b"k", b"v", 4096)
    assert a == ScramCredential(b"s", b"k", b"v", 4096)
    assert hash(a) == hash(ScramCredential(b"s", b"k", b"v", 4096))
    assert a != ScramCredential(b"s", b"k", b"w", 4096)
    assert a != ScramCredential(b"s", b"k", b"v", 4097)
    assert a != "not a credential"


@pytest.fixture
def described() -> ScramImage:
    return replay_all(
        ScramImage.EMPTY,
        [upsert("bob", SHA512, 8192), upsert("bob", SHA256, 4096), upsert("alice", SHA256, 5000)],
    )


@pytest.mark.parametrize("names", [None, []])
def test_describe_all_users(described: ScramImage, names: list[str] | None) -> None:
    assert described.describe(names) == [
        ScramDescribeResult("alice", ApiError.NONE, (CredentialInfo(SHA256, 5000),)),
        ScramDescribeResult(
            "bob", ApiError.NONE, (CredentialInfo(SHA256, 4096), CredentialInfo(SHA512, 8192))
        ),
    ]


def test_describe_named_users_duplicates_and_missing(described: ScramImage) -> None:
    results = described.describe(["bob", "carol", "alice", "bob", "bob"])
    assert [r.user for r in results] == ["bob", "carol", "alice"]
    assert results[0].error == ApiError(
        Errors.DUPLICATE_RESOURCE,
        "Cannot describe SCRAM credentials for the same user twice in a single request: bob",
    )
    assert results[0].credentials == ()
    assert results[1].error == ApiError(
        Errors.RESOURCE_NOT_FOUND,
        "Attempt to describe a user credential that does not exist: carol",
    )
    assert results[2] == ScramDescribeResult(
        "alice", ApiError.NONE, (CredentialInfo(SHA256, 5000),)
    )


def test_describe_empty_image() -> None:
    assert ScramImage.EMPTY.describe(None) == []
    [result] = ScramImage.EMPTY.describe([""])
    assert result.error.error == Errors.RESOURCE_NOT_FOUND


HISTORY = [
    upsert("alice"),
    upsert("bob", SHA512),
    upsert("alice", tag=b"2"),
    remove("bob", SHA512),
    upsert("carol"),
    upsert("alice", SHA512),
    remove("alice"),
    upsert("bob"),
]


@pytest.mark.parametrize("first", range(1, len(HISTORY) + 1))
@pytest.mark.parametrize("later", range(1, len(HISTORY) + 1))
def test_every_batch_split_gives_the_same_image(first: int, later: int) -> None:
    expected = replay_all(ScramImage.EMPTY, HISTORY)
    image, offset, size = ScramImage.EMPTY, 0, first
    while offset < len(HISTORY):
        image = replay_all(image, HISTORY[offset : offset + size], offset)
        offset, size = offset + size, later
    assert image == expected
    assert expected == ScramImage(
        {
            "alice": {SHA512: cred(upsert("alice", SHA512))},
            "carol": {SHA256: cred(upsert("carol"))},
            "bob": {SHA256: cred(upsert("bob"))},
        }
    )
