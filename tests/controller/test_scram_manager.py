"""ScramControlManager: Kafka's per-user rules, per-user atomicity, and RFC 5802 keys."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence

import pytest
import scramp

from aclog.acl import ApiError, Errors
from aclog.controller import (
    ScramAlterResult,
    ScramControlManager,
    ScramDeletion,
    ScramUpsertion,
    new_salt,
    salted_password,
    scram_keys,
    upsertion_for_password,
)
from aclog.image import ScramCredential, ScramDelta, ScramImage
from aclog.records.enums import ScramMechanism
from aclog.records.types import (
    Record,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)

SHA256 = ScramMechanism.SCRAM_SHA_256
SHA512 = ScramMechanism.SCRAM_SHA_512
DUPLICATE = ApiError(
    Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request"
)
NOT_FOUND = ApiError(
    Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"
)
OK = ApiError.NONE


def up(name: str, mechanism: ScramMechanism = SHA256, iterations: int = 4096) -> ScramUpsertion:
    return upsertion_for_password(name, mechanism, f"pw-{name}", iterations, salt=b"salt-" + b"x")


def delete(name: str, mechanism: ScramMechanism = SHA256) -> ScramDeletion:
    return ScramDeletion(name, mechanism)


def replay(image: ScramImage, records: Sequence[Record]) -> ScramImage:
    delta = ScramDelta(image)
    for offset, record in enumerate(records):
        assert isinstance(record, UserScramCredentialRecord | RemoveUserScramCredentialRecord)
        delta.replay(record, offset)
    return delta.apply()


def alter(image: ScramImage, upsertions=(), deletions=()):
    result = ScramControlManager().alter(image, list(upsertions), list(deletions))
    return result, replay(image, result.records)


def results(*pairs: tuple[str, ApiError]) -> list[ScramAlterResult]:
    return [ScramAlterResult(user, error) for user, error in pairs]


@pytest.fixture
def image() -> ScramImage:
    _, image = alter(ScramImage.EMPTY, [up("alice"), up("bob", SHA512)])
    return image


def test_upsertion_stores_keys_never_the_salted_password() -> None:
    upsertion = up("alice", iterations=8192)
    result, image = alter(ScramImage.EMPTY, [upsertion])
    assert result.response == results(("alice", OK))
    [record] = result.records
    assert isinstance(record, UserScramCredentialRecord)
    stored_key, server_key = scram_keys(upsertion.salted_password, SHA256)
    assert record == UserScramCredentialRecord(
        "alice", SHA256, upsertion.salt, stored_key, server_key, 8192
    )
    assert upsertion.salted_password not in (record.salt, record.stored_key, record.server_key)
    assert image.credential("alice", SHA256) == ScramCredential(
        upsertion.salt, stored_key, server_key, 8192
    )


def test_deletion_and_upsert_of_other_users(image: ScramImage) -> None:
    result, after = alter(image, [up("carol"), up("alice", SHA512)], [delete("bob", SHA512)])
    assert result.response == results(("bob", OK), ("carol", OK), ("alice", OK))
    assert [type(r).__name__ for r in result.records] == [
        "RemoveUserScramCredentialRecord",
        "UserScramCredentialRecord",
        "UserScramCredentialRecord",
    ]
    assert set(after.users) == {"alice", "carol"}
    assert set(after.users["alice"]) == {SHA256, SHA512}


def test_upsertion_replaces_existing_credential(image: ScramImage) -> None:
    newer = upsertion_for_password("alice", SHA256, "new", 10_000, salt=b"fresh")
    result, after = alter(image, [newer])
    assert result.response == results(("alice", OK))
    credential = after.credential("alice", SHA256)
    assert credential is not None and credential.iterations == 10_000
    assert credential.salt == b"fresh"


def test_delete_missing_credential(image: ScramImage) -> None:
    result, after = alter(image, deletions=[delete("alice", SHA512), delete("nobody")])
    assert result.response == results(("alice", NOT_FOUND), ("nobody", NOT_FOUND))
    assert result.records == ()
    assert after == image


def test_two_deletions_of_one_user_are_duplicates_even_across_mechanisms() -> None:
    _, image = alter(ScramImage.EMPTY, [up("alice")])
    _, image = alter(image, [up("alice", SHA512)])
    result, after = alter(image, deletions=[delete("alice"), delete("alice", SHA512)])
    assert result.response == results(("alice", DUPLICATE))
    assert result.records == ()
    assert after == image


def test_delete_and_upsert_of_one_user_are_duplicates(image: ScramImage) -> None:
    result, _ = alter(image, [up("alice", SHA512)], [delete("alice")])
    assert result.response == results(("alice", DUPLICATE))
    assert result.records == ()


def test_two_upsertions_of_one_user_are_duplicates() -> None:
    result, _ = alter(ScramImage.EMPTY, [up("alice"), up("alice", SHA512)])
    assert result.response == results(("alice", DUPLICATE))
    assert result.records == ()


def test_first_error_of_a_user_stands() -> None:
    # A third entry is ignored once the duplicate error is set ...
    result, _ = alter(ScramImage.EMPTY, [up("alice"), up("alice"), up("alice")])
    assert result.response == results(("alice", DUPLICATE))
    # ... and a failing first entry hides later duplicates.
    bad = up("alice", iterations=10)
    result, _ = alter(ScramImage.EMPTY, [bad, up("alice")])
    assert result.response == results(
        ("alice", ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations"))
    )
    result, _ = alter(ScramImage.EMPTY, [up("alice")], [delete("alice")])
    assert result.response == results(("alice", NOT_FOUND))


@pytest.mark.parametrize(
    ("upsertion", "expected"),
    [
        (ScramUpsertion("", SHA256, 4096, b"s", b"p"), (93, "Username must not be empty")),
        (
            ScramUpsertion("a", ScramMechanism.UNKNOWN, 4096, b"s", b"p"),
            (33, "Unknown SCRAM mechanism"),
        ),
        (ScramUpsertion("a", SHA256, 4095, b"s", b"p"), (93, "Too few iterations")),
        (ScramUpsertion("a", SHA512, 16385, b"s", b"p"), (93, "Too many iterations")),
        (ScramUpsertion("a", SHA256, 4096, b"", b"p"), (93, "Salt must not be empty")),
        (ScramUpsertion("a", SHA256, 4096, b"s", b""), (93, "Salted password must not be empty")),
    ],
)
def test_upsertion_errors(upsertion: ScramUpsertion, expected: tuple[int, str]) -> None:
    result, after = alter(ScramImage.EMPTY, [upsertion])
    code, message = expected
    assert result.response == results((upsertion.name, ApiError(Errors(code), message)))
    assert result.records == ()
    assert after == ScramImage.EMPTY


def test_iteration_bounds_are_inclusive() -> None:
    result, after = alter(ScramImage.EMPTY, [up("lo", iterations=4096), up("hi", SHA512, 16384)])
    assert result.response == results(("lo", OK), ("hi", OK))
    assert len(after.users) == 2


def test_deletion_errors(image: ScramImage) -> None:
    result, _ = alter(image, deletions=[delete(""), delete("alice", ScramMechanism.UNKNOWN)])
    assert result.response == results(
        ("", ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty")),
        ("alice", ApiError(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")),
    )


def test_per_user_atomicity(image: ScramImage) -> None:
    """A bad change for alice costs alice everything and bob nothing."""
    result, after = alter(
        image,
        upsertions=[up("bob"), up("alice", iterations=99), up("dave", SHA512)],
        deletions=[delete("alice")],
    )
    assert result.response == results(("alice", DUPLICATE), ("bob", OK), ("dave", OK))
    assert {(r.name, r.mechanism) for r in result.records} == {("bob", SHA256), ("dave", SHA512)}  # type: ignore[union-attr]
    assert after.users["alice"] == image.users["alice"]
    assert set(after.users["bob"]) == {SHA256, SHA512}
    result, after = alter(image, [up("bob"), up("alice", iterations=99)])
    assert result.response == results(
        ("bob", OK), ("alice", ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations"))
    )
    assert [r.name for r in result.records] == ["bob"]  # type: ignore[union-attr]


def test_results_follow_first_appearance_deletions_first(image: ScramImage) -> None:
    result, _ = alter(
        image,
        upsertions=[up("zed"), up("carol"), up("amy")],
        deletions=[delete("bob", SHA512), delete("alice")],
    )
    assert [r.user for r in result.response] == ["bob", "alice", "zed", "carol", "amy"]
    assert [r.name for r in result.records] == ["bob", "alice", "zed", "carol", "amy"]  # type: ignore[union-attr]


def test_empty_request_does_nothing(image: ScramImage) -> None:
    result, after = alter(image)
    assert result.records == () and result.response == []
    assert after is image


def test_alter_changes_no_state(image: ScramImage) -> None:
    before = {name: dict(creds) for name, creds in image.users.items()}
    ScramControlManager().alter(image, [up("new")], [delete("alice")])
    assert {name: dict(creds) for name, creds in image.users.items()} == before


def test_upsertion_repr_redacts_secrets() -> None:
    text = repr(ScramUpsertion("alice", SHA256, 4096, b"SALTY", b"SECRET"))
    assert "SALTY" not in text and "SECRET" not in text and "alice" in text


# RFC 7677 section 3: SCRAM-SHA-256, user "user", password "pencil".
RFC7677_SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
RFC7677_AUTH_MESSAGE = (
    b"n=user,r=rOprNGfwEbeRWgbNEkqO,"
    b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,"
    b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
)
RFC7677_PROOF = base64.b64decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
RFC7677_SERVER_SIGNATURE = base64.b64decode("6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")


def test_keys_verify_the_rfc7677_exchange() -> None:
    salted = salted_password("pencil", RFC7677_SALT, 4096, SHA256)
    stored_key, server_key = scram_keys(salted, SHA256)
    # What a server does with the stored credential: check the proof, then sign.
    client_signature = hmac.digest(stored_key, RFC7677_AUTH_MESSAGE, "sha256")
    client_key = bytes(a ^ b for a, b in zip(RFC7677_PROOF, client_signature, strict=True))
    assert hmac.compare_digest(hashlib.sha256(client_key).digest(), stored_key)
    server_signature = hmac.digest(server_key, RFC7677_AUTH_MESSAGE, "sha256")
    assert hmac.compare_digest(server_signature, RFC7677_SERVER_SIGNATURE)


@pytest.mark.parametrize(
    ("mechanism", "name"), [(SHA256, "SCRAM-SHA-256"), (SHA512, "SCRAM-SHA-512")]
)
def test_keys_match_scramp(mechanism: ScramMechanism, name: str) -> None:
    salt = b"0123456789abcdef"
    expected_salt, stored, server, iterations = scramp.ScramMechanism(name).make_auth_info(
        "s3cret pa55", iteration_count=4096, salt=salt
    )
    salted = salted_password("s3cret pa55", salt, 4096, mechanism)
    assert (expected_salt, iterations) == (salt, 4096)
    assert scram_keys(salted, mechanism) == (stored, server)
    result, image = alter(ScramImage.EMPTY, [ScramUpsertion("u", mechanism, 4096, salt, salted)])
    assert result.response == results(("u", OK))
    assert image.credential("u", mechanism) == ScramCredential(salt, stored, server, 4096)


def test_helpers_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="salted password"):
        scram_keys(b"", SHA256)
    with pytest.raises(ValueError, match="UNKNOWN"):
        salted_password("x", b"s", 4096, ScramMechanism.UNKNOWN)
    assert len(new_salt()) == 32 and new_salt() != new_salt()
    assert len(new_salt(16)) == 16
    fresh = upsertion_for_password("alice", SHA512, "pw")
    assert len(fresh.salt) == 32 and fresh.iterations == 8192
    assert fresh.salted_password == salted_password("pw", fresh.salt, 8192, SHA512)
    assert len(fresh.salted_password) == 64
