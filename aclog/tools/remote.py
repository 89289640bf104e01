"""``--bootstrap-server``: ``aclog acls`` and ``aclog users`` against any Kafka cluster.

:class:`RemoteAdmin` has the method shapes the CLI calls on a
:class:`~aclog.controller.controller.Controller`, so the commands share everything but the
backend. It rides on kafka-python's :class:`~kafka.admin.KafkaAdminClient` for bootstrap,
ApiVersions negotiation, SASL/TLS and routing, but builds the five requests itself with
kafka-python's protocol message classes and sends them the way the admin client's own methods do
(``admin._manager.run(admin._manager.send, request)``). The admin client's convenience methods
cannot be used as they are:

- ``describe_acls`` and ``delete_acls`` turn every pattern type into ``ACLResourcePatternType``,
  which has no GLOB (code 5): a GLOB ACL in a response is a client-side ``ValueError``;
- ``create_acls`` keeps neither the position nor the message of a failed creation, and
  ``delete_acls`` drops the per-filter message;
- ``alter_user_scram_credentials`` and ``describe_user_scram_credentials`` return error
  messages without their codes (and key results by user, merging repeats).

The CLI prints Kafka's code, name and message per item, exactly as for a data directory, so the
responses are read field by field here. GLOB travels as pattern type 5 (KIP-1042), as
``aclog serve`` expects; a Kafka broker without GLOB support rejects it.

Kafka does not expose ACL ids: ACLs read from a cluster carry :data:`REMOTE_ACL_ID` and print
with ``"id": null``. ``users set`` computes the salt and salted password on the client with
:func:`aclog.controller.upsertion_for_password` (PBKDF2, the same value kafka-python's
``UserScramCredentialUpsertion`` computes), so the password never leaves this process.

Not thread-safe: one command, one admin client.
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import kafka.errors as kafka_errors
import typer
from kafka.admin import KafkaAdminClient
from kafka.net.compat import KafkaNetClient
from kafka.protocol.admin import (
    AlterUserScramCredentialsRequest,
    CreateAclsRequest,
    DeleteAclsRequest,
    DescribeAclsRequest,
    DescribeUserScramCredentialsRequest,
)

from aclog.authorizer.filters import AclFilter
from aclog.controller import (
    AclCreateResult,
    AclDeleteResult,
    ScramAlterResult,
    ScramDeletion,
    ScramUpsertion,
)
from aclog.controller.controller import Caller, Controller
from aclog.image import ApiError, Errors
from aclog.image.scram import CredentialInfo, ScramDescribeResult
from aclog.records import (
    AccessControlEntryRecord,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.tools.common import open_controller
from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE, fail

REMOTE_ACL_ID = uuid.UUID(int=0)
"""The id of an ACL read from a cluster: Kafka does not expose ids (JSON shows ``null``)."""

DATA_DIR_ENV = "ACLOG_DATA_DIR"
DEFAULT_TIMEOUT_MS = 15_000
CLIENT_ID = "aclog-cli"

BootstrapServer = Annotated[
    str | None,
    typer.Option(
        "--bootstrap-server",
        metavar="HOST:PORT",
        help="Manage a running Kafka cluster (or `aclog serve`) through its admin API instead "
        "of a data directory; excludes --data-dir. Kafka does not expose ACL ids: in JSON "
        'output "id" is null.',
    ),
]
CommandConfig = Annotated[
    Path | None,
    typer.Option(
        "--command-config",
        metavar="FILE",
        help="With --bootstrap-server: Kafka client properties (security.protocol, "
        "sasl.mechanism, sasl.jaas.config or sasl.username/sasl.password, ssl.cafile, "
        "ssl.endpoint.identification.algorithm, request.timeout.ms, ...).",
    ),
]


class RemoteError(Exception):
    """The cluster could not be reached or did not answer; the message names the address."""


class UnsupportedRemotely(ValueError):
    """An operation Kafka's admin API cannot express (a dry run of CreateAcls)."""


@dataclass(frozen=True, slots=True)
class RemoteApiError(ApiError):
    """A Kafka error code aclog's :class:`~aclog.image.Errors` does not know (a real broker
    can send any): ``error`` is UNKNOWN_SERVER_ERROR, the code and name are Kafka's."""

    kafka_code: int = -1
    kafka_name: str = "UNKNOWN"

    @property
    def code(self) -> int:
        return self.kafka_code


