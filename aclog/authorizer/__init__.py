"""How questions are answered fast: the pattern index and the authorizer (``authorize``,
``explain``, KIP-430 operations, ``authorizeByResourceType``), and the questions built on it
(who can, what can a principal reach, lint, the impact of a change).

What an ACL means (GLOB, filters, operations, matchers) is :mod:`aclog.acl`; this face hands
the names callers of the authorizer need on, so they need not import both. Imports
:mod:`aclog.acl`, :mod:`aclog.replay` (for the hygiene of a data directory) and the layers
below.
"""

from aclog.acl.filters import AclFilter, pattern_applies
from aclog.acl.glob import Glob, GlobSyntaxError, compile_glob, validate_glob
from aclog.acl.matchers import canonical_host
from aclog.acl.operations import (
    SUPPORTED_OPERATIONS,
    operations_bitfield,
    operations_from_bitfield,
    supported_operations,
)
from aclog.acl.ordering import kafka_order
from aclog.authorizer.acl_index import AclIndex
from aclog.authorizer.authorizer import Authorizer
from aclog.authorizer.config import parse_allow_everyone, parse_super_users
from aclog.authorizer.decide import skipped_characters
from aclog.authorizer.host_answers import ANY_HOST, HostAnswer
from aclog.authorizer.pattern_text import describe_pattern, short_acl
from aclog.authorizer.reach import reach
from aclog.authorizer.reachable import Reach, Reachable
from aclog.authorizer.results import (
    AuthorizerNotReadyError,
    Decision,
    Explanation,
    UnknownAclError,
    describe_acl,
)
from aclog.authorizer.who_can import PrincipalAccess, WhoCan, who_can

__all__ = [
    "ANY_HOST",
    "SUPPORTED_OPERATIONS",
    "AclFilter",
    "AclIndex",
    "Authorizer",
    "AuthorizerNotReadyError",
    "Decision",
    "Explanation",
    "Glob",
    "GlobSyntaxError",
    "HostAnswer",
    "PrincipalAccess",
    "Reach",
    "Reachable",
    "UnknownAclError",
    "WhoCan",
    "canonical_host",
    "compile_glob",
    "describe_acl",
    "describe_pattern",
    "kafka_order",
    "operations_bitfield",
    "operations_from_bitfield",
    "parse_allow_everyone",
    "parse_super_users",
    "pattern_applies",
    "reach",
    "short_acl",
    "skipped_characters",
    "supported_operations",
    "validate_glob",
    "who_can",
]
