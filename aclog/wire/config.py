"""What a listener is told: the address, security protocol, authorizer settings and limits
(:class:`~aclog.node.limits.Limits`, which ``aclog serve --help`` reads without the listener).

Immutable; thread-safe. :meth:`ServerConfig.of_settings` reads the settings as ``aclog serve``
takes them, as text (:func:`~aclog.node.parse_endpoint` is the one parser of ``HOST:PORT``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from aclog.authorizer import parse_super_users
from aclog.config_error import ConfigError
from aclog.controller.quorum_timing import DEFAULT_ELECTION_TIMEOUT_MS, DEFAULT_HEARTBEAT_MS
from aclog.node.endpoint import DEFAULT_PORT, Endpoint, parse_endpoint
from aclog.node.limits import Limits


class SecurityProtocol(enum.Enum):
    """Kafka's listener security protocols that aclog serves (no plain SSL: principals come from
    SASL, and ``User:ANONYMOUS`` over TLS would add nothing)."""

    PLAINTEXT = "PLAINTEXT"
    SASL_PLAINTEXT = "SASL_PLAINTEXT"
    SASL_SSL = "SASL_SSL"

    @property
    def uses_sasl(self) -> bool:
        """True when clients must log in with SASL/SCRAM before anything but ApiVersions."""
        return self is not SecurityProtocol.PLAINTEXT

    @property
    def uses_tls(self) -> bool:
        """True when the listener wraps connections in TLS."""
        return self is SecurityProtocol.SASL_SSL


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything ``aclog serve`` needs. ``advertised`` defaults to the bound listen address
    (after a port of 0 is replaced by the one the OS chose)."""

    data_dir: Path = Path("aclog-data")
    listen: Endpoint = Endpoint("127.0.0.1", DEFAULT_PORT)  # noqa: RUF009 (frozen)
    advertised: Endpoint | None = None
    node_id: int = 1
    security_protocol: SecurityProtocol = SecurityProtocol.PLAINTEXT
    super_users: frozenset[str] = frozenset()
    allow_everyone_if_no_acl_found: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    topics_file: Path | None = None
    cluster_id: str | None = None
    limits: Limits = field(default_factory=Limits)
    workers: int = 4
    shutdown_timeout: float = 30.0
    controller: bool = False
    heartbeat_ms: int = DEFAULT_HEARTBEAT_MS
    election_timeout_ms: int = DEFAULT_ELECTION_TIMEOUT_MS
    scrub_interval: float = 60.0
    """Seconds between re-reads of the acknowledged log and snapshots (:mod:`aclog.node.scrub`)."""

    @classmethod
    def of_settings(
        cls,
        *,
        data_dir: Path,
        listen: str,
        advertised: str | None,
        node_id: int,
        security_protocol: str,
        super_users: list[str],
        allow_everyone: bool,
        tls: tuple[Path | None, Path | None],
        topics: Path | None,
        limits: Limits,
        quorum: tuple[bool, int, int],
        scrub_interval_ms: int,
    ) -> ServerConfig:
        """The settings ``aclog serve``'s options give, as text (``HOST:PORT`` endpoints, the
        protocol's name in any case, ``super.users`` entries, each may hold several separated
        by ``;``); ``tls`` is the certificate and key, ``quorum`` whether the node shares the
        directory with other controllers, then the heartbeat and election timeout in
        milliseconds. Raises :class:`ConfigError` (or ``ValueError`` for a super user without a
        colon) saying what to change."""
        try:
            protocol = SecurityProtocol(security_protocol.strip().upper())
        except ValueError:
            choices = ", ".join(p.value for p in SecurityProtocol)
            raise ConfigError(
                f"unknown security protocol {security_protocol!r}; use one of {choices}"
            ) from None
        return cls(
            data_dir=data_dir,
            listen=parse_endpoint(listen),
            advertised=None if advertised is None else parse_endpoint(advertised),
            node_id=node_id,
            security_protocol=protocol,
            super_users=parse_super_users(";".join(super_users)),
            allow_everyone_if_no_acl_found=allow_everyone,
            tls_cert=tls[0],
            tls_key=tls[1],
            topics_file=topics,
            limits=limits,
            controller=quorum[0],
            heartbeat_ms=quorum[1],
            election_timeout_ms=quorum[2],
            scrub_interval=scrub_interval_ms / 1000,
        )

    def __post_init__(self) -> None:
        if not 0 <= self.node_id <= 2**31 - 1:
            raise ConfigError(f"the node id must be from 0 to 2147483647, not {self.node_id}")
        if self.security_protocol.uses_tls and (self.tls_cert is None or self.tls_key is None):
            raise ConfigError("SASL_SSL needs --tls-cert and --tls-key (PEM files)")
        if not self.security_protocol.uses_tls and (self.tls_cert or self.tls_key):
            raise ConfigError("--tls-cert and --tls-key are only used with SASL_SSL")
        if self.advertised is not None and (
            self.advertised.is_wildcard or self.advertised.port == 0
        ):
            raise ConfigError(
                f"the advertised address {self.advertised} is not reachable; give the host and "
                "port clients should connect to"
            )
        if self.advertised is None and self.listen.is_wildcard:
            raise ConfigError(
                f"listening on {self.listen} (every interface) needs --advertised HOST:PORT, "
                "the address clients should connect to"
            )
        if not 0 < self.heartbeat_ms < self.election_timeout_ms:
            raise ConfigError(
                "the heartbeat interval must be positive and shorter than the election timeout "
                f"(got {self.heartbeat_ms} ms and {self.election_timeout_ms} ms)"
            )
        if self.workers < 1:
            raise ConfigError("workers must be at least 1")
        if self.shutdown_timeout <= 0:
            raise ConfigError("shutdown_timeout must be a positive number of seconds")
        if self.scrub_interval <= 0:
            raise ConfigError("the scrub interval must be a positive number of seconds")
