"""Who may change state: validation and the ACL and SCRAM control managers.

A control manager takes the committed image and a request and returns a
:class:`~aclog.controller.result.ControllerResult` (records + per-item response) without changing
anything; the state changes only when those records are committed and replayed.
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.controller.acl_manager import AclControlManager
    from aclog.controller.admission import RecordAdmission
    from aclog.controller.authorization import ClusterAuthorizer, check_cluster_access
    from aclog.controller.caller import Caller
    from aclog.controller.controller import Controller, LocalOperator
    from aclog.controller.quorum_timing import DEFAULT_ELECTION_TIMEOUT_MS, DEFAULT_HEARTBEAT_MS
    from aclog.controller.record_cap import MAX_RECORDS_PER_USER_OP, cap_exceeded, is_over_cap
    from aclog.controller.requests import ScramDeletion, ScramUpsertion
    from aclog.controller.result import (
        AclCreateResult,
        AclDeleteResult,
        ControllerResult,
        ScramAlterResult,
    )
    from aclog.controller.scram_limits import (
        DEFAULT_ITERATIONS,
        DEFAULT_SALT_BYTES,
        LINT_MIN_ITERATIONS,
        MAX_ITERATIONS,
        MIN_ITERATIONS,
    )
    from aclog.controller.scram_manager import (
        ScramControlManager,
        new_salt,
        salted_password,
        scram_keys,
        upsertion_for_password,
    )
    from aclog.controller.validation import (
        CLUSTER_NAME,
        cluster_pattern_error,
        creation_error,
        host_error,
        principal_error,
        scram_upsertion_error,
    )
    from aclog.controller.writer import MetadataWriter

__all__ = [
    "MAX_ITERATIONS",
    "MIN_ITERATIONS",
    "CLUSTER_NAME",
    "DEFAULT_ELECTION_TIMEOUT_MS",
    "DEFAULT_HEARTBEAT_MS",
    "DEFAULT_ITERATIONS",
    "DEFAULT_SALT_BYTES",
    "LINT_MIN_ITERATIONS",
    "MAX_RECORDS_PER_USER_OP",
    "AclControlManager",
    "AclCreateResult",
    "AclDeleteResult",
    "Caller",
    "ClusterAuthorizer",
    "Controller",
    "ControllerResult",
    "LocalOperator",
    "MetadataWriter",
    "RecordAdmission",
    "ScramAlterResult",
    "ScramControlManager",
    "ScramDeletion",
    "ScramUpsertion",
    "cap_exceeded",
    "check_cluster_access",
    "cluster_pattern_error",
    "creation_error",
    "host_error",
    "is_over_cap",
    "new_salt",
    "principal_error",
    "salted_password",
    "scram_keys",
    "scram_upsertion_error",
    "upsertion_for_password",
]

__getattr__ = lazy_face(__name__)
