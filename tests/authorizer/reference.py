"""A naive linear-scan authorizer written straight from the spec, to check the trie against.

Sources: ``reference/kafka-acl-spec.md`` §5-§9 and DESIGN.md §3. GLOB matching and filter
semantics come from their one definition (:mod:`aclog.acl.glob`,
:mod:`aclog.acl.filters`); everything else is spelled out here again, deliberately
without sharing code with the trie authorizer. Every question scans every ACL.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from aclog.acl.filters import AclFilter, pattern_applies
from aclog.acl.glob import GlobSyntaxError, compile_glob
from aclog.authorizer.results import AuthorizerNotReadyError, Decision, Explanation
from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord

O = AclOperation  # noqa: E741
ALLOW = AclPermissionType.ALLOW
DENY = AclPermissionType.DENY

SUPPORTED = {
    ResourceType.TOPIC: {
        O.READ,
        O.WRITE,
        O.CREATE,
        O.DESCRIBE,
        O.DELETE,
        O.ALTER,
        O.DESCRIBE_CONFIGS,
        O.ALTER_CONFIGS,
    },
    ResourceType.GROUP: {O.READ, O.DESCRIBE, O.DELETE, O.DESCRIBE_CONFIGS, O.ALTER_CONFIGS},
    ResourceType.CLUSTER: {
        O.CREATE,
        O.CLUSTER_ACTION,
        O.DESCRIBE_CONFIGS,
        O.ALTER_CONFIGS,
        O.IDEMPOTENT_WRITE,
        O.ALTER,
        O.DESCRIBE,
    },
    ResourceType.TRANSACTIONAL_ID: {O.DESCRIBE, O.WRITE},
    ResourceType.DELEGATION_TOKEN: {O.DESCRIBE},
    ResourceType.USER: {O.CREATE_TOKENS, O.DESCRIBE_TOKENS},
}


def canon(host: str) -> str:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host


def principal_matches(acl: AccessControlEntryRecord, principal: str) -> bool:
    if acl.principal == "User:*":
        return True
    if acl.pattern_type != PatternType.GLOB:
        return acl.principal == principal
    try:
        return compile_glob(acl.principal).matches(principal)
    except GlobSyntaxError:
        return acl.principal == principal


def host_matches(acl: AccessControlEntryRecord, host: str) -> bool:
    if acl.host == "*":
        return True
    if acl.pattern_type != PatternType.GLOB:
        return canon(acl.host) == canon(host)
    try:
        glob = compile_glob(acl.host)
    except GlobSyntaxError:
        return canon(acl.host) == canon(host)
    if glob.has_wildcards:
        return glob.matches(canon(host))
    return canon(glob.literal_prefix) == canon(host)


def operation_fits(acl: AccessControlEntryRecord, operation: AclOperation) -> bool:
    if acl.operation in (O.ALL, operation):
        return True
    if acl.permission_type != ALLOW:
        return False
    if operation == O.DESCRIBE:
        return acl.operation in (O.READ, O.WRITE, O.DELETE, O.ALTER)
    if operation == O.DESCRIBE_CONFIGS:
        return acl.operation == O.ALTER_CONFIGS
    return False


def skipped(acl: AccessControlEntryRecord, name: str) -> int:
    if acl.pattern_type == PatternType.LITERAL:
        return 0 if acl.resource_name == name else len(name)
    if acl.pattern_type == PatternType.PREFIXED:
        return len(name) - len(acl.resource_name)
    return len(name) - compile_glob(acl.resource_name).literal_count


class ReferenceAuthorizer:
    """The same questions as :class:`aclog.authorizer.Authorizer`, answered by scanning."""

    def __init__(
        self, super_users: Iterable[str] = (), allow_everyone_if_no_acl_found: bool = False
    ) -> None:
        self.super_users = frozenset(super_users)
        self.allow_everyone = allow_everyone_if_no_acl_found
        self.stored: list[AccessControlEntryRecord] = []
        self.ready = False

    def load(self, acls: Iterable[AccessControlEntryRecord]) -> None:
        self.stored = list(acls)
        self.ready = True

    def complete_initial_load(self) -> None:
        self.ready = True

    def _gate(self, principal: str) -> bool:
        """True for a super user; raises when not ready."""
        if principal in self.super_users:
            return True
        if not self.ready:
            raise AuthorizerNotReadyError("not ready")
        return False

    def on_resource(self, resource_type: ResourceType, name: str) -> list[AccessControlEntryRecord]:
        return [
            a
            for a in self.stored
            if a.resource_type == resource_type
            and pattern_applies(a.pattern_type, a.resource_name, name)
        ]

    def matching(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> list[AccessControlEntryRecord]:
        found = [
            a
            for a in self.on_resource(resource_type, name)
            if principal_matches(a, principal)
            and host_matches(a, host)
            and operation_fits(a, operation)
        ]
        found.sort(key=lambda a: (skipped(a, name), a.pattern_type, a.permission_type, a.id.int))
        return found

    def authorize(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> Decision:
        return self.explain(principal, host, operation, resource_type, name).decision

    def explain(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> Explanation:
        if self._gate(principal):
            return Explanation(Decision.ALLOWED, "super user")
        found = self.matching(principal, host, operation, resource_type, name)
        denies = [a for a in found if a.permission_type == DENY]
        allows = [a for a in found if a.permission_type == ALLOW]
        if denies:
            return Explanation(Decision.DENIED, "deny", denies[0], found)
        if allows:
            return Explanation(Decision.ALLOWED, "allow", allows[0], found)
        if not self.on_resource(resource_type, name) and self.allow_everyone:
            return Explanation(Decision.ALLOWED, "default")
        return Explanation(Decision.DENIED, "no allow")

    def authorized_operations(
        self, principal: str, host: str, resource_type: ResourceType, name: str
    ) -> frozenset[AclOperation]:
        return frozenset(
            op
            for op in SUPPORTED.get(resource_type, set())
            if self.authorize(principal, host, op, resource_type, name) == Decision.ALLOWED
        )

    def acls(self, acl_filter: AclFilter) -> list[AccessControlEntryRecord]:
        return [a for a in self.stored if acl_filter.matches(a)]

    def kafka_authorize_by_resource_type(
        self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> Decision:
        """Kafka's default ``authorizeByResourceType`` (spec §8), for LITERAL/PREFIXED sets."""
        hardcode = self.authorize(principal, host, operation, resource_type, "hardcode")
        if hardcode == Decision.ALLOWED:
            return Decision.ALLOWED
        kept = [
            a
            for a in self.stored
            if a.resource_type == resource_type
            and host_matches(a, host)
            and principal_matches(a, principal)
            and a.operation in (operation, O.ALL)
        ]
        wildcard = [
            a for a in kept if a.pattern_type == PatternType.LITERAL and a.resource_name == "*"
        ]
        if any(a.permission_type == DENY for a in wildcard):
            return Decision.DENIED
        if any(a.permission_type == ALLOW for a in wildcard):
            return Decision.ALLOWED
        deny_literal = {
            a.resource_name
            for a in kept
            if a.permission_type == DENY and a.pattern_type == PatternType.LITERAL
        }
        deny_prefixed = [
            a.resource_name
            for a in kept
            if a.permission_type == DENY and a.pattern_type == PatternType.PREFIXED
        ]
        for allow in (a for a in kept if a.permission_type == ALLOW):
            if allow.pattern_type == PatternType.LITERAL and allow.resource_name in deny_literal:
                continue
            if any(p and allow.resource_name.startswith(p) for p in deny_prefixed):
                continue
            return Decision.ALLOWED
        return Decision.DENIED
