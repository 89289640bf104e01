"""``--command-config`` reads Java properties as Java does, warns about keys it does not use,
and takes JKS and PKCS12 stores as kafka-python's PEM files."""

from __future__ import annotations

import importlib.util
import shutil
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from aclog.node import ConfigError
from aclog.remote.command_config import (
    client_settings,
    read_command_config,
    read_properties,
)
from tests.gates import unavailable
from tests.wire.harness import make_certificate

PASSWORD = "changeit"


def test_properties_are_read_as_java_reads_them(tmp_path: Path) -> None:
    text = (
        "# comment\n! another\n"
        "client.id = caf\\u00e9 \\\n    team\n"  # a \\u escape and a continuation
        "sasl.username:al\\=ice\n"
        "request.timeout.ms 5000\n"
    )
    assert read_properties(text) == {
        "client.id": "café team",
        "sasl.username": "al=ice",
        "request.timeout.ms": "5000",
    }
    config = tmp_path / "client.properties"
    config.write_bytes(b"client.id=caf\xe9\n")  # ISO-8859-1, as Properties.load(InputStream)
    assert read_command_config(config)["client_id"] == "café"


def test_keys_it_does_not_use_are_warned_about_not_refused(tmp_path: Path) -> None:
    config = tmp_path / "client.properties"
    config.write_text("client.id=x\nretries=3\nmetadata.max.age.ms=1000\n")
    warnings: list[str] = []
    settings = read_command_config(config, warnings.append)
    assert settings["client_id"] == "x"
    assert warnings == [
        f"{config}: ignoring properties metadata.max.age.ms, retries (aclog's client does not "
        "use them)"
    ]


def test_values_it_cannot_use_still_fail() -> None:
    for properties in (
        {"security.protocol": "TLS"},
        {"request.timeout.ms": "soon"},
        {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI"},
    ):
        with pytest.raises(ConfigError):
            client_settings(properties)


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[x509.Certificate, object, Path, Path]:
    cert_path, key_path = make_certificate(tmp_path)
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    key = serialization.load_pem_private_key(key_path.read_bytes(), None)
    return cert, key, cert_path, key_path


def _p12(path: Path, key: object, cert: x509.Certificate | None, cas: list) -> Path:
    encryption = serialization.BestAvailableEncryption(PASSWORD.encode())
    path.write_bytes(
        pkcs12.serialize_key_and_certificates(b"client", key, cert, cas or None, encryption)
    )
    return path


def _pem_certificates(path: str) -> list[x509.Certificate]:
    return x509.load_pem_x509_certificates(Path(path).read_bytes())


def test_a_pkcs12_truststore_and_keystore(tmp_path: Path, certificate: tuple) -> None:
    cert, key, _, _ = certificate
    trust = _p12(tmp_path / "trust.p12", None, None, [cert])
    keys = _p12(tmp_path / "keys.p12", key, cert, [])
    settings = client_settings(
        {
            "security.protocol": "SSL",
            "ssl.truststore.location": str(trust),
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.password": PASSWORD,
            "ssl.keystore.location": str(keys),
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.password": PASSWORD,
        }
    )
    assert _pem_certificates(settings["ssl_cafile"]) == [cert]
    assert _pem_certificates(settings["ssl_certfile"]) == [cert]
    key_pem = Path(settings["ssl_keyfile"]).read_bytes()
    assert b"ENCRYPTED" in key_pem  # never a clear key on disk
    assert Path(settings["ssl_keyfile"]).stat().st_mode & 0o077 == 0
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(settings["ssl_cafile"])
    context.load_cert_chain(
        settings["ssl_certfile"], settings["ssl_keyfile"], settings["ssl_password"]
    )


def test_a_wrong_store_password_names_the_key(tmp_path: Path, certificate: tuple) -> None:
    trust = _p12(tmp_path / "trust.p12", None, None, [certificate[0]])
    with pytest.raises(ConfigError, match=r"ssl.truststore.location: .*trust.p12"):
        client_settings({"ssl.truststore.location": str(trust), "ssl.truststore.password": "no"})


def test_a_pem_keystore_says_which_properties_to_use(certificate: tuple) -> None:
    with pytest.raises(ConfigError, match=r"ssl.certificate.location .* ssl.key.location"):
        client_settings({"ssl.keystore.location": str(certificate[2])})


def test_a_jks_truststore_and_keystore(tmp_path: Path, certificate: tuple) -> None:
    _need_keytool()
    if importlib.util.find_spec("jks") is None:
        unavailable("needs pyjks (the jks extra: pip install -e '.[jks]')")
    cert, key, cert_path, _ = certificate
    truststore, keystore = tmp_path / "trust.jks", tmp_path / "keys.jks"
    _keytool("-importcert", "-noprompt", "-alias", "ca", "-file", str(cert_path),
             "-storetype", "JKS", "-keystore", str(truststore), "-storepass", PASSWORD)  # fmt: skip
    _keytool("-importkeystore", "-srckeystore", str(_p12(tmp_path / "k.p12", key, cert, [])),
             "-srcstoretype", "PKCS12", "-srcstorepass", PASSWORD, "-deststoretype", "JKS",
             "-destkeystore", str(keystore), "-deststorepass", PASSWORD)  # fmt: skip
    settings = client_settings(
        {
            "ssl.truststore.location": str(truststore),
            "ssl.truststore.password": PASSWORD,
            "ssl.keystore.location": str(keystore),
            "ssl.keystore.password": PASSWORD,
        }
    )
    assert _pem_certificates(settings["ssl_cafile"]) == [cert]
    assert _pem_certificates(settings["ssl_certfile"]) == [cert]
    ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_cert_chain(
        settings["ssl_certfile"], settings["ssl_keyfile"], settings["ssl_password"]
    )


def _need_keytool() -> None:
    if shutil.which("keytool") is None:
        unavailable("needs the JDK's keytool (openjdk-17-jdk-headless)")


def test_without_pyjks_a_jks_store_says_how_to_convert_it(
    tmp_path: Path, certificate: tuple, monkeypatch: pytest.MonkeyPatch
) -> None:
    _need_keytool()
    truststore = tmp_path / "trust.jks"
    _keytool("-importcert", "-noprompt", "-alias", "ca", "-file", str(certificate[2]),
             "-storetype", "JKS", "-keystore", str(truststore), "-storepass", PASSWORD)  # fmt: skip
    monkeypatch.setitem(sys.modules, "jks", None)  # as if the jks extra were not installed
    with pytest.raises(ConfigError, match=r"aclog\[jks\].*keytool -importkeystore"):
        client_settings({"ssl.truststore.location": str(truststore)})


def _keytool(*args: str) -> None:
    subprocess.run(["keytool", *args], check=True, capture_output=True, timeout=60)
