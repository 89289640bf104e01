"""What a URL asks, read with the CLI's rules: a moment (``at_offset`` or ``at_time``, as
``--at-offset``/``--at-time``), a request to explain (principal, host, operation, resource, as
``aclog explain`` checks them) and the State view's filter (as ``acls list`` filters). A value
that breaks a rule is a :class:`BadQuery` whose message says what to change (a 400 page).

Pure functions; thread-safe. Cost: O(length of the query).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from aclog.authorizer import AclFilter
from aclog.controller import CLUSTER_NAME, host_error, principal_error
from aclog.records import (
    NAMEABLE_OPERATIONS,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from aclog.replay import time_ms, time_text

ACL_OPERATIONS = NAMEABLE_OPERATIONS
"""The operations a request can name (the explain form's choices)."""

RESOURCE_TYPES = tuple(
    rt for rt in ResourceType if rt not in (ResourceType.UNKNOWN, ResourceType.ANY)
)
"""The resource types a request can name."""

_MAX_TEXT = 10_000
"""Longer values are refused: no Kafka name or principal is near this long."""


E = TypeVar("E", AclOperation, ResourceType, PatternType, AclPermissionType)


class BadQuery(ValueError):
    """A URL parameter that does not make a valid question; the message says what to change."""


@dataclass(frozen=True)
class Moment:
    """A point in the log: an offset, a time (epoch ms) or neither (the end, now)."""

    offset: int | None = None
    time_ms: int | None = None

    @property
    def is_now(self) -> bool:
        return self.offset is None and self.time_ms is None

    def query(self) -> dict[str, str]:
        """The URL parameters that name this moment (empty for now)."""
        if self.offset is not None:
            return {"at_offset": str(self.offset)}
        if self.time_ms is not None:
            return {"at_time": time_text(self.time_ms)}
        return {}


def text(params: Mapping[str, str], name: str, default: str = "") -> str:
    """Parameter ``name`` as given (Kafka allows any character in a name, NUL and newlines
    too), bounded in length."""
    value = params.get(name, default)
    if len(value) > _MAX_TEXT:
        raise BadQuery(f"{name} is {len(value)} characters long; at most {_MAX_TEXT}")
    return value


def whole(params: Mapping[str, str], name: str, default: int | None = None) -> int | None:
    """Parameter ``name`` as a number 0 or more (absent or empty: ``default``)."""
    value = params.get(name, "").strip()
    if not value:
        return default
    if not value.isascii() or not value.isdigit():
        raise BadQuery(f"{name} {value!r} is not a whole number 0 or more")
    return int(value)


def moment(params: Mapping[str, str]) -> Moment:
    """The moment a URL names; a time in the future is refused (a mistyped year, most
    likely), as are an offset and a time together."""
    offset = whole(params, "at_offset")
    when = params.get("at_time", "").strip()
    if offset is not None and when:
        raise BadQuery("give at_offset or at_time, not both")
    if not when:
        return Moment(offset=offset)
    try:
        at_ms = time_ms(when)
    except ValueError as error:
        raise BadQuery(f"at_time: {error}") from None
    if at_ms > time.time() * 1000:
        raise BadQuery(f"at_time {time_text(at_ms)} is in the future; pick a moment up to now")
    return Moment(time_ms=at_ms)


def choice(params: Mapping[str, str], name: str, kind: type[E], default: E) -> E:
    """Parameter ``name`` as a member of ``kind`` (any case or style: ``Read``, ``READ``)."""
    value = params.get(name, "").strip()
    if not value:
        return default
    try:
        found = kind.parse(value)
    except ValueError:
        found = None
    if found is None or found.name == "UNKNOWN":
        names = ", ".join(member.name for member in kind if member.name != "UNKNOWN")
        raise BadQuery(f"{name} {value!r} is not one of: {names}")
    return found


@dataclass(frozen=True)
class ExplainQuery:
    """One request to decide: who, from where, what, on which resource."""

    principal: str
    host: str
    operation: AclOperation
    resource_type: ResourceType
    resource_name: str


def explain_query(params: Mapping[str, str]) -> ExplainQuery | None:
    """The request a URL asks to explain (``None``: the form was not filled in yet), checked
    as ``aclog explain`` checks its options."""
    principal = text(params, "principal")
    if not principal:
        return None
    host = host_query(params) or "*"
    return ExplainQuery(caller(principal), host, operation_query(params), *resource_query(params))


def caller(principal: str) -> str:
    """``principal``, if a client could have it: ``Type:name``, either part possibly empty
    (the rule ``explain``, ``reach`` and ``timeline`` apply to the caller they ask about)."""
    if ":" not in principal:
        raise BadQuery(
            f"principal {principal!r}: a caller's principal is Type:name, for example "
            "User:alice (the name may be empty, as in User:)"
        )
    return principal


def host_query(params: Mapping[str, str]) -> str | None:
    """Parameter ``host``: ``*`` or an IP address, as an ACL holds it (``None``: not given)."""
    host = text(params, "host").strip()
    if not host:
        return None
    if (error := host_error(host, glob=False)) is not None:
        raise BadQuery(f"host: {error.message}")
    return host


def operation_query(params: Mapping[str, str]) -> AclOperation:
    """Parameter ``operation``: one a request can name (not ANY)."""
    operation = choice(params, "operation", AclOperation, AclOperation.UNKNOWN)
    if operation not in ACL_OPERATIONS:
        raise BadQuery("operation: choose one, e.g. READ")
    return operation


def resource_query(params: Mapping[str, str]) -> tuple[ResourceType, str]:
    """Parameters ``resource_type`` (default TOPIC) and ``resource_name`` (the cluster's
    name for CLUSTER): one resource a request can name."""
    resource_type = choice(params, "resource_type", ResourceType, ResourceType.TOPIC)
    if resource_type not in RESOURCE_TYPES:
        raise BadQuery("resource_type: choose one, e.g. TOPIC")
    name = text(params, "resource_name")
    if resource_type == ResourceType.CLUSTER:
        name = CLUSTER_NAME
    if not name:
        raise BadQuery("resource_name is empty; Kafka refuses empty names")
    return resource_type, name


def state_filter(params: Mapping[str, str]) -> AclFilter:
    """The State view's filter: each field exact, as ``acls list`` matches (``pattern_type``
    MATCH: every ACL that applies to the named resource)."""
    principal = text(params, "principal") or None
    if principal is not None and (error := principal_error(principal)) is not None:
        raise BadQuery(f"principal: {error.message}")
    return AclFilter(
        resource_type=choice(params, "resource_type", ResourceType, ResourceType.ANY),
        resource_name=text(params, "resource_name") or None,
        pattern_type=choice(params, "pattern_type", PatternType, PatternType.ANY),
        principal=principal,
        host=text(params, "host") or None,
        operation=choice(params, "operation", AclOperation, AclOperation.ANY),
        permission_type=choice(params, "permission", AclPermissionType, AclPermissionType.ANY),
    )
