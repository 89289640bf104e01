"""``--command-config``: a Kafka client properties file as KafkaAdminClient settings.

The file is what ``kafka-acls.sh --command-config`` reads: Java ``.properties`` text
(:func:`read_properties`) with ``security.protocol``, ``sasl.mechanism``, a ``sasl.jaas.config``
login (:func:`parse_jaas`, PLAIN or SCRAM login modules only) or ``sasl.username`` /
``sasl.password``, PEM TLS files and timeouts. :func:`client_settings` turns the properties into
keyword arguments for kafka-python's :class:`~kafka.admin.KafkaAdminClient` and refuses, with a
:class:`ConfigError` naming the key, any property it cannot apply (:data:`SUPPORTED_KEYS` lists
those it can), so a setting is never silently ignored.

Thread-safe: pure functions of their arguments (and, for file-valued keys, of whether the file
exists). Cost: linear in the size of the file, which is read once.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A command config that cannot be used; the message names the file and key."""


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
_OTHER = (
    "bootstrap.servers",
    "security.protocol",
    "sasl.mechanism",
    "sasl.jaas.config",
    "ssl.truststore.location",
    "ssl.truststore.type",
    "ssl.endpoint.identification.algorithm",
    "ssl.check.hostname",
)
SUPPORTED_KEYS = tuple(sorted({*_FILES, *_PLAIN, *_TIMEOUTS, *_OTHER}))


def read_properties(text: str) -> dict[str, str]:
    """Java ``.properties`` text: ``key=value``, ``key: value`` or ``key value`` lines, ``#``
    and ``!`` comments, backslash line continuations and escapes."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.lstrip()
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            pending += line[:-1]
            continue
        logical.append(pending + line)
        pending = ""
    if pending:
        logical.append(pending)
    properties: dict[str, str] = {}
    for line in logical:
        match = re.match(r"((?:[^\\=:\s]|\\.)*)\s*[=:\s]?\s*(.*)$", line, re.DOTALL)
        assert match is not None  # the pattern matches any string
        properties[_unescape(match.group(1))] = _unescape(match.group(2))  # values keep spaces
    return properties


def _unescape(text: str) -> str:
    escapes = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(1)), text)


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


def client_settings(properties: dict[str, str]) -> dict[str, Any]:
    """KafkaAdminClient keyword arguments for Kafka client properties; :class:`ConfigError`
    for a key this CLI cannot apply or a value it cannot use."""
    unknown = sorted(set(properties) - set(SUPPORTED_KEYS))
    if unknown:
        raise ConfigError(
            f"unsupported propert{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}; "
            f"supported: {', '.join(SUPPORTED_KEYS)}"
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
    kind = properties.get("ssl.truststore.type", "PEM").strip().upper()
    if "ssl.truststore.location" not in properties:
        return
    if kind != "PEM":
        raise ConfigError(
            f"ssl.truststore.type {kind} cannot be read by a Python client; convert the "
            "truststore to PEM and set ssl.cafile (or ssl.truststore.type=PEM)"
        )
    location = properties["ssl.truststore.location"]
    settings["ssl_cafile"] = _existing_file("ssl.truststore.location", location)


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


def read_command_config(path: Path) -> dict[str, Any]:
    """The KafkaAdminClient settings of a ``--command-config`` file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {getattr(error, 'strerror', error)}") from None
    try:
        return client_settings(read_properties(text))
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
