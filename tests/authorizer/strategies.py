"""Builders and hypothesis strategies for ACL sets and requests.

Names come from a tiny alphabet so that equal names, prefixes, ``*`` names and GLOB collisions
happen often; principals and hosts include the wildcards, globs and IPv6 spellings.
"""

from __future__ import annotations

import itertools
import uuid

from hypothesis import strategies as st

from aclog.acl.filters import AclFilter
from aclog.acl.glob import GlobSyntaxError, validate_glob
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord

SUPER = "User:admin"
TYPES = (ResourceType.TOPIC, ResourceType.GROUP)
OPERATIONS = tuple(op for op in AclOperation if op not in (AclOperation.ANY, AclOperation.UNKNOWN))
_O = AclOperation
# Repeats weight the draws towards operations that imply or are implied, so that matches happen.
COMMON_OPERATIONS = (_O.READ, _O.WRITE, _O.DESCRIBE, _O.ALL, _O.DESCRIBE_CONFIGS, _O.ALTER_CONFIGS)
operations = st.sampled_from(COMMON_OPERATIONS * 3 + OPERATIONS)
ACL_PRINCIPALS = (
    "User:alice",
    "User:alice",
    "User:*",
    "User:bob",
    "User:*",
    "Group:alice",
    "User:a*",
    "*",
    "User:?ob",
    "User:\\*",
)
REQUEST_PRINCIPALS = (
    "User:alice",
    "User:alice",
    "User:alice",
    "User:bob",
    "User:*",
    "Group:alice",
    "User:a*",
    SUPER,
)
ACL_HOSTS = ("*", "*", "*", "10.0.0.1", "::1", "0:0:0:0:0:0:0:1", "10.0.0.*", "::?", "bad host")
REQUEST_HOSTS = ("10.0.0.1", "::1", "0:0:0:0:0:0:0:1", "10.0.0.2", "bad host", "10.0.0.*")

_ids = itertools.count(1 << 64)  # far above the ids of with_ids


def make_acl(
    name: str,
    pattern_type: PatternType = PatternType.LITERAL,
    principal: str = "User:alice",
    host: str = "*",
    operation: AclOperation = AclOperation.READ,
    permission: AclPermissionType = AclPermissionType.ALLOW,
    resource_type: ResourceType = ResourceType.TOPIC,
    acl_id: uuid.UUID | None = None,
) -> AccessControlEntryRecord:
    """A stored ACL with a fresh id unless one is given."""
    return AccessControlEntryRecord(
        acl_id or uuid.UUID(int=next(_ids)),
        resource_type,
        name,
        pattern_type,
        principal,
        host,
        operation,
        permission,
    )


def _valid_glob(pattern: str) -> bool:
    try:
        validate_glob(pattern)
    except GlobSyntaxError:
        return False
    return True


names = st.text(alphabet="ab*", min_size=1, max_size=3)
request_names = st.text(alphabet="ab*", max_size=3) | st.text(alphabet="ab*?", max_size=5)
# Patterns that start with a wildcard and end in literals are filed under their literal suffix;
# draw them often, with suffixes that share characters so that several suffix lengths match.
leading_wildcard_globs = st.builds(
    "".join,
    st.tuples(
        st.sampled_from(("*", "*", "?", "*?", "?*", "**", "*a*", "*\\*")),
        st.text(alphabet="ab*?\\", max_size=2),
        st.text(alphabet="ab", min_size=1, max_size=2),
    ),
).filter(_valid_glob)
glob_patterns = (
    st.text(alphabet="ab*?\\", min_size=1, max_size=4).filter(_valid_glob) | leading_wildcard_globs
)


types = st.sampled_from((ResourceType.TOPIC, ResourceType.TOPIC, ResourceType.GROUP))


@st.composite
def bindings(draw: st.DrawFn, glob: bool = True, dense: bool = False) -> tuple:
    """The seven fields of one ACL (without id). ``dense`` ones share type, principals and hosts
    so that several ACLs match the same request."""
    kinds = [PatternType.LITERAL, PatternType.PREFIXED] + ([PatternType.GLOB] if glob else [])
    kind = draw(st.sampled_from(kinds))
    name = draw(glob_patterns if kind == PatternType.GLOB else names)
    principals = ("User:alice", "User:*", "User:a*") if dense else ACL_PRINCIPALS
    hosts = ("*", "*", "::1") if dense else ACL_HOSTS
    return (
        ResourceType.TOPIC if dense else draw(types),
        name,
        kind,
        draw(st.sampled_from(principals)),
        draw(st.sampled_from(hosts)),
        draw(operations),
        draw(st.sampled_from((AclPermissionType.ALLOW, AclPermissionType.DENY))),
    )


