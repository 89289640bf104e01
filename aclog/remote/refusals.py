"""What a cluster is never sent: the creations refused before CreateAcls leaves this process.

A binding aclog's controller would refuse is refused here too: Kafka stores principals such as
``alice`` or ``User:`` and hosts that are not addresses (which then break authorizations or never
match), where kafka-acls.sh refuses at least the first. A GLOB binding (pattern type 5, KIP-1042)
is refused for a cluster that does not list the GLOB feature: Kafka would answer "Invalid
patternType UNKNOWN", which does not say what to do.

Pure apart from ``holds_glob``, which is asked at most once and only when a GLOB binding is
there. Cost: O(bindings).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from aclog.acl import ApiError, Errors
from aclog.controller import creation_error
from aclog.records import AclBinding, PatternType

GLOB_UNSUPPORTED = ApiError(
    Errors.INVALID_REQUEST,
    "the cluster does not store GLOB ACLs (pattern type 5, KIP-1042: aclog serve does, Kafka "
    "rejects it); use LITERAL or PREFIXED ACLs there",
)


def creation_refusals(
    acls: Sequence[AclBinding], holds_glob: Callable[[], bool]
) -> list[ApiError | None]:
    """Per binding, in order: why it is not sent, or ``None`` for one to send."""
    errors = [creation_error(acl) for acl in acls]
    if any(acl.pattern_type == PatternType.GLOB for acl in acls) and not holds_glob():
        errors = [
            error or (GLOB_UNSUPPORTED if acl.pattern_type == PatternType.GLOB else None)
            for acl, error in zip(acls, errors, strict=True)
        ]
    return errors
