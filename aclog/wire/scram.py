"""The server side of one SASL/SCRAM login (RFC 5802, SCRAM-SHA-256 and SCRAM-SHA-512).

:mod:`scramp` does the protocol: it parses the client messages, checks the nonce and the
channel-binding header, and verifies the client proof against the stored StoredKey with a
constant-time comparison; the server signature comes from the stored ServerKey. Nothing here
sees a password or a salted password.

A login does not reveal whether a user exists (Kafka's does: it refuses an unknown user at the
first message). A user without a credential for the mechanism gets a stand-in one
(:func:`stand_in_credential`): a well-formed server-first message with a salt derived from the
data directory's login secret (:mod:`aclog.node.login_secret`), so it is the same on every
attempt, and aclog's default iteration count; its keys are random, so the proof check runs as
for a real user and fails. An unknown user and a wrong password therefore fail at the same
step, with the same message, after the same work. (A salt length or iteration count other than
aclog's defaults still shows that a credential was stored by some other client.)

Kafka's other behaviour is kept: the user name is unescaped (``=2C``, ``=3D``) and the principal
is ``User:<name>``. One limit comes from scramp: a stored salt shorter than 12 bytes cannot be
used for a login (both admin clients send 24 bytes or more); such a user is answered like an
unknown one and a warning goes to the server log, once per stored credential (any client can
try a login as often as it likes; the log must not grow with its tries).

Not thread-safe: one login belongs to one connection, which handles one request at a time.
Cost: besides scramp's work, two HMACs and a hash per login to build the stand-in credential,
built for every user so that known and unknown users take the same time.
"""

from __future__ import annotations

import enum
import hmac
import logging
import secrets
from collections.abc import Callable

import scramp
from scramp.utils import ServerError

from aclog.controller import DEFAULT_ITERATIONS, DEFAULT_SALT_BYTES, scram_keys
from aclog.image import ScramCredential
from aclog.records import ScramMechanism

logger = logging.getLogger(__name__)

CredentialLookup = Callable[[str, ScramMechanism], ScramCredential | None]
"""Where logins find credentials: ``(user, mechanism) -> credential or None``."""

SUPPORTED_MECHANISMS: dict[str, ScramMechanism] = {
    "SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256,
    "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512,
}
"""The SASL mechanism names the listener offers, in the order SaslHandshake lists them."""


MIN_SALT_BYTES = 12
"""The shortest salt scramp accepts."""

INVALID_CREDENTIALS = "the user is unknown or the password is wrong"
_WARNED_SHORT_SALTS: set[tuple[str, ScramMechanism, bytes]] = set()
"""The short-salt credentials already warned about (bounded by the credentials stored; a set's
``add`` is atomic, so logins on several threads at most warn twice)."""
"""Why a login with a well-formed but wrong proof failed: the same for both causes."""


class ScramLoginFailed(Exception):
    """The login failed; the message says why, for the server log only."""


def stand_in_credential(secret: bytes, user: str, mechanism: ScramMechanism) -> ScramCredential:
    """What a login shows for a user without a credential for ``mechanism``: the salt is
    HMAC(``secret``, mechanism and user), the iterations aclog's default, the keys random, so no
    proof matches. Thread-safe."""
    message = f"aclog stand-in salt\0{mechanism.mechanism_name}\0{user}".encode()
    salt = hmac.digest(secret, message, "sha512")[:DEFAULT_SALT_BYTES]
    stored_key, server_key = scram_keys(secrets.token_bytes(64), mechanism)
    return ScramCredential(salt, stored_key, server_key, DEFAULT_ITERATIONS)


class _Stage(enum.Enum):
    CLIENT_FIRST = 1
    CLIENT_FINAL = 2
    DONE = 3


class ScramLogin:
    """Feed it the client's messages with :meth:`step`; after the second, :attr:`user` has
    logged in. ``secret`` is the data directory's login secret (stand-in salts)."""

    def __init__(self, mechanism: ScramMechanism, lookup: CredentialLookup, secret: bytes) -> None:
        self.mechanism = mechanism
        self._lookup = lookup
        self._secret = secret
        self._server = scramp.ScramMechanism(mechanism.mechanism_name).make_server(self._auth_info)
        self._stage = _Stage.CLIENT_FIRST
        self._user: str | None = None

    @property
    def user(self) -> str | None:
        """The user name from the client's first message (``None`` before it)."""
        return self._user

    @property
    def done(self) -> bool:
        """True once the client's proof has been verified."""
        return self._stage is _Stage.DONE

    def _auth_info(self, username: str) -> tuple[bytes, bytes, bytes, int]:
        self._user = username
        # Built for every login, so known and unknown users take the same time.
        stand_in = stand_in_credential(self._secret, username, self.mechanism)
        credential = self._lookup(username, self.mechanism)
        if credential is not None and len(credential.salt) < MIN_SALT_BYTES:
            _warn_short_salt(username, self.mechanism, credential.salt)
            credential = None
        chosen = stand_in if credential is None else credential
        return chosen.salt, chosen.stored_key, chosen.server_key, chosen.iterations

    def step(self, token: bytes) -> bytes:
        """Answer one client message: client-first gets server-first, client-final (with a
        valid proof) gets server-final. Raises :class:`ScramLoginFailed`."""
        try:
            message = bytes(token).decode("utf-8")
            if self._stage is _Stage.CLIENT_FIRST:
                self._server.set_client_first(message)
                reply = self._server.get_server_first()
                self._stage = _Stage.CLIENT_FINAL
            elif self._stage is _Stage.CLIENT_FINAL:
                self._server.set_client_final(message)
                reply = self._server.get_server_final()
                self._stage = _Stage.DONE
            else:
                raise ScramLoginFailed("the SCRAM exchange has already finished")
        except ScramLoginFailed:
            raise
        except UnicodeDecodeError:
            raise ScramLoginFailed("the client message is not UTF-8") from None
        except scramp.ScramException as error:
            if error.server_error is ServerError.INVALID_PROOF:
                raise ScramLoginFailed(INVALID_CREDENTIALS) from None
            raise ScramLoginFailed(str(error)) from None
        return str(reply).encode("utf-8")


def _warn_short_salt(user: str, mechanism: ScramMechanism, salt: bytes) -> None:
    """Warn, once per stored credential, that it cannot log in."""
    key = (user, mechanism, salt)
    if key in _WARNED_SHORT_SALTS:
        return
    _WARNED_SHORT_SALTS.add(key)
    logger.warning(
        "the %s credential of %r has a %d-byte salt; logins need %d bytes or more, so it "
        "cannot log in (set its password again)",
        mechanism.mechanism_name,
        user[:200],
        len(salt),
        MIN_SALT_BYTES,
    )