def api_error(code: int, message: str | None) -> ApiError:
    """The error a response carries, with Kafka's code, name and message kept."""
    try:
        known = Errors(code)
    except ValueError:
        name = str(getattr(kafka_errors.for_code(code), "message", "UNKNOWN"))
        return RemoteApiError(Errors.UNKNOWN_SERVER_ERROR, message, code, name)
    return ApiError.NONE if known == Errors.NONE and message is None else ApiError(known, message)


# -- --command-config ---------------------------------------------------------------------------


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


# -- choosing the backend -------------------------------------------------------------------------


@dataclass(frozen=True)
class RemoteTarget:
    """A cluster to manage: its bootstrap address and KafkaAdminClient settings."""

    bootstrap: str
    settings: dict[str, Any] = field(default_factory=dict)


Target = Path | RemoteTarget


def parse_bootstrap(text: str) -> str:
    """``HOST:PORT[,HOST:PORT...]`` checked (IPv6 as ``[::1]:9092``); raises ValueError."""
    servers = [part.strip() for part in text.split(",") if part.strip()]
    if not servers:
        raise ValueError("--bootstrap-server needs HOST:PORT")
    for server in servers:
        host, sep, port = server.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"--bootstrap-server {server!r} is not HOST:PORT")
    return ",".join(servers)


def choose_target(
    data_dir: Path | None, bootstrap_server: str | None, command_config: Path | None
) -> Target:
    """The data directory or the cluster a command works on: exactly one of ``--data-dir`` and
    ``--bootstrap-server``; without either, ``$ACLOG_DATA_DIR`` (so the environment never
    conflicts with ``--bootstrap-server``). Usage errors exit 2."""
    if data_dir is None and bootstrap_server is None and os.environ.get(DATA_DIR_ENV):
        data_dir = Path(os.environ[DATA_DIR_ENV])
    if data_dir is not None and bootstrap_server is not None:
        fail("give either --data-dir or --bootstrap-server, not both", EXIT_USAGE)
    if command_config is not None and bootstrap_server is None:
        fail("--command-config configures the --bootstrap-server connection", EXIT_USAGE)
    if bootstrap_server is None:
        if data_dir is None:
            fail(
                f"give --data-dir DIR (or set {DATA_DIR_ENV}) or --bootstrap-server HOST:PORT",
                EXIT_USAGE,
            )
        return data_dir
    try:
        bootstrap = parse_bootstrap(bootstrap_server)
        settings = read_command_config(command_config) if command_config else {}
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    return RemoteTarget(bootstrap, settings)


def data_dir_only(target: Target, option: str, reason: str) -> None:
    """Exit 2 when ``option`` (which needs a data directory) is used with a cluster."""
    if isinstance(target, RemoteTarget):
        fail(f"{option} needs --data-dir: {reason}", EXIT_USAGE)


@contextmanager
def open_admin(target: Target) -> Iterator[Controller | RemoteAdmin]:
    """The controller of a data directory, or an admin client connected to a cluster.

    Connection failures and requests the cluster does not answer exit 3, naming the address.
    """
    if not isinstance(target, RemoteTarget):
        with open_controller(target) as controller:
            yield controller
        return
    try:
        admin = RemoteAdmin.connect(target.bootstrap, target.settings)
    except RemoteError as error:
        fail(str(error), EXIT_IO)
    try:
        yield admin
    except RemoteError as error:
        fail(str(error), EXIT_IO)
    except kafka_errors.IncompatibleBrokerVersion as error:
        fail(f"{target.bootstrap} does not support this admin API: {error}", EXIT_FAILURE)
    finally:
        admin.close()


# -- the admin client ---------------------------------------------------------------------------


_TIMEOUT = kafka_errors.KafkaTimeoutError


class _BootstrapWatch(logging.Handler):
    """Keeps the last reason kafka-python logs for a failed bootstrap attempt, and stops the
    bootstrap at the first authentication failure (retrying cannot fix a wrong password)."""

    _FATAL = (
        kafka_errors.SaslAuthenticationFailedError,
        kafka_errors.UnsupportedSaslMechanismError,
    )

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.reason: BaseException | None = None
        self.clients: list[Any] = []

    def emit(self, record: logging.LogRecord) -> None:
        # Runs on the client's I/O thread, inside the bootstrap loop that logged the record.
        if record.name != "kafka.net.manager" or not isinstance(record.args, tuple):
            return
        for arg in record.args:
            if isinstance(arg, BaseException) and not isinstance(arg, _TIMEOUT):
                self.reason = arg
                if isinstance(arg, self._FATAL):
                    for client in self.clients:
                        client._manager.closed = True  # the loop stops before its next try


