"""Who may change state: validation and the ACL and SCRAM control managers.

A control manager takes the committed image and a request and returns a
:class:`~aclog.controller.result.ControllerResult` (records + per-item response) without changing
anything; the state changes only when those records are committed and replayed.
"""

from aclog.controller.acl_manager import MAX_RECORDS_PER_USER_OP, AclControlManager
from aclog.controller.authorization import ClusterAuthorizer, check_cluster_access
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import (
    AclCreateResult,
    AclDeleteResult,
    ControllerResult,
    ScramAlterResult,
)
from aclog.controller.scram_manager import (
    DEFAULT_ITERATIONS,
    DEFAULT_SALT_BYTES,
    ScramControlManager,
    new_salt,
    salted_password,
    scram_keys,
    upsertion_for_password,
)

__all__ = [
    "DEFAULT_ITERATIONS",
    "DEFAULT_SALT_BYTES",
    "MAX_RECORDS_PER_USER_OP",
    "AclControlManager",
    "AclCreateResult",
    "AclDeleteResult",
    "ClusterAuthorizer",
    "ControllerResult",
    "ScramAlterResult",
    "ScramControlManager",
    "ScramDeletion",
    "ScramUpsertion",
    "check_cluster_access",
    "new_salt",
    "salted_password",
    "scram_keys",
    "upsertion_for_password",
]
