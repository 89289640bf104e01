"""Validation of ACL creations, DeleteAcls filters and SCRAM changes: pure functions.

Each check returns ``None`` when the item is valid, else the :class:`ApiError` to answer it with.
The order of checks and the messages are Kafka's (``reference/kafka-acl-spec.md`` §3, §4, §10.1),
followed by aclog's own rules (DESIGN.md §3), which only reject things Kafka would have stored:

- GLOB (pattern type 5) is allowed for every resource type except CLUSTER. Its resource name must
  be a valid GLOB (:func:`aclog.acl.glob.validate_glob`); so must its principal, which is a
  glob too in a GLOB ACL.
- The principal must be ``Type:name``, split at the first colon, with both parts non-empty
  (``User:a:b`` is type ``User``, name ``a:b``). ``User:*`` is fine.
- The host must be ``*`` or an IP address (v4 or v6, any spelling Python's :mod:`ipaddress`
  parses, such as ``::1``). Host names and CIDR ranges are rejected, since hosts are compared as
  parsed IP addresses and a name could never match. In a GLOB ACL the host may also be a glob made
  of IP-address characters (hex digits, ``.`` and ``:``) plus ``*`` and ``?``, such as
  ``10.1.?.*`` or ``fe80::*``.
- A SCRAM upsertion with an empty salt or an empty salted password is UNACCEPTABLE_CREDENTIAL.

Thread-safe; no state.
"""

from __future__ import annotations

import ipaddress
import string

from aclog.acl import ApiError, Errors
from aclog.acl.filters import AclFilter
from aclog.acl.glob import GlobSyntaxError, validate_glob
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.scram_limits import MAX_ITERATIONS, MIN_ITERATIONS
from aclog.image.scram import ScramImage
from aclog.records.enums import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.records.types import AclBinding, UserScramCredentialRecord

CLUSTER_NAME = "kafka-cluster"
_HOST_GLOB_CHARS = frozenset(string.hexdigits + ".:*?")


def _invalid(message: str) -> ApiError:
    return ApiError(Errors.INVALID_REQUEST, message)


def conversion_error(binding: AclBinding) -> str | None:
    """Kafka's constructor checks (§3 stage 2), for the wire layer: a binding with ANY/MATCH where
    a stored ACL needs a specific value cannot even be built, and the whole request then fails
    with UNKNOWN_SERVER_ERROR. Returns the exception text, or ``None``."""
    if binding.resource_type == ResourceType.ANY:
        return "resourceType must not be ANY"
    if binding.pattern_type in (PatternType.ANY, PatternType.MATCH):
        return f"patternType must not be {binding.pattern_type.name}"
    if binding.operation == AclOperation.ANY:
        return "operation must not be ANY"
    if binding.permission_type == AclPermissionType.ANY:
        return "permissionType must not be ANY"
    return None


def precheck_error(binding: AclBinding) -> ApiError | None:
    """Kafka's ``AclApis`` pre-checks (§3 stage 3). A creation failing here never reaches the
    controller proper, so it keeps this error even when the rest of the request fails."""
    if binding.resource_type == ResourceType.CLUSTER and binding.resource_name != CLUSTER_NAME:
        return _invalid(f"The only valid name for the CLUSTER resource is {CLUSTER_NAME}")
    if not binding.resource_name:
        return _invalid("Invalid empty resource name")
    return None


def new_acl_error(binding: AclBinding) -> ApiError | None:
    """Kafka's ``AclControlManager.validateNewAcl`` (§3 stage 4), then aclog's own rules."""
    if binding.resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
        return _invalid(f"Invalid resourceType {binding.resource_type.name}")
    if not binding.pattern_type.is_specific:
        return _invalid(f"Invalid patternType {binding.pattern_type.name}")
    if binding.pattern_type == PatternType.GLOB and binding.resource_type == ResourceType.CLUSTER:
        return _invalid(
            "Invalid patternType GLOB for the CLUSTER resource: GLOB is allowed for every "
            "resource type except CLUSTER"
        )
    if binding.operation in (AclOperation.UNKNOWN, AclOperation.ANY):
        return _invalid(f"Invalid operation {binding.operation.name}")
    if binding.permission_type not in (AclPermissionType.ALLOW, AclPermissionType.DENY):
        return _invalid(f"Invalid permissionType {binding.permission_type.name}")
    if not binding.resource_name:
        return _invalid("Resource name should not be empty")
    return _aclog_rules_error(binding)


def creation_error(binding: AclBinding) -> ApiError | None:
    """Every per-creation check of CreateAcls, in the order a request meets them."""
    return precheck_error(binding) or new_acl_error(binding)


def cluster_pattern_error(resource_type: ResourceType, pattern_type: PatternType) -> str | None:
    """kafka-acls' rule for the ACLs a person writes (``AclCommand``): the CLUSTER resource is
    only ever the LITERAL ``kafka-cluster``. Returns why a pattern breaks it, or ``None``.

    The controller does not apply it, as Kafka's controller does not (Kafka 4.0 stores a
    PREFIXED ``kafka-cluster`` ACL sent through the admin API, where it acts as the LITERAL
    one); ``acls add`` and a desired-state file do, so a person declares only what kafka-acls
    would write."""
    if resource_type != ResourceType.CLUSTER or pattern_type == PatternType.LITERAL:
        return None
    return (
        f"the cluster resource is always the LITERAL {CLUSTER_NAME}; kafka-acls refuses "
        f"{pattern_type.name} there too"
    )


