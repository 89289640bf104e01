"""Connecting to a Kafka cluster for ``--bootstrap-server``, and naming what went wrong.

:func:`bootstrap_admin_client` builds kafka-python's :class:`~kafka.admin.KafkaAdminClient`
with the CLI's defaults (client id ``aclog-cli``, 15 s request and bootstrap timeouts) under the
``--command-config`` settings. kafka-python logs why each bootstrap attempt failed and
retries until the bootstrap timeout, so a logging handler keeps the last reason it logged (an
unreachable address, a TLS or SASL failure) for the :class:`RemoteError`, and stops the bootstrap
at the first authentication failure, which retrying cannot fix. :func:`describe_error` names a
Kafka error by its code (``SASL_AUTHENTICATION_FAILED (58): ...``).

Not thread-safe: during a bootstrap the handler sits on the process-wide ``kafka`` logger, so
concurrent bootstraps would see each other's failures; the CLI bootstraps once per command.
Cost: a bootstrap waits for the cluster, up to the bootstrap timeout when it does not answer.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from typing import Any

import kafka.errors as kafka_errors
from kafka.admin import KafkaAdminClient
from kafka.net.compat import KafkaNetClient

from aclog.remote.basics import RemoteError
from aclog.remote.listener_probe import sasl_mechanisms

DEFAULT_TIMEOUT_MS = 15_000
CLIENT_ID = "aclog-cli"


_TIMEOUT = kafka_errors.KafkaTimeoutError


class _BootstrapWatch(logging.Handler):
    """Keeps the last reason kafka-python logs for a failed bootstrap attempt, and stops the
    bootstrap at the first authentication failure (retrying cannot fix a wrong password)."""

    _FATAL = (
        kafka_errors.SaslAuthenticationFailedError,
        kafka_errors.UnsupportedSaslMechanismError,
    )

    def __init__(self, bootstrap: str, plaintext: bool) -> None:
        super().__init__(logging.WARNING)
        self.reason: BaseException | None = None
        self.clients: list[Any] = []
        self.bootstrap = bootstrap
        self.probe = plaintext  # a client without SASL settings may be at a SASL listener

    def emit(self, record: logging.LogRecord) -> None:
        # Runs on the client's I/O thread, inside the bootstrap loop that logged the record.
        if not isinstance(record.args, tuple) or isinstance(self.reason, SaslRequired):
            return
        errors = [a for a in record.args if isinstance(a, BaseException)]
        if record.name == "kafka.net.connection":  # "Connection lost": was it a SASL listener?
            errors = [e for e in map(self._sasl_required, errors) if e is not None]
        elif record.name != "kafka.net.manager":
            return
        for error in errors:
            if not isinstance(error, _TIMEOUT):
                self.reason = error
                if isinstance(error, (*self._FATAL, SaslRequired)):
                    for client in self.clients:
                        client._manager.closed = True  # the loop stops before its next try

    def _sasl_required(self, error: BaseException) -> SaslRequired | None:
        """At the first closed connection of a client without SASL settings, whether the
        listener wants SASL (it answers ApiVersions, then closes): retrying cannot fix that."""
        if not self.probe or not isinstance(error, kafka_errors.KafkaConnectionError):
            return None
        self.probe = False
        mechanisms = sasl_mechanisms(self.bootstrap)
        return None if mechanisms is None else SaslRequired(mechanisms)


class SaslRequired(Exception):
    """The listener takes only SASL logins, and the client has no SASL settings."""

    def __init__(self, mechanisms: list[str]) -> None:
        super().__init__(
            "the listener wants a SASL login (it offers "
            f"{', '.join(mechanisms)}) and this client has none: pass --command-config with "
            "security.protocol=SASL_PLAINTEXT (or SASL_SSL), sasl.mechanism and the user's "
            "sasl.jaas.config (or sasl.username and sasl.password)"
        )


def bootstrap_admin_client(bootstrap: str, settings: dict[str, Any] | None = None) -> Any:
    """A bootstrapped KafkaAdminClient; :class:`RemoteError` when that fails in time."""
    options: dict[str, Any] = {
        "client_id": CLIENT_ID,
        "request_timeout_ms": DEFAULT_TIMEOUT_MS,
        "bootstrap_timeout_ms": DEFAULT_TIMEOUT_MS,
        **(settings or {}),
    }
    protocol = str(options.get("security_protocol", "PLAINTEXT")).upper()
    watch = _BootstrapWatch(bootstrap, plaintext=protocol == "PLAINTEXT")

    def make_client(**configs: Any) -> Any:
        client = KafkaNetClient(**configs)
        watch.clients.append(client)
        return client

    logger = logging.getLogger("kafka")
    logger.addHandler(watch)
    try:
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, kafka_client=make_client, **options)
    except Exception as error:
        for client in watch.clients:
            _close_quietly(client)
        reason = watch.reason if watch.reason is not None else error
        timeout_ms = options["bootstrap_timeout_ms"]
        raise RemoteError(connect_failure(bootstrap, reason, timeout_ms)) from error
    finally:
        logger.removeHandler(watch)
    return admin


def bootstrap_timeout_ms(settings: dict[str, Any] | None) -> int:
    """How long a bootstrap may wait under these settings (``default.api.timeout.ms``)."""
    return int((settings or {}).get("bootstrap_timeout_ms", DEFAULT_TIMEOUT_MS))


def connect_failure(bootstrap: str, reason: BaseException, timeout_ms: int) -> str:
    """Why a bootstrap failed: an authentication error as Kafka names it; otherwise that the
    cluster gave no usable answer within the timeout, with the last attempt's error (kafka-python
    reports a connect that timed out as a bare "socket disconnected", said here in words)."""
    if isinstance(reason, SaslRequired):
        return f"cannot connect to {bootstrap}: {reason}"
    if isinstance(reason, _BootstrapWatch._FATAL):
        return f"cannot connect to {bootstrap}: {describe_error(reason)}"
    if isinstance(reason, kafka_errors.KafkaConnectionError) and "disconnected" in str(reason):
        last = "the connection closed, or the connect timed out, before the cluster answered"
    else:
        last = describe_error(reason)
    return (
        f"cannot connect to {bootstrap}: no answer within {timeout_ms / 1000:g} s "
        f"(default.api.timeout.ms in --command-config); last attempt: {last}"
    )


def describe_error(error: BaseException) -> str:
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
