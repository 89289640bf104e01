"""One SCRAM login at the :class:`ScramLogin` level: an unknown user cannot be told from a wrong
password (same server-first shape, same failure, same proof check), and the login secret that
keeps made-up salts stable."""

from __future__ import annotations

import base64
import logging
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
import scramp
import scramp.core
from hypothesis import given
from hypothesis import strategies as st

from aclog.controller import DEFAULT_ITERATIONS, scram_keys, upsertion_for_password
from aclog.image import ScramCredential
from aclog.node import Node
from aclog.node.login_secret import (
    SECRET_BYTES,
    SECRET_FILE,
    LoginSecretError,
    load_login_secret,
)
from aclog.records import ScramMechanism
from aclog.wire import ServerConfig
from aclog.wire.scram import INVALID_CREDENTIALS, ScramLogin, ScramLoginFailed

SECRET = b"s" * SECRET_BYTES
SHA256 = ScramMechanism.SCRAM_SHA_256
SHA512 = ScramMechanism.SCRAM_SHA_512
MECHANISMS = [SHA256, SHA512]


def _credential(mechanism: ScramMechanism, password: str, iterations: int) -> ScramCredential:
    upsertion = upsertion_for_password("alice", mechanism, password, iterations)
    stored_key, server_key = scram_keys(upsertion.salted_password, mechanism)
    return ScramCredential(upsertion.salt, stored_key, server_key, iterations)


def _login(mechanism: ScramMechanism, secret: bytes = SECRET) -> ScramLogin:
    """A login where only ``alice`` (password ``right``) exists."""
    alice = _credential(mechanism, "right", 4096)

    def lookup(user: str, asked: ScramMechanism) -> ScramCredential | None:
        return alice if (user, asked) == ("alice", mechanism) else None

    return ScramLogin(mechanism, lookup, secret)


def _server_first(login: ScramLogin, user: str, password: str) -> tuple[Any, dict[str, str]]:
    client = scramp.ScramClient([login.mechanism.mechanism_name], user, password)
    reply = login.step(client.get_client_first().encode()).decode()
    client.set_server_first(reply)
    fields = dict(part.split("=", 1) for part in reply.split(","))
    return client, fields


def _final_error(login: ScramLogin, user: str, password: str) -> str:
    client, _ = _server_first(login, user, password)
    with pytest.raises(ScramLoginFailed) as failed:
        login.step(client.get_client_final().encode())
    assert not login.done
    return str(failed.value)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_unknown_user_gets_a_well_formed_server_first(mechanism: ScramMechanism) -> None:
    client = scramp.ScramClient([mechanism.mechanism_name], "mallory", "x")
    first = client.get_client_first()
    reply = _login(mechanism).step(first.encode()).decode()
    client.set_server_first(reply)  # scramp's client accepts it
    fields = dict(part.split("=", 1) for part in reply.split(","))
    assert list(fields) == ["r", "s", "i"]
    client_nonce = first.split("r=", 1)[1]
    assert fields["r"].startswith(client_nonce) and len(fields["r"]) > len(client_nonce)
    assert len(base64.b64decode(fields["s"], validate=True)) == 32
    assert int(fields["i"]) == DEFAULT_ITERATIONS


def test_a_made_up_salt_is_stable_per_user_and_differs_between_users() -> None:
    def salt(user: str, mechanism: ScramMechanism = SHA256, secret: bytes = SECRET) -> str:
        return _server_first(_login(mechanism, secret), user, "x")[1]["s"]

    assert salt("mallory") == salt("mallory")  # a new login, same answer
    assert salt("mallory") != salt("trudy")
    assert salt("mallory") != salt("mallory", SHA512)
    assert salt("mallory") != salt("mallory", secret=b"t" * SECRET_BYTES)
    # A user with only a SCRAM-SHA-256 credential is unknown to SCRAM-SHA-512, stably.
    alice = _credential(SHA256, "right", 4096)

    def alice_with_sha512() -> str:
        login = ScramLogin(SHA512, lambda user, asked: alice if asked is SHA256 else None, SECRET)
        return _server_first(login, "alice", "x")[1]["s"]

    assert alice_with_sha512() == alice_with_sha512() != salt("mallory", SHA512)


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_unknown_user_and_wrong_password_fail_alike_at_client_final(
    mechanism: ScramMechanism,
) -> None:
    wrong_password = _final_error(_login(mechanism), "alice", "wrong")
    unknown_user = _final_error(_login(mechanism), "mallory", "right")
    assert wrong_password == unknown_user == INVALID_CREDENTIALS
    login = _login(mechanism)
    client, _ = _server_first(login, "alice", "right")
    client.set_server_final(login.step(client.get_client_final().encode()).decode())
    assert login.done and login.user == "alice"


