"""The Spark settings a pipeline session is built with, beyond aclog's own: ``--conf key=value``
pairs, and where the driver listens when the master is a cluster.

A cluster's executors connect back to the driver, so the driver must listen on an address they
can reach: ``spark.driver.host`` (the address executors are told) and ``spark.driver.bindAddress``
(the one the driver binds). A master on this machine (``spark://127.0.0.1:7077``,
``spark://localhost:7077``) gets ``127.0.0.1`` for both by default; any other master keeps
Spark's own choice (this host's name, or ``$SPARK_LOCAL_IP``) unless a host is given (argument,
else ``$ACLOG_SPARK_DRIVER_HOST``). ``--conf spark.driver.bindAddress=0.0.0.0`` then binds every
interface while executors still use the given host (behind NAT or in a container).

Pure functions; thread-safe. Cost: negligible.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

DRIVER_HOST_ENV = "ACLOG_SPARK_DRIVER_HOST"
LOOPBACK = "127.0.0.1"
JAVA_OPTIONS_KEY = "spark.driver.extraJavaOptions"
"""The one setting that ``--conf`` extends instead of replacing: aclog's own Java options (quiet
logs, scratch folder) stay, the user's follow them and win where they overlap."""

_RESERVED = {
    "spark.master": "give the master with --master (or $ACLOG_SPARK_MASTER)",
}


class SettingError(ValueError):
    """A Spark setting that cannot be used as given; the message says what to write instead."""


def is_local(master: str) -> bool:
    """True for ``local``, ``local[n]`` and ``local[*]`` masters."""
    return master == "local" or master.startswith("local[")


_MASTER_SCHEMES = ("spark://", "k8s://", "local[", "local-cluster[")


def check_master(master: str) -> str:
    """``master`` if Spark can start with it (``local``, ``local[...]``, ``local-cluster[...]``,
    ``spark://...``, ``yarn`` or ``k8s://...``, Spark's own rule); else :class:`SettingError`,
    so a typo is a usage error before a JVM starts (Spark printed a Java stack trace and
    the command failed as if a job had)."""
    if master in ("local", "yarn") or master.startswith(_MASTER_SCHEMES):
        return master
    raise SettingError(
        f"unknown Spark master {master!r}; use local[2], local[*], spark://HOST:7077, yarn "
        "or k8s://https://HOST:PORT"
    )


def parse_conf(pairs: Iterable[str]) -> dict[str, str]:
    """``key=value`` strings (as ``spark-submit --conf`` takes them) as a dict; the value may
    hold ``=``, and a later key replaces an earlier one. Raises :class:`SettingError` for an item
    without ``=``, a key that is not a ``spark.`` setting (Spark would ignore it silently), or a
    setting another option owns."""
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        example = "e.g. --conf spark.executor.memory=2g"
        if not sep or not key:
            raise SettingError(f"--conf {pair!r} is not KEY=VALUE ({example})")
        if not key.startswith("spark.") or any(c.isspace() for c in key):
            raise SettingError(
                f"--conf {key!r} is not a Spark setting: keys start with spark. "
                f"and hold no spaces ({example})"
            )
        if key in _RESERVED:
            raise SettingError(f"--conf {key}: {_RESERVED[key]}")
        found[key] = value
    return found


def on_this_machine(master: str) -> bool:
    """Whether ``master`` is a standalone master on loopback: every host of a
    ``spark://h1:p1,h2:p2`` URL is ``localhost`` or a loopback address."""
    if not master.startswith("spark://"):
        return False
    hosts = [urlsplit(f"spark://{part}").hostname for part in master[8:].split(",")]
    return bool(hosts) and all(host is not None and _loopback(host) for host in hosts)


def is_address(host: str) -> bool:
    """Whether ``host`` is an IP address rather than a name."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _loopback(host: str) -> bool:
    return host == "localhost" or (is_address(host) and ipaddress.ip_address(host).is_loopback)


def driver_host(master: str, given: str | None = None) -> str | None:
    """The address executors reach the driver at for ``master``: ``127.0.0.1`` for a local
    master (the executors run inside the driver); else ``given``, else
    ``$ACLOG_SPARK_DRIVER_HOST``, else ``127.0.0.1`` for a master on this machine, else ``None``
    (Spark's own choice). Raises :class:`SettingError` for a blank or spaced host."""
    if is_local(master):
        return LOOPBACK
    where = "--driver-host" if given is not None else f"${DRIVER_HOST_ENV}"
    host = given if given is not None else os.environ.get(DRIVER_HOST_ENV)
    if host is not None:
        if not host.strip() or any(c.isspace() for c in host.strip()) or "/" in host:
            raise SettingError(
                f"{where} {host!r} is not a host name or address (e.g. --driver-host 10.0.0.5)"
            )
        host = host.strip()
        return host
    return LOOPBACK if on_this_machine(master) else None


def driver_settings(host: str | None) -> dict[str, str]:
    """``spark.driver.host`` and ``spark.driver.bindAddress`` for ``host`` (none for None)."""
    if host is None:
        return {}
    return {"spark.driver.host": host, "spark.driver.bindAddress": host}


def merged(own: Mapping[str, str], given: Mapping[str, str]) -> dict[str, str]:
    """``own`` settings overridden by ``given``, except the driver's Java options, which are
    joined (``given``'s last, so they win where a JVM flag repeats)."""
    result = {**own, **given}
    if JAVA_OPTIONS_KEY in own and JAVA_OPTIONS_KEY in given:
        result[JAVA_OPTIONS_KEY] = f"{own[JAVA_OPTIONS_KEY]} {given[JAVA_OPTIONS_KEY]}"
    return result
