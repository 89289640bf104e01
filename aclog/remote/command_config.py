"""``--command-config``: a Kafka client properties file as KafkaAdminClient settings.

The file is what ``kafka-acls.sh --command-config`` reads: Java ``.properties`` text
read as Java reads it (:func:`read_properties`: ISO-8859-1, ``\\uXXXX`` escapes, line
continuations, by the ``javaproperties`` library) with ``security.protocol``, ``sasl.mechanism``,
a ``sasl.jaas.config`` login (:func:`parse_jaas`, PLAIN or SCRAM login modules only) or
``sasl.username`` / ``sasl.password``, TLS files (PEM, or JKS and PKCS12 stores:
:mod:`~aclog.remote.key_stores`) and timeouts. :func:`client_settings` turns the properties into
keyword arguments for kafka-python's :class:`~kafka.admin.KafkaAdminClient`. A key it does not
use is reported through ``on_warning`` and ignored, as Kafka's clients ignore unknown keys
(:data:`SUPPORTED_KEYS` lists those it uses); a value it cannot use is a
:class:`~aclog.config_error.ConfigError` (the one error for a setting that cannot work) naming
the key.

Thread-safe: functions of their arguments (and, for file-valued keys, of the files). Cost:
linear in the size of the file, which is read once; a store is read and written as PEM once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import javaproperties

from aclog.config_error import ConfigError
from aclog.remote.key_stores import StoreError, certificates_file, is_pem, key_file, read_store

_SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
_SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_LOGIN_MODULES = {
    "org.apache.kafka.common.security.scram.ScramLoginModule": ("SCRAM-SHA-256", "SCRAM-SHA-512"),
    "org.apache.kafka.common.security.plain.PlainLoginModule": ("PLAIN",),
}
_FILES = {
    "ssl.cafile": "ssl_cafile",
    "ssl.ca.location": "ssl_cafile",
    "ssl.certfile": "ssl_certfile",
    "ssl.certificate.location": "ssl_certfile",
    "ssl.keyfile": "ssl_keyfile",
    "ssl.key.location": "ssl_keyfile",
}
_PLAIN = {
    "ssl.key.password": "ssl_password",
    "sasl.username": "sasl_plain_username",
    "sasl.password": "sasl_plain_password",
    "client.id": "client_id",
}
_TIMEOUTS = {
    "request.timeout.ms": "request_timeout_ms",
    "default.api.timeout.ms": "bootstrap_timeout_ms",
}
_STORES = (
    "ssl.truststore.location",
    "ssl.truststore.type",
    "ssl.truststore.password",
    "ssl.keystore.location",
    "ssl.keystore.type",
    "ssl.keystore.password",
)
_OTHER = (
    "bootstrap.servers",
    "security.protocol",
    "sasl.mechanism",
    "sasl.jaas.config",
    "ssl.endpoint.identification.algorithm",
    "ssl.check.hostname",
)
SUPPORTED_KEYS = tuple(sorted({*_FILES, *_PLAIN, *_TIMEOUTS, *_STORES, *_OTHER}))


def read_properties(text: str) -> dict[str, str]:
    """Java ``.properties`` text as ``java.util.Properties.load`` reads it: ``key=value``,
    ``key: value`` or ``key value`` lines, ``#`` and ``!`` comments, backslash line
    continuations and escapes (``\\uXXXX`` included)."""
    return dict(javaproperties.loads(text))


def parse_jaas(text: str) -> tuple[str, dict[str, str]]:
    """``<LoginModule> required key="value" ...;`` as (module, options)."""
    match = re.match(r"\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\b(.*)$", text, re.S)
    if match is None:
        raise ConfigError(
            'sasl.jaas.config: expected \'<LoginModule> required username="..." password="...";\''
        )
    module, body = match.group(1), match.group(3).strip()
    body = body.removesuffix(";").strip()
    options: dict[str, str] = {}
    option = re.compile(r'\s*([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))')
    position = 0
    while position < len(body):
        found = option.match(body, position)
        if found is None:
            raise ConfigError(f"sasl.jaas.config: cannot read the options {body[position:]!r}")
        value = found.group(2) if found.group(2) is not None else found.group(3)
        options[found.group(1)] = re.sub(r"\\(.)", r"\1", value)
        position = found.end()
    return module, options


def client_settings(
    properties: dict[str, str], on_warning: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """KafkaAdminClient keyword arguments for Kafka client properties; keys it does not use go
    to ``on_warning``; :class:`ConfigError` for a value it cannot use."""
    unknown = sorted(set(properties) - set(SUPPORTED_KEYS))
    if unknown and on_warning is not None:
        on_warning(
            f"ignoring propert{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)} "
            "(aclog's client does not use them)"
        )
    settings: dict[str, Any] = {}
    protocol = properties.get("security.protocol", "PLAINTEXT").strip().upper()
    if protocol not in _SECURITY_PROTOCOLS:
        raise ConfigError(
            f"security.protocol {protocol!r} is not one of {', '.join(_SECURITY_PROTOCOLS)}"
        )
    settings["security_protocol"] = protocol
    for key, name in _PLAIN.items():
        if key in properties:
            settings[name] = properties[key]
    for key, name in _FILES.items():
        if key in properties:
            settings[name] = _existing_file(key, properties[key])
    for key, name in _TIMEOUTS.items():
        if key in properties:
            settings[name] = _positive_int(key, properties[key])
    _truststore(properties, settings)
    _keystore(properties, settings)
    _hostname_check(properties, settings)
    if protocol.startswith("SASL_"):
        _sasl(properties, settings)
    return settings


def _existing_file(key: str, value: str) -> str:
    if not Path(value).is_file():
        raise ConfigError(f"{key}: no file at {value}")
    return value


def _positive_int(key: str, value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number <= 0:
        raise ConfigError(f"{key} must be a positive number of milliseconds, not {value!r}")
    return number


def _truststore(properties: dict[str, str], settings: dict[str, Any]) -> None:
    """``ssl.truststore.*``: a PEM file as it is, a JKS or PKCS12 store as a PEM copy."""
    if "ssl.truststore.location" not in properties:
        return
    location = _existing_file("ssl.truststore.location", properties["ssl.truststore.location"])
    kind = properties.get("ssl.truststore.type", "").strip().upper()
    if kind == "PEM" or is_pem(Path(location)):
        settings["ssl_cafile"] = location
        return
    try:
        contents = read_store(Path(location), properties.get("ssl.truststore.password"))
    except StoreError as error:
        raise ConfigError(f"ssl.truststore.location: {error}") from None
    if not contents.certificates:
        raise ConfigError(f"ssl.truststore.location: {location} holds no certificates")
    settings["ssl_cafile"] = certificates_file(contents, "truststore.pem")


def _keystore(properties: dict[str, str], settings: dict[str, Any]) -> None:
    """``ssl.keystore.*``: the client's key and certificate chain from a JKS or PKCS12 store
    (a PEM key and certificate go in ``ssl.key.location`` and ``ssl.certificate.location``)."""
    if "ssl.keystore.location" not in properties:
        return
    location = _existing_file("ssl.keystore.location", properties["ssl.keystore.location"])
    if properties.get("ssl.keystore.type", "").strip().upper() == "PEM" or is_pem(Path(location)):
        raise ConfigError(
            "ssl.keystore.location: for PEM, set ssl.certificate.location (the certificate "
            "chain) and ssl.key.location (the key) instead, with ssl.key.password if it is "
            "encrypted"
        )
    key_password = properties.get("ssl.key.password")
    try:
        contents = read_store(Path(location), properties.get("ssl.keystore.password"), key_password)
    except StoreError as error:
        raise ConfigError(f"ssl.keystore.location: {error}") from None
    if contents.key is None or not contents.certificates:
        raise ConfigError(f"ssl.keystore.location: {location} holds no private key with its chain")
    settings["ssl_certfile"] = certificates_file(contents, "client-chain.pem")
    settings["ssl_keyfile"], settings["ssl_password"] = key_file(contents, key_password)


def _hostname_check(properties: dict[str, str], settings: dict[str, Any]) -> None:
    if "ssl.endpoint.identification.algorithm" in properties:
        algorithm = properties["ssl.endpoint.identification.algorithm"].strip().lower()
        if algorithm not in ("", "none", "https"):
            raise ConfigError(
                f"ssl.endpoint.identification.algorithm {algorithm!r}: use https or empty"
            )
        settings["ssl_check_hostname"] = algorithm == "https"
    if "ssl.check.hostname" in properties:
        flag = properties["ssl.check.hostname"].strip().lower()
        if flag not in ("true", "false"):
            raise ConfigError(f"ssl.check.hostname must be true or false, not {flag!r}")
        settings["ssl_check_hostname"] = flag == "true"


def _sasl(properties: dict[str, str], settings: dict[str, Any]) -> None:
    mechanism = properties.get("sasl.mechanism", "").strip().upper()
    if mechanism not in _SASL_MECHANISMS:
        raise ConfigError(
            f"{settings['security_protocol']} needs sasl.mechanism set to one of "
            f"{', '.join(_SASL_MECHANISMS)} (got {mechanism or 'nothing'})"
        )
    settings["sasl_mechanism"] = mechanism
    if "sasl.jaas.config" in properties:
        module, options = parse_jaas(properties["sasl.jaas.config"])
        mechanisms = _LOGIN_MODULES.get(module)
        if mechanisms is None:
            raise ConfigError(
                f"sasl.jaas.config: login module {module} is not supported; use "
                + " or ".join(_LOGIN_MODULES)
            )
        if mechanism not in mechanisms:
            raise ConfigError(f"sasl.jaas.config: {module} cannot log in with {mechanism}")
        if "username" in options:
            settings["sasl_plain_username"] = options["username"]
        if "password" in options:
            settings["sasl_plain_password"] = options["password"]
    if "sasl_plain_username" not in settings or "sasl_plain_password" not in settings:
        raise ConfigError(
            f"{mechanism} needs a user name and password: sasl.jaas.config with username and "
            "password, or sasl.username and sasl.password"
        )


def read_command_config(
    path: Path, on_warning: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The KafkaAdminClient settings of a ``--command-config`` file (bytes read as ISO-8859-1,
    as Java's ``Properties.load`` reads a stream); keys it does not use go to ``on_warning``,
    prefixed with the file's name."""
    try:
        text = path.read_bytes().decode("iso-8859-1")
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    warn = None if on_warning is None else (lambda message: on_warning(f"{path}: {message}"))
    try:
        return client_settings(read_properties(text), warn)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