def test_both_failures_run_the_same_proof_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The unknown user's proof is checked against a key as a stored user's is (same time)."""
    checked: list[bytes] = []
    real_check = scramp.core._check_client_key

    def counting(hf: Any, stored_key: bytes, auth_msg: bytes, proof: str) -> None:
        checked.append(stored_key)
        real_check(hf, stored_key, auth_msg, proof)

    monkeypatch.setattr(scramp.core, "_check_client_key", counting)
    _final_error(_login(SHA512), "alice", "wrong")
    _final_error(_login(SHA512), "mallory", "x")
    assert [len(key) for key in checked] == [64, 64]


def _outcome(login: ScramLogin, user: str) -> tuple[str, ...]:
    """How a login with a wrong proof ends, as a client that does no SASLprep (kafka-python)
    sends it: the step that failed and why, and the iteration count offered."""
    name = user.replace("=", "=3D").replace(",", "=2C")
    try:
        reply = login.step(f"n,,n={name},r=0123456789abcdef".encode()).decode()
    except ScramLoginFailed as error:
        return ("client-first", str(error))
    fields = dict(part.split("=", 1) for part in reply.split(","))
    proof = base64.b64encode(bytes(32)).decode()
    try:
        login.step(f"c=biws,r={fields['r']},p={proof}".encode())
    except ScramLoginFailed as error:
        return ("client-final", str(error), fields["i"])
    return ("logged in",)


@given(user=st.text(st.characters(codec="utf-8"), max_size=40))
def test_whether_a_user_exists_never_changes_how_a_login_ends(user: str) -> None:
    known = _credential(SHA256, "right", DEFAULT_ITERATIONS)
    exists = ScramLogin(SHA256, lambda name, mechanism: known, SECRET)
    absent = ScramLogin(SHA256, lambda name, mechanism: None, SECRET)
    outcome = _outcome(absent, user)
    assert _outcome(exists, user) == outcome
    if outcome[0] == "client-final":
        assert outcome == ("client-final", INVALID_CREDENTIALS, str(DEFAULT_ITERATIONS))


def test_short_stored_salt_is_answered_like_an_unknown_user(
    caplog: pytest.LogCaptureFixture,
) -> None:
    short = ScramCredential(b"tiny", b"k" * 32, b"v" * 32, 4096)
    with caplog.at_level(logging.WARNING, logger="aclog.wire.scram"):
        for _ in range(50):  # a client may try as often as it likes: one warning (issue 35.4)
            login = ScramLogin(SHA256, lambda user, mechanism: short, SECRET)
            assert _final_error(login, "old", "x") == INVALID_CREDENTIALS
    assert [r.getMessage() for r in caplog.records] == [
        "the SCRAM-SHA-256 credential of 'old' has a 4-byte salt; logins need 12 bytes or "
        "more, so it cannot log in (set its password again)"
    ]


def test_login_secret_is_created_private_then_reused(tmp_path: Path) -> None:
    secret = load_login_secret(tmp_path)
    path = tmp_path / SECRET_FILE
    assert len(secret) == SECRET_BYTES
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_login_secret(tmp_path) == secret
    assert sorted(os.listdir(tmp_path)) == [SECRET_FILE]  # no temporary file left


@pytest.mark.parametrize("content", [b"", b"x" * (SECRET_BYTES - 1), b"x" * (SECRET_BYTES + 1)])
def test_login_secret_of_the_wrong_size_is_refused(tmp_path: Path, content: bytes) -> None:
    (tmp_path / SECRET_FILE).write_bytes(content)
    with pytest.raises(LoginSecretError, match=f"{SECRET_FILE} is .*not {SECRET_BYTES}.*move it"):
        load_login_secret(tmp_path)
    assert (tmp_path / SECRET_FILE).read_bytes() == content  # never overwritten


def test_nodes_starting_together_agree_on_one_secret(tmp_path: Path) -> None:
    start = threading.Barrier(8, timeout=10)
    found: list[bytes] = []

    def load() -> None:
        start.wait()
        found.append(load_login_secret(tmp_path))

    threads = [threading.Thread(target=load) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(found) == 8 and len(set(found)) == 1
    assert sorted(os.listdir(tmp_path)) == [SECRET_FILE]


def test_a_made_up_salt_survives_a_restart(tmp_path: Path) -> None:
    config = ServerConfig(data_dir=tmp_path / "data")

    def salt_after_start() -> str:
        node = Node.open(config)
        try:
            login = ScramLogin(SHA256, node.scram_credential, node.login_secret)
            return _server_first(login, "mallory", "x")[1]["s"]
        finally:
            node.close()

    assert salt_after_start() == salt_after_start()
