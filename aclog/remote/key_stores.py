"""Java key stores for ``--command-config``: the JKS and PKCS12 files that
``ssl.truststore.location`` and ``ssl.keystore.location`` name, as the PEM files kafka-python
loads.

PKCS12 (Java's default store type since Java 9) is read by ``cryptography``; JKS by ``pyjks``
(the ``jks`` extra: ``pip install 'aclog[jks]'``), or, without it, the error says the
``keytool`` command that converts the store to PKCS12. A store is recognised by its bytes
(JKS's magic number, PEM's ``-----BEGIN``, else PKCS12), as Java's keystore loader accepts
either binary format whatever ``*.type`` says. The PEM files are written to a private
temporary folder (mode 0700) removed when the process exits; a private key is written
encrypted, under ``ssl.key.password`` or a random password, which kafka-python is given.

Thread-safe except for the one temporary folder, created on first use. Cost: one read and
decode of the store; a few small files.
"""

from __future__ import annotations

import atexit
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

JKS_MAGIC = b"\xfe\xed\xfe\xed"


class StoreError(ValueError):
    """A store that cannot be read; the message names the file and what to do."""


@dataclass(frozen=True)
class StoreContents:
    """A store's private key (if any) and its certificates: the key's chain first, then the
    trusted certificates."""

    key: Any
    certificates: tuple[x509.Certificate, ...]


def is_pem(path: Path) -> bool:
    """Whether ``path`` is PEM text (used as it is)."""
    with path.open("rb") as file:
        return file.read(64).lstrip().startswith(b"-----BEGIN")


def read_store(path: Path, password: str | None, key_password: str | None = None) -> StoreContents:
    """The key and certificates of a JKS or PKCS12 store; :class:`StoreError` otherwise."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise StoreError(f"cannot read {path}: {error.strerror}") from None
    if data.startswith(JKS_MAGIC):
        return _jks(path, data, password, key_password)
    try:
        loaded = pkcs12.load_pkcs12(data, password.encode() if password else None)
    except ValueError as error:
        raise StoreError(
            f"{path} is neither PEM, JKS nor a PKCS12 store this password opens ({error})"
        ) from None
    chain = [loaded.cert.certificate] if loaded.cert is not None else []
    chain += [extra.certificate for extra in loaded.additional_certs]
    return StoreContents(loaded.key, tuple(chain))


def _jks(path: Path, data: bytes, password: str | None, key_password: str | None) -> StoreContents:
    try:
        import jks  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise StoreError(
            f"{path} is a JKS store; install the jks extra (pip install 'aclog[jks]') or "
            f"convert it: keytool -importkeystore -srckeystore {path} -destkeystore "
            f"{path.with_suffix('.p12')} -deststoretype PKCS12, then name the .p12 file"
        ) from None
    try:
        store = jks.KeyStore.loads(data, password or "", try_decrypt_keys=False)
        key, chain = None, []
        for entry in store.private_keys.values():
            entry.decrypt(key_password or password or "")
            key = serialization.load_der_private_key(entry.pkey_pkcs8, None)
            chain = [x509.load_der_x509_certificate(der) for _, der in entry.cert_chain]
            break
        trusted = [x509.load_der_x509_certificate(c.cert) for c in store.certs.values()]
    except Exception as error:  # pyjks raises its own types and ValueError alike
        raise StoreError(f"cannot read the JKS store {path}: {error}") from None
    return StoreContents(key, tuple(chain + trusted))


def certificates_file(contents: StoreContents, name: str) -> str:
    """A PEM file of the store's certificates, for ``ssl_cafile`` or ``ssl_certfile``."""
    pem = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in contents.certificates)
    return str(_write(name, pem))


def key_file(contents: StoreContents, password: str | None) -> tuple[str, str]:
    """(a PEM file of the store's private key, encrypted, and the password that opens it)."""
    secret = password or secrets.token_urlsafe(24)
    pem = contents.key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(secret.encode()),
    )
    return str(_write("client-key.pem", pem)), secret


_FOLDER: list[Path] = []


def _write(name: str, data: bytes) -> Path:
    if not _FOLDER:
        folder = Path(tempfile.mkdtemp(prefix="aclog-stores-"))  # mode 0700
        atexit.register(shutil.rmtree, folder, True)
        _FOLDER.append(folder)
    path = _FOLDER[0] / name
    path.write_bytes(data)
    path.chmod(0o600)
    return path
