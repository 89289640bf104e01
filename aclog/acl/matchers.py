"""How one stored ACL's principal and host are matched against a request.

- principal ``User:*`` is Kafka's wildcard in every ACL: it matches every session principal, of
  any type. Otherwise, in LITERAL and PREFIXED ACLs the principal must equal the session
  principal's ``Type:name`` text exactly.
- host ``*`` matches every client. Otherwise hosts are compared as parsed IP addresses: both
  sides go through :func:`canonical_host` (``::1`` equals ``0:0:0:0:0:0:0:1``); a host that does
  not parse is compared as an exact string.
- in a GLOB ACL the principal and the host are globs (:mod:`aclog.acl.glob`). A principal
  glob is matched against the whole ``Type:name`` text, a host glob against the client's
  canonical address text (so write host globs in canonical form: ``fe80::*``, not
  ``FE80:0:...``). A glob without wildcards means its unescaped text, compared as above (a
  host then still as a parsed IP address). A principal or host that is not a valid glob (the
  controller rejects those) is compared as an exact string.

Each field of an ACL becomes a *matcher*: ``None`` (matches everything), a ``str`` (compared
exactly; hosts canonical) or a :class:`Glob`. :mod:`aclog.authorizer.rules` folds the exact ones
into dicts; :func:`covers` is the one-ACL check the slower questions (explain, listing by type)
use.

Immutable; thread-safe (the caches are dicts that only grow until cleared whole). Matching costs
two string compares, or one GLOB match per glob field.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from aclog.acl.glob import Glob, GlobSyntaxError, compile_glob
from aclog.records.enums import PatternType
from aclog.records.types import AccessControlEntryRecord

WILDCARD_PRINCIPAL = "User:*"
WILDCARD_HOST = "*"
WILDCARD_RESOURCE = "*"

Matcher = str | Glob | None

CANONICAL: dict[str, str] = {}
"""``canonical_host``'s cache: a plain dict, so the hot path can probe it inline."""
_CACHE_LIMIT = 1 << 16


def canonical_host(host: str) -> str:
    """The host's canonical IP address text (``::1`` for ``0:0:0:0:0:0:0:1``); the host itself
    when it is not an IP address. Cached: one dict probe, O(len(host)) on a miss."""
    text = CANONICAL.get(host)
    if text is None:
        try:
            text = str(ipaddress.ip_address(host))
        except ValueError:
            text = host
        if len(CANONICAL) >= _CACHE_LIMIT:
            CANONICAL.clear()
        CANONICAL[host] = text
    return text


def try_compile(pattern: str) -> Glob | None:
    """The compiled GLOB, or ``None`` when ``pattern`` is not a valid GLOB."""
    try:
        return compile_glob(pattern)
    except GlobSyntaxError:
        return None


@lru_cache(maxsize=_CACHE_LIMIT)
def principal_matcher(principal: str, is_glob: bool) -> Matcher:
    """How an ACL's principal is matched: ``None`` for the wildcard, the text to compare, or a
    glob (GLOB ACLs only)."""
    if principal == WILDCARD_PRINCIPAL:
        return None
    if not is_glob:
        return principal
    glob = try_compile(principal)
    if glob is None:
        return principal
    if glob.has_wildcards:
        return glob
    if glob.literal_prefix == WILDCARD_PRINCIPAL:
        # An escaped "User:\*" means the principal literally named "*", not the wildcard.
        return glob
    return glob.literal_prefix


@lru_cache(maxsize=_CACHE_LIMIT)
def host_matcher(host: str, is_glob: bool) -> Matcher:
    """How an ACL's host is matched: ``None`` for ``*``, the canonical text, or a glob (GLOB
    ACLs only)."""
    if host == WILDCARD_HOST:
        return None
    if not is_glob:
        return canonical_host(host)
    glob = try_compile(host)
    if glob is None:
        return canonical_host(host)
    if glob.has_wildcards:
        return glob
    return canonical_host(glob.literal_prefix)


def field_matches(matcher: Matcher, value: str) -> bool:
    """True when ``matcher`` accepts ``value`` (a principal, or a canonical host)."""
    if matcher is None:
        return True
    if isinstance(matcher, str):
        return matcher == value
    return matcher.matches(value)


def covers(acl: AccessControlEntryRecord, principal: str, host: str) -> bool:
    """True when ``acl`` covers ``principal`` connecting from ``host`` (canonical text),
    whatever its operation and permission."""
    is_glob = acl.pattern_type == PatternType.GLOB
    return field_matches(principal_matcher(acl.principal, is_glob), principal) and field_matches(
        host_matcher(acl.host, is_glob), host
    )
