"""The hot path: the pattern index and the authorizer (``authorize``, ``explain``, KIP-430
operations, ``authorizeByResourceType``) and how it loads from an image. Nothing else: the
questions asked of it (who can, reach, lint, timeline, impact) are :mod:`aclog.questions`, on
this face.

What an ACL means (GLOB, filters, operations, matchers) is :mod:`aclog.acl`; this face hands
the names callers of the authorizer need on, so they need not import both. Imports
:mod:`aclog.acl`, :mod:`aclog.image` and the layers below; never :mod:`aclog.replay` or
:mod:`aclog.questions` (an import-linter contract).
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
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
    from aclog.authorizer.by_type import fresh_character, proposals
    from aclog.authorizer.config import parse_allow_everyone, parse_super_users
    from aclog.authorizer.decide import skipped_characters
    from aclog.authorizer.results import (
        AuthorizerNotReadyError,
        Decision,
        Explanation,
        UnknownAclError,
        describe_acl,
    )

__all__ = [
    "SUPPORTED_OPERATIONS",
    "AclFilter",
    "AclIndex",
    "Authorizer",
    "AuthorizerNotReadyError",
    "Decision",
    "Explanation",
    "Glob",
    "GlobSyntaxError",
    "UnknownAclError",
    "canonical_host",
    "compile_glob",
    "fresh_character",
    "describe_acl",
    "kafka_order",
    "operations_bitfield",
    "operations_from_bitfield",
    "parse_allow_everyone",
    "parse_super_users",
    "pattern_applies",
    "proposals",
    "skipped_characters",
    "supported_operations",
    "validate_glob",
]

__getattr__ = lazy_face(__name__)