class RemoteAdmin:
    """The CLI's view of a cluster: Controller-shaped ACL and SCRAM operations over the Kafka
    admin API. The server decides who the caller is (from the login), so ``caller`` is unused."""

    def __init__(self, bootstrap: str, admin: Any) -> None:
        self.bootstrap = bootstrap
        self._admin = admin

    @classmethod
    def connect(cls, bootstrap: str, settings: dict[str, Any] | None = None) -> RemoteAdmin:
        """Bootstrap a KafkaAdminClient; :class:`RemoteError` when that fails in time."""
        options: dict[str, Any] = {
            "client_id": CLIENT_ID,
            "request_timeout_ms": DEFAULT_TIMEOUT_MS,
            "bootstrap_timeout_ms": DEFAULT_TIMEOUT_MS,
            **(settings or {}),
        }
        watch = _BootstrapWatch()

        def make_client(**configs: Any) -> Any:
            client = KafkaNetClient(**configs)
            watch.clients.append(client)
            return client

        logger = logging.getLogger("kafka")
        logger.addHandler(watch)
        try:
            admin = KafkaAdminClient(
                bootstrap_servers=bootstrap, kafka_client=make_client, **options
            )
        except Exception as error:
            for client in watch.clients:
                _close_quietly(client)
            reason = watch.reason if watch.reason is not None else error
            raise RemoteError(f"cannot connect to {bootstrap}: {_describe(reason)}") from error
        finally:
            logger.removeHandler(watch)
        return cls(bootstrap, admin)

    def close(self) -> None:
        """Close the connections and stop the client's I/O thread."""
        self._admin.close()

    def __enter__(self) -> RemoteAdmin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, request: Any) -> Any:
        manager = self._admin._manager
        try:
            return manager.run(manager.send, request)
        except kafka_errors.IncompatibleBrokerVersion:
            raise
        except (kafka_errors.KafkaError, OSError) as error:
            name = type(request).__name__.removesuffix("Request")
            raise RemoteError(f"{name} to {self.bootstrap} failed: {_describe(error)}") from error

    # -- ACLs --

    def create_acls(
        self, acls: Sequence[AclBinding], caller: Caller | None = None, *, dry_run: bool = False
    ) -> list[AclCreateResult]:
        """CreateAcls: one result per binding, in request order (no ids: Kafka has none)."""
        del caller
        if dry_run:
            raise UnsupportedRemotely("Kafka cannot preview CreateAcls")
        if not acls:
            return []
        creation = CreateAclsRequest.AclCreation
        request = CreateAclsRequest(
            min_version=_min_acl_version(a.resource_type for a in acls),
            creations=[
                creation(
                    resource_type=int(a.resource_type),
                    resource_name=a.resource_name,
                    resource_pattern_type=int(a.pattern_type),
                    principal=a.principal,
                    host=a.host,
                    operation=int(a.operation),
                    permission_type=int(a.permission_type),
                )
                for a in acls
            ],
        )
        response = self._send(request)
        results = [
            AclCreateResult(api_error(r.error_code, r.error_message)) for r in response.results
        ]
        _check_count("CreateAcls", results, acls)
        return results

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller | None = None, *, dry_run: bool = False
    ) -> list[AclDeleteResult]:
        """DeleteAcls: one result per filter with the ACLs it removed. A dry run asks
        DescribeAcls with each filter instead (Kafka matches both the same way)."""
        del caller
        if not filters:
            return []
        if dry_run:
            return [AclDeleteResult(*self._describe_tuple(f)) for f in filters]
        item = DeleteAclsRequest.DeleteAclsFilter
        request = DeleteAclsRequest(
            min_version=_min_acl_version(f.resource_type for f in filters),
            filters=[item(**_filter_fields(f)) for f in filters],
        )
        response = self._send(request)
        results = [
            AclDeleteResult(
                api_error(r.error_code, r.error_message),
                tuple(
                    _acl(m, m.resource_type, m.resource_name, m.pattern_type)
                    for m in r.matching_acls
                ),
            )
            for r in response.filter_results
        ]
        _check_count("DeleteAcls", results, filters)
        return results

    def describe_acls(
        self, acl_filter: AclFilter, caller: Caller | None = None
    ) -> tuple[ApiError, list[AccessControlEntryRecord]]:
        """DescribeAcls: the ACLs the filter matches, in the cluster's order."""
        del caller
        error, acls = self._describe_tuple(acl_filter)
        return error, list(acls)

    def _describe_tuple(
        self, acl_filter: AclFilter
    ) -> tuple[ApiError, tuple[AccessControlEntryRecord, ...]]:
        request = DescribeAclsRequest(
            min_version=_min_acl_version([acl_filter.resource_type]), **_filter_fields(acl_filter)
        )
        response = self._send(request)
        acls = tuple(
            _acl(entry, resource.resource_type, resource.resource_name, resource.pattern_type)
            for resource in response.resources
            for entry in resource.acls
        )
        return api_error(response.error_code, response.error_message), acls

    # -- SCRAM --

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller | None = None,
    ) -> list[ScramAlterResult]:
        """AlterUserScramCredentials: one result per user, as the cluster answers."""
        del caller
        request = AlterUserScramCredentialsRequest(
            deletions=[
                AlterUserScramCredentialsRequest.ScramCredentialDeletion(
                    name=d.name, mechanism=int(d.mechanism)
                )
                for d in deletions
            ],
            upsertions=[
                AlterUserScramCredentialsRequest.ScramCredentialUpsertion(
                    name=u.name,
                    mechanism=int(u.mechanism),
                    iterations=u.iterations,
                    salt=u.salt,
                    salted_password=u.salted_password,
                )
                for u in upsertions
            ],
        )
        response = self._send(request)
        return [
            ScramAlterResult(r.user, api_error(r.error_code, r.error_message))
            for r in response.results
        ]

    def describe_scram(
        self, names: Sequence[str] | None, caller: Caller | None = None
    ) -> tuple[ApiError, list[ScramDescribeResult]]:
        """DescribeUserScramCredentials; ``None`` or no names describes every user."""
        del caller
        user_name = DescribeUserScramCredentialsRequest.UserName
        request = DescribeUserScramCredentialsRequest(
            users=[user_name(name=n) for n in names] if names else None
        )
        response = self._send(request)
        described = [
            ScramDescribeResult(
                r.user,
                api_error(r.error_code, r.error_message),
                tuple(
                    CredentialInfo(ScramMechanism.from_code(c.mechanism), c.iterations)
                    for c in r.credential_infos
                ),
            )
            for r in response.results
        ]
        return api_error(response.error_code, response.error_message), described


