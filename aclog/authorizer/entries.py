"""How one stored ACL's principal and host are matched against a request.

An :class:`IndexedAcl` is a stored ACL prepared for matching:

- principal ``User:*`` is Kafka's wildcard in every ACL: it matches every session principal, of
  any type (its key is ``None``). Otherwise, in LITERAL and PREFIXED ACLs the principal must equal
  the session principal's ``Type:name`` text exactly.
- host ``*`` matches every client (key ``None``). Otherwise hosts are compared as parsed IP
  addresses: both sides go through :func:`canonical_host` (``::1`` equals ``0:0:0:0:0:0:0:1``);
  a host that does not parse is compared as an exact string.
- in a GLOB ACL the principal and the host are globs (:mod:`aclog.authorizer.glob`). A principal
  glob is matched against the whole ``Type:name`` text, a host glob against the client's
  canonical address text (so write host globs in canonical form: ``fe80::*``, not
  ``FE80:0:...``). A glob without wildcards means its unescaped text, compared as above (a
  host then still as a parsed IP address). A principal or host that is not a valid glob (the
  controller rejects those) is compared as an exact string.

Immutable; thread-safe. Matching costs two string compares, or one GLOB match per glob field.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from aclog.authorizer.glob import Glob, GlobSyntaxError, compile_glob
from aclog.records.enums import AclPermissionType, PatternType
from aclog.records.types import AccessControlEntryRecord

WILDCARD_PRINCIPAL = "User:*"
WILDCARD_HOST = "*"
WILDCARD_RESOURCE = "*"


@lru_cache(maxsize=65536)
def canonical_host(host: str) -> str:
    """The host's canonical IP address text (``::1`` for ``0:0:0:0:0:0:0:1``); the host itself
    when it is not an IP address. Cached; O(len(host)) on a miss."""
    try:
        text = str(ipaddress.ip_address(host))
    except ValueError:
        return host
    return host if text == host else text


def try_compile(pattern: str) -> Glob | None:
    """The compiled GLOB, or ``None`` when ``pattern`` is not a valid GLOB."""
    try:
        return compile_glob(pattern)
    except GlobSyntaxError:
        return None


class IndexedAcl:
    """Represents one stored ACL as the index keeps it: the record plus its matching keys.

    ``principal_key``/``host_key`` are the exact texts to compare (``None`` for the wildcards);
    ``principal_glob``/``host_glob`` are set instead for glob fields of GLOB ACLs.

    Immutable by convention; thread-safe.
    """

    __slots__ = (
        "acl",
        "deny",
        "host_glob",
        "host_key",
        "operation",
        "principal_glob",
        "principal_key",
    )

    def __init__(self, acl: AccessControlEntryRecord) -> None:
        self.acl = acl
        self.operation: int = acl.operation
        self.deny = acl.permission_type == AclPermissionType.DENY
        is_glob = acl.pattern_type == PatternType.GLOB
        self.principal_key, self.principal_glob = _principal_matcher(acl.principal, is_glob)
        self.host_key, self.host_glob = _host_matcher(acl.host, is_glob)

    @property
    def has_glob_fields(self) -> bool:
        """True when the principal or the host is matched as a glob."""
        return self.principal_glob is not None or self.host_glob is not None

    def matches(self, principal: str, host: str) -> bool:
        """True when this ACL covers ``principal`` connecting from ``host`` (canonical text)."""
        pglob = self.principal_glob
        if pglob is not None:
            if not pglob.matches(principal):
                return False
        elif self.principal_key is not None and self.principal_key != principal:
            return False
        hglob = self.host_glob
        if hglob is not None:
            return hglob.matches(host)
        return self.host_key is None or self.host_key == host


def _principal_matcher(principal: str, is_glob: bool) -> tuple[str | None, Glob | None]:
    if principal == WILDCARD_PRINCIPAL:
        return None, None
    if not is_glob:
        return principal, None
    glob = try_compile(principal)
    if glob is None:
        return principal, None
    if glob.has_wildcards:
        return None, glob
    if glob.literal_prefix == WILDCARD_PRINCIPAL:
        # An escaped "User:\*" means the principal literally named "*", not the wildcard;
        # keep it out of the wildcard's key.
        return None, glob
    return glob.literal_prefix, None


def _host_matcher(host: str, is_glob: bool) -> tuple[str | None, Glob | None]:
    if host == WILDCARD_HOST:
        return None, None
    if not is_glob:
        return canonical_host(host), None
    glob = try_compile(host)
    if glob is None:
        return canonical_host(host), None
    if glob.has_wildcards:
        return None, glob
    return canonical_host(glob.literal_prefix), None
