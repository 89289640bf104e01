"""What an ACL means, for every layer that asks: Kafka's error codes, operations and what they
imply, GLOB patterns (KIP-1042), how a principal and a host match, ACL filters, and Kafka's
listing order. The controller validates with it, the authorizer indexes with it, the pipeline
matches with it, and none of them defines a rule of its own.

Imports only :mod:`aclog.records` (and the standard library).
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.acl.errors import UNKNOWN_SERVER_ERROR, ApiError, Errors
    from aclog.acl.filters import AclFilter, AclLike, pattern_applies
    from aclog.acl.glob import Glob, GlobSyntaxError, compile_glob, validate_glob
    from aclog.acl.matchers import canonical_host, covers, host_matcher, principal_matcher
    from aclog.acl.operations import (
        ALLOW_OPS,
        DENY_OPS,
        SUPPORTED_OPERATIONS,
        granted_operations,
        operations_bitfield,
        operations_from_bitfield,
        supported_operations,
    )
    from aclog.acl.ordering import kafka_order

__all__ = [
    "ALLOW_OPS",
    "DENY_OPS",
    "SUPPORTED_OPERATIONS",
    "UNKNOWN_SERVER_ERROR",
    "AclFilter",
    "AclLike",
    "ApiError",
    "Errors",
    "Glob",
    "GlobSyntaxError",
    "canonical_host",
    "compile_glob",
    "covers",
    "granted_operations",
    "host_matcher",
    "kafka_order",
    "operations_bitfield",
    "operations_from_bitfield",
    "pattern_applies",
    "principal_matcher",
    "supported_operations",
    "validate_glob",
]

__getattr__ = lazy_face(__name__)