def _min_acl_version(resource_types: Any) -> int:
    # v1 carries the pattern type (v0 would silently mean LITERAL); v3 adds the USER resource.
    return 3 if any(t == ResourceType.USER for t in resource_types) else 1


def _filter_fields(acl_filter: AclFilter) -> dict[str, Any]:
    return {
        "resource_type_filter": int(acl_filter.resource_type),
        "resource_name_filter": acl_filter.resource_name,
        "pattern_type_filter": int(acl_filter.pattern_type),
        "principal_filter": acl_filter.principal,
        "host_filter": acl_filter.host,
        "operation": int(acl_filter.operation),
        "permission_type": int(acl_filter.permission_type),
    }


def _acl(entry: Any, resource_type: int, name: str, pattern_type: int) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        REMOTE_ACL_ID,
        ResourceType.from_code(resource_type),
        name,
        PatternType.from_code(pattern_type),
        entry.principal,
        entry.host,
        AclOperation.from_code(entry.operation),
        AclPermissionType.from_code(entry.permission_type),
    )


def _check_count(api: str, results: Sequence[Any], items: Sequence[Any]) -> None:
    if len(results) != len(items):
        raise RemoteError(f"{api}: the cluster answered {len(results)} results for {len(items)}")


def _describe(error: BaseException) -> str:
    """``SASL_AUTHENTICATION_FAILED (58): ...`` for a Kafka error code, else the exception."""
    name = type(error).__name__
    if isinstance(error, kafka_errors.BrokerResponseError) and error.message:
        detail = str(error.args[0]) if error.args else str(error.description or "")
        while detail.startswith(f"{name}: "):
            detail = detail.removeprefix(f"{name}: ")
        return f"{error.message} ({error.errno}): {detail}"
    text = str(error) or name
    return text if text.startswith(name) else f"{name}: {text}"


def _close_quietly(client: Any) -> None:
    with suppress(Exception):  # already broken; the I/O thread is stopped below either way
        client._manager.closed = False  # set by _BootstrapWatch; close() skips a closed manager
        client.close()
    with suppress(Exception):
        client._manager._net.stop()
