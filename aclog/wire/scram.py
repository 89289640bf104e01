"""The server side of one SASL/SCRAM login (RFC 5802, SCRAM-SHA-256 and SCRAM-SHA-512).

:mod:`scramp` does the protocol: it parses the client messages, checks the nonce and the
channel-binding header, and verifies the client proof against the stored StoredKey with a
constant-time comparison; the server signature comes from the stored ServerKey. Nothing here
sees a password or a salted password.

Kafka's server behaviour is kept: the user name is unescaped (``=2C``, ``=3D``), an unknown user
or a wrong proof fails the login with one generic message (no hint whether the user exists), and
the principal is ``User:<name>``. One limit comes from scramp: a stored salt shorter than 12
bytes cannot be used for a login (both admin clients send 24 bytes or more).

Not thread-safe: one login belongs to one connection, which handles one request at a time.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import scramp

from aclog.image import ScramCredential
from aclog.records import ScramMechanism

CredentialLookup = Callable[[str, ScramMechanism], ScramCredential | None]
"""Where logins find credentials: ``(user, mechanism) -> credential or None``."""

SUPPORTED_MECHANISMS: dict[str, ScramMechanism] = {
    "SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256,
    "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512,
}
"""The SASL mechanism names the listener offers, in the order SaslHandshake lists them."""


class ScramLoginFailed(Exception):
    """The login failed; the message says why, for the server log only."""


class _Stage(enum.Enum):
    CLIENT_FIRST = 1
    CLIENT_FINAL = 2
    DONE = 3


class ScramLogin:
    """Feed it the client's messages with :meth:`step`; after the second, :attr:`user` has
    logged in."""

    def __init__(self, mechanism: ScramMechanism, lookup: CredentialLookup) -> None:
        self.mechanism = mechanism
        self._lookup = lookup
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

    def _auth_info(self, username: str) -> tuple[bytes, bytes, bytes, int] | None:
        self._user = username
        credential = self._lookup(username, self.mechanism)
        if credential is None:
            return None
        return credential.salt, credential.stored_key, credential.server_key, credential.iterations

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
            raise ScramLoginFailed(str(error)) from None
        return str(reply).encode("utf-8")