def _aclog_rules_error(binding: AclBinding) -> ApiError | None:
    is_glob = binding.pattern_type == PatternType.GLOB
    if is_glob:
        try:
            validate_glob(binding.resource_name)
        except GlobSyntaxError as exc:
            return _invalid(str(exc))
    return principal_error(binding.principal, glob=is_glob) or host_error(
        binding.host, glob=is_glob
    )


def principal_error(principal: str, *, glob: bool = False) -> ApiError | None:
    """``None`` when ``principal`` is ``Type:name`` with both parts non-empty (and, for a GLOB
    ACL, a valid glob)."""
    kind, colon, name = principal.partition(":")
    if not (kind and colon and name):
        return _invalid(
            f"Invalid principal {principal!r}: expected the form Type:name with a non-empty "
            "type and name, for example User:alice"
        )
    if glob:
        try:
            validate_glob(principal)
        except GlobSyntaxError as exc:
            return _invalid(f"Invalid principal: {exc}")
    return None


def host_error(host: str, *, glob: bool = False) -> ApiError | None:
    """``None`` when ``host`` is ``*`` or an IP address (or, in a GLOB ACL, a glob of IP-address
    characters with ``*`` and ``?``)."""
    if host == "*" or _is_ip_address(host):
        return None
    if glob and set(host) <= _HOST_GLOB_CHARS:
        try:
            validate_glob(host)
        except GlobSyntaxError as exc:
            return _invalid(f"Invalid host: {exc}")
        return None
    expected = "* or an IP address such as 10.0.0.1 or ::1 (host names are not resolved)"
    if glob:
        expected += ", or a pattern of IP-address characters with * and ?, such as 10.1.?.*"
    return _invalid(f"Invalid host {host!r}: expected {expected}")


def _is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def filter_error(acl_filter: AclFilter) -> ApiError | None:
    """Kafka's ``AclControlManager.validateFilter`` for one DeleteAcls filter (§4 stage 2)."""
    if (
        acl_filter.resource_type == ResourceType.UNKNOWN
        or acl_filter.pattern_type == PatternType.UNKNOWN
    ):
        return _invalid("Unknown patternFilter.")
    if (
        acl_filter.operation == AclOperation.UNKNOWN
        or acl_filter.permission_type == AclPermissionType.UNKNOWN
    ):
        return _invalid("Unknown entryFilter.")
    return None


def scram_user_error(name: str, mechanism: ScramMechanism) -> ApiError | None:
    """The checks every SCRAM change shares (§10.1 rules 4-5)."""
    if not name:
        return ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
    if mechanism not in (ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512):
        return ApiError(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
    return None


def scram_deletion_error(image: ScramImage, deletion: ScramDeletion) -> ApiError | None:
    """A deletion's checks (§10.1 rules 4-6); the credential must exist in ``image``."""
    error = scram_user_error(deletion.name, deletion.mechanism)
    if error is not None:
        return error
    if image.credential(deletion.name, deletion.mechanism) is None:
        return ApiError(
            Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"
        )
    return None


def scram_settings_error(name: str, mechanism: ScramMechanism, iterations: int) -> ApiError | None:
    """What every stored credential's user, mechanism and iterations meet, whatever asked for
    it (§10.1 rules 4, 5, 7)."""
    error = scram_user_error(name, mechanism)
    if error is not None:
        return error
    if iterations < MIN_ITERATIONS:
        return ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
    if iterations > MAX_ITERATIONS:
        return ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations")
    return None


def scram_credential_error(
    name: str, mechanism: ScramMechanism, iterations: int, salt: bytes
) -> ApiError | None:
    """:func:`scram_settings_error`, then aclog's non-empty salt (DESIGN.md §3; Kafka stores an
    empty salt)."""
    error = scram_settings_error(name, mechanism, iterations)
    if error is None and not salt:
        return ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Salt must not be empty")
    return error


def scram_upsertion_error(upsertion: ScramUpsertion) -> ApiError | None:
    """An upsertion's checks: :func:`scram_credential_error`, then aclog's non-empty salted
    password (Kafka fails an empty one with UNKNOWN_SERVER_ERROR)."""
    error = scram_credential_error(
        upsertion.name, upsertion.mechanism, upsertion.iterations, upsertion.salt
    )
    if error is not None:
        return error
    if not upsertion.salted_password:
        return ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Salted password must not be empty")
    return None


_KEY_SIZES = {ScramMechanism.SCRAM_SHA_256: 32, ScramMechanism.SCRAM_SHA_512: 64}


def scram_record_error(
    record: UserScramCredentialRecord, *, observed: bool = False
) -> ApiError | None:
    """A credential record that did not come through :func:`scram_upsertion_error` (an import):
    the same credential rules, and StoredKey and ServerKey of the mechanism's digest size, as
    keys derived from a salted password are (the record holds no salted password to check).

    ``observed``: a credential ``aclog follow`` saw through the admin API, which shows its
    mechanism and iterations but never its salt or keys. Its settings meet the same rules; its
    salt and keys must be empty (so no login can ever succeed against it)."""
    if observed:
        error = scram_settings_error(record.name, record.mechanism, record.iterations)
        if error is None and (record.salt or record.stored_key or record.server_key):
            return ApiError(
                Errors.UNACCEPTABLE_CREDENTIAL, "An observed credential holds no salt or keys"
            )
        return error
    error = scram_credential_error(record.name, record.mechanism, record.iterations, record.salt)
    if error is not None:
        return error
    size = _KEY_SIZES[record.mechanism]
    if len(record.stored_key) != size or len(record.server_key) != size:
        return ApiError(
            Errors.UNACCEPTABLE_CREDENTIAL,
            f"StoredKey and ServerKey must be {size} bytes for {record.mechanism.mechanism_name}",
        )
    return None