def with_ids(fields: list[tuple]) -> list[AccessControlEntryRecord]:
    """Records with distinct, deterministic ids (their order breaks explain ties)."""
    return [AccessControlEntryRecord(uuid.UUID(int=i + 2), *f) for i, f in enumerate(fields)]


def acl_sets(glob: bool = True, max_size: int = 25) -> st.SearchStrategy:
    """Lists of stored ACLs: sparse ones of any size, or dense non-empty ones."""
    sparse = st.lists(bindings(glob=glob), max_size=max_size)
    dense = st.lists(bindings(glob=glob, dense=True), min_size=2, max_size=max_size)
    return (sparse | dense).map(with_ids)


requests = st.tuples(
    st.sampled_from(REQUEST_PRINCIPALS),
    st.sampled_from(REQUEST_HOSTS),
    operations,
    types,
    request_names,
)

filters = st.builds(
    AclFilter,
    resource_type=st.sampled_from((ResourceType.ANY, *TYPES)),
    resource_name=st.none() | names | glob_patterns | request_names,
    pattern_type=st.sampled_from(
        (
            PatternType.ANY,
            PatternType.MATCH,
            PatternType.LITERAL,
            PatternType.PREFIXED,
            PatternType.GLOB,
        )
    ),
    principal=st.none() | st.sampled_from(ACL_PRINCIPALS),
    host=st.none() | st.sampled_from(ACL_HOSTS),
    operation=st.sampled_from((AclOperation.ANY,)) | operations,
    permission_type=st.sampled_from(
        (AclPermissionType.ANY, AclPermissionType.ALLOW, AclPermissionType.DENY)
    ),
)


@st.composite
def glob_instances(draw: st.DrawFn, pattern: str) -> str:
    """A name that ``pattern`` (alphabet ``ab*?\\``) should match: wildcards filled at random."""
    out: list[str] = []
    chars = iter(pattern)
    for char in chars:
        if char == "\\":
            out.append(next(chars))
        elif char == "*":
            out.append(draw(st.text(alphabet="ab*", max_size=2)))
        elif char == "?":
            out.append(draw(st.sampled_from("ab*")))
        else:
            out.append(char)
    return "".join(out)


@st.composite
def aimed_requests(draw: st.DrawFn, acls: list[AccessControlEntryRecord]) -> tuple:
    """A request aimed at one of ``acls`` (its type, a name it applies to, often its principal,
    host and operation), or a random request."""
    if not acls or draw(st.integers(0, 3)) == 0:
        return draw(requests)
    acl = draw(st.sampled_from(acls))
    if acl.pattern_type == PatternType.GLOB:
        name = draw(glob_instances(acl.resource_name))
    elif acl.pattern_type == PatternType.PREFIXED:
        name = acl.resource_name + draw(st.text(alphabet="ab*", max_size=2))
    else:
        name = acl.resource_name if acl.resource_name != "*" else draw(request_names)
    principal = draw(st.sampled_from(REQUEST_PRINCIPALS))
    if acl.principal in REQUEST_PRINCIPALS and draw(st.booleans()):
        principal = acl.principal
    host = draw(st.sampled_from(REQUEST_HOSTS))
    if acl.host in REQUEST_HOSTS and draw(st.booleans()):
        host = acl.host
    operation = draw(st.sampled_from((acl.operation, acl.operation)) | operations)
    return (principal, host, operation, acl.resource_type, name)


@st.composite
def scenarios(
    draw: st.DrawFn, glob: bool = True, max_requests: int = 15
) -> tuple[list[AccessControlEntryRecord], list[tuple]]:
    """An ACL set and requests aimed at it."""
    acls = draw(acl_sets(glob=glob))
    asked = draw(st.lists(aimed_requests(acls), min_size=1, max_size=max_requests))
    return acls, asked
