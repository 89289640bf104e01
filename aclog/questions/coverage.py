"""Whether one ACL covers every request another one matches: the basis of the lint findings
"made redundant by a broader ALLOW" and "never decides because a DENY covers it".

Each matched field of an ACL (resource name, principal, host) is read as a *span* of the values
it matches:

- ``any``: every value (resource LITERAL ``*``, principal ``User:*``, host ``*``);
- ``exact``: one value (a LITERAL name, a principal, a canonical host address; a GLOB field
  without wildcards means its unescaped text);
- ``prefix``: every value starting with the text (PREFIXED names only);
- ``glob``: the values a GLOB with wildcards matches (GLOB ACLs: name, principal and host).

:func:`span_covers` answers "does every value of the inner span belong to the outer one?" and is
*sound*: True only when it is certain. It is exact except for GLOB outer spans, where it
recognises equal patterns, single values the glob matches, and globs of the form
``literal*`` (a prefix in disguise, ``*`` alone being every value). The GLOB matching itself
is the one definition in :mod:`aclog.acl.glob`.

Which operations an ACL decides is asked of the authorizer itself
(:func:`decided_operations`): a one-ACL authorizer is asked each supported operation, so ALL,
implied operations and DENY's lack of implication are Kafka's rules and nothing else.

Pure; thread-safe (the caches are ``lru_cache``). ``span_covers`` costs O(name length), or one
GLOB match; ``decided_operations`` is computed once per (permission, operation, type).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import lru_cache

from aclog.acl import GlobSyntaxError, canonical_host, compile_glob, supported_operations
from aclog.authorizer import Authorizer
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

Span = tuple[str, str]
"""(kind, text): kind is ``any``, ``exact``, ``prefix`` or ``glob``."""

ANY: Span = ("any", "")
_GLOB = PatternType.GLOB


def resource_span(acl: AccessControlEntryRecord) -> Span:
    """The resource names ``acl`` applies to."""
    return resource_span_of(acl.pattern_type, acl.resource_name)


def principal_span(acl: AccessControlEntryRecord) -> Span:
    """The session principals ``acl`` covers."""
    return principal_span_of(acl.pattern_type, acl.principal)


def host_span(acl: AccessControlEntryRecord) -> Span:
    """The client hosts ``acl`` covers (canonical addresses)."""
    return host_span_of(acl.pattern_type, acl.host)


def resource_span_of(pattern_type: PatternType, name: str) -> Span:
    """The resource names an ACL of ``pattern_type`` naming ``name`` applies to (a reader of
    many ACLs asks once per distinct pattern)."""
    if pattern_type == PatternType.LITERAL:
        return ANY if name == "*" else ("exact", name)
    if pattern_type == PatternType.PREFIXED:
        return ("prefix", name)
    return _glob_span(name, str)


def principal_span_of(pattern_type: PatternType, principal: str) -> Span:
    """The session principals an ACL of ``pattern_type`` naming ``principal`` covers."""
    if principal == "User:*":
        return ANY
    if pattern_type != _GLOB:
        return ("exact", principal)
    return _glob_span(principal, str)


def host_span_of(pattern_type: PatternType, host: str) -> Span:
    """The client hosts an ACL of ``pattern_type`` naming ``host`` covers."""
    if host == "*":
        return ANY
    if pattern_type != _GLOB:
        return ("exact", canonical_host(host))
    return _glob_span(host, canonical_host)


def _glob_span(pattern: str, exact: Callable[[str], str]) -> Span:
    try:
        glob = compile_glob(pattern)
    except GlobSyntaxError:
        return ("exact", exact(pattern))
    if glob.has_wildcards:
        return ("glob", pattern)
    return ("exact", exact(glob.literal_prefix))


def is_universal(span: Span) -> bool:
    """True when the span holds every value."""
    kind, text = span
    if kind == "any" or (kind == "prefix" and not text):
        return True
    return kind == "glob" and _star_tail(text) == ""


def span_covers(outer: Span, inner: Span) -> bool:
    """True when every value of ``inner`` is certainly in ``outer`` (see the module docstring)."""
    if is_universal(outer):
        return True
    kind, text = inner
    if kind == "any" or outer == inner:
        return kind != "any"
    outer_kind, outer_text = outer
    if kind == "exact":
        if outer_kind == "prefix":
            return text.startswith(outer_text)
        return outer_kind == "glob" and compile_glob(outer_text).matches(text)
    stem = text if kind == "prefix" else compile_glob(text).literal_prefix
    if outer_kind == "prefix":
        return stem.startswith(outer_text)
    star_stem = _star_tail(outer_text) if outer_kind == "glob" else None
    return star_stem is not None and stem.startswith(star_stem)


def _star_tail(pattern: str) -> str | None:
    """``p`` when the GLOB is ``p`` followed by stars only (``p*``), else ``None``."""
    glob = compile_glob(pattern)
    stem = glob.literal_prefix
    plain = glob.literal_count == len(stem) == glob.min_length
    return stem if glob.has_wildcards and plain and not glob.literal_suffix else None


def entry_covers(outer: AccessControlEntryRecord, inner: AccessControlEntryRecord) -> bool:
    """True when ``outer`` certainly applies to every (resource, principal, host) ``inner``
    applies to (operations and permissions aside)."""
    return (
        outer.resource_type == inner.resource_type
        and span_covers(resource_span(outer), resource_span(inner))
        and span_covers(principal_span(outer), principal_span(inner))
        and span_covers(host_span(outer), host_span(inner))
    )


@lru_cache(maxsize=1024)
def decided_operations(
    permission: AclPermissionType, operation: AclOperation, resource_type: ResourceType
) -> frozenset[AclOperation]:
    """The supported operations of ``resource_type`` that one ACL with this permission and
    operation matches: ALLOW READ on a topic gives READ and DESCRIBE, DENY READ only READ."""
    probe = Authorizer()
    literal = PatternType.LITERAL
    acl = AccessControlEntryRecord(
        uuid.UUID(int=1), resource_type, "x", literal, "User:p", "*", operation, permission
    )
    probe.load([acl])
    return frozenset(
        op
        for op in supported_operations(resource_type)
        if probe.explain("User:p", "0.0.0.0", op, resource_type, "x").deciding_acl is not None
    )
