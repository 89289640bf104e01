"""Loading a desired-state file (schema in ``docs/as-code.md``) into a :class:`DesiredState`.

Every problem is reported with its line: unknown keys (with the closest known one), values of
the wrong kind, ACLs the controller would refuse (the same rules:
:func:`aclog.controller.validation.creation_error`) and a CLUSTER ACL that is not LITERAL, as
``acls add`` refuses it (:func:`~aclog.controller.validation.cluster_pattern_error`), an ACL
or user declared twice, entries outside what the file ``owns``, and a ``password`` written into
the file.

Pure apart from reading the file; thread-safe. Cost: O(size of the file).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from yaml.nodes import Node, ScalarNode

from aclog.controller.validation import cluster_pattern_error, creation_error
from aclog.desired.fields import FieldReader
from aclog.desired.nodes import DesiredStateError, compose, line_of
from aclog.desired.roles import Roles, role_grants
from aclog.desired.state import DesiredState, DesiredUser, Ownership
from aclog.desired.user_entries import USER_KEYS as USER_KEYS  # noqa: PLC0414
from aclog.desired.user_entries import read_user
from aclog.records import (
    AclBinding,
    AclPermissionType,
    ScramMechanism,
)

FORMAT_VERSION = 1
TOP_KEYS = ("version", "owns", "acls", "roles", "users")
OWNS_KEYS = ("principals", "resource_prefixes")
ACL_KEYS = (
    "resource_type",
    "resource_name",
    "pattern_type",
    "principal",
    "host",
    "operations",
    "permission",
)
ROLE_KEYS = (
    "principal",
    "host",
    "pattern_type",
    "producer",
    "consumer",
    "idempotent",
    "topics",
    "transactional_ids",
    "groups",
)


def load_desired(path: Path) -> DesiredState:
    """The desired state in ``path``; :class:`DesiredStateError` lists every problem found.
    ``OSError`` if the file cannot be read.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "acls.yaml")
    ...     _ = path.write_text(
    ...         "owns: all\\n"
    ...         "acls:\\n"
    ...         "  - {resource_type: topic, resource_name: orders, principal: User:alice,\\n"
    ...         "     operations: [read]}\\n"
    ...     )
    ...     state = load_desired(path)
    ...     _ = path.write_text("owns: all\\nacls:\\n  - {resource_type: topik}\\n")
    ...     try:
    ...         load_desired(path)
    ...     except DesiredStateError as error:
    ...         problems = [message.replace(str(path), "acls.yaml") for message in error.messages]
    >>> [(acl.principal, acl.operation.name, acl.resource_name) for acl in state.acls]
    [('User:alice', 'READ', 'orders')]
    >>> for problem in problems:
    ...     print(problem.partition(";")[0])
    acls.yaml:3: an ACL needs 'resource_name', 'principal'
    acls.yaml:3: unknown resource_type 'topik'
    """
    data = path.read_bytes()
    name = str(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        message = f"{name}:{line}: not UTF-8 text; save the file as UTF-8"
        raise DesiredStateError([message]) from None
    return _Loader(name, path.parent).load(compose(name, text), hashlib.sha256(data).hexdigest())


class _Loader:
    """One pass over a file's node tree, collecting bindings, users and errors."""

    def __init__(self, name: str, base: Path) -> None:
        self.read = FieldReader(name)
        self.base = base
        self.acl_lines: dict[AclBinding, int] = {}
        self.users: dict[tuple[str, ScramMechanism], DesiredUser] = {}

    def load(self, root: Node, sha256: str) -> DesiredState:
        top = self.read.mapping(root, "the file", TOP_KEYS, required=("owns",))
        self.read.raise_errors()
        assert top is not None
        if "version" in top and self.read.integer(top["version"], "version") not in (
            None,
            FORMAT_VERSION,
        ):
            self.read.error(top["version"], f"unknown version; this aclog reads {FORMAT_VERSION}")
        owns = self._owns(top["owns"])
        for item in self.read.sequence(top.get("acls", _NULL), "acls"):
            self._acl(item)
        for item in self.read.sequence(top.get("roles", _NULL), "roles"):
            self._role(item)
        for item in self.read.sequence(top.get("users", _NULL), "users"):
            read_user(self.read, self.base, item, self.users)
        self._check_owned(owns, top["owns"])
        self.read.raise_errors()
        return DesiredState(
            self.read.path,
            sha256,
            owns,
            tuple(self.acl_lines),
            tuple(self.users.values()),
            dict(self.acl_lines),
        )

    def _owns(self, node: Node) -> Ownership:
        if isinstance(node, ScalarNode) and node.value == "all":
            return Ownership(everything=True)
        values = self.read.mapping(node, "owns (or owns: all)", OWNS_KEYS)
        if values is None:
            return Ownership()
        principals = self.read.texts(values.get("principals", _NULL), "owns.principals")
        prefixes = self.read.texts(values.get("resource_prefixes", _NULL), "owns.resource_prefixes")
        if not principals and not prefixes:
            self.read.error(node, "owns needs principals or resource_prefixes (or owns: all)")
        return Ownership(False, frozenset(principals), tuple(prefixes))

    def _check_owned(self, owns: Ownership, node: Node) -> None:
        where = f"what the file owns (line {line_of(node)})"
        outside = {
            (line, binding.principal, binding.resource_name): None
            for binding, line in self.acl_lines.items()
            if not owns.owns_acl(binding)
        }
        for line, principal, name in outside:  # once per entry, not once per operation
            self.read.errors.append(
                f"{self.read.path}:{line}: the ACL for {principal} on {name!r} is outside "
                f"{where}; add its principal or a prefix of its resource name to owns"
            )
        for user in self.users.values():
            if not owns.owns_user(user.name):
                self.read.errors.append(
                    f"{self.read.path}:{user.line}: user {user.name!r} is outside {where}; add "
                    f"User:{user.name} to owns.principals"
                )

    def _acl(self, node: Node) -> None:
        required = ("resource_type", "resource_name", "principal")
        values = self.read.mapping(node, "an ACL", ACL_KEYS, required=required)
        if values is None:
            return
        # Every field that is there is checked, even when another is missing or unknown, so one
        # run names every problem of the entry.
        given = [values.get(key) for key in required]
        resource_type = None if given[0] is None else self.read.resource_type(given[0])
        name = None if given[1] is None else self.read.text(given[1], "resource_name")
        pattern = self.read.pattern_type(values.get("pattern_type"))
        principal = None if given[2] is None else self.read.text(given[2], "principal")
        host = self.read.host(values.get("host"))
        permission = self.read.permission(values.get("permission"))
        operations = self.read.operations(values.get("operations"))
        if (
            resource_type is None
            or name is None
            or pattern is None
            or principal is None
            or host is None
            or permission is None
        ):
            return
        for operation in operations:
            self._add(
                AclBinding(resource_type, name, pattern, principal, host, operation, permission),
                node,
            )

    def _role(self, node: Node) -> None:
        values = self.read.mapping(node, "a role", ROLE_KEYS, required=("principal",))
        if values is None or "principal" not in values:
            return
        principal = self.read.text(values["principal"], "principal")
        host = self.read.host(values.get("host"))
        pattern = self.read.pattern_type(values.get("pattern_type"))
        roles = self._roles(node, values)
        if principal is None or host is None or pattern is None or roles is None:
            return
        seen: set[AclBinding] = set()
        allow = AclPermissionType.ALLOW
        for (resource_type, name, pattern_type), operations in role_grants(roles, pattern):
            for operation in operations:
                binding = AclBinding(
                    resource_type, name, pattern_type, principal, host, operation, allow
                )
                if binding not in seen:  # producer and consumer both grant DESCRIBE on a topic
                    seen.add(binding)
                    self._add(binding, node)

    def _roles(self, node: Node, values: dict[str, Node]) -> Roles | None:
        def flag(key: str) -> bool:
            return key in values and self.read.flag(values[key], key)

        roles = Roles(
            producer=flag("producer"),
            consumer=flag("consumer"),
            idempotent=flag("idempotent"),
            topics=self.read.texts(values.get("topics", _NULL), "topics"),
            transactional_ids=self.read.texts(
                values.get("transactional_ids", _NULL), "transactional_ids"
            ),
            groups=self.read.texts(values.get("groups", _NULL), "groups"),
        )
        problem = _role_problem(roles)
        if problem is not None:
            self.read.error(node, problem)
            return None
        return roles

    def _add(self, binding: AclBinding, node: Node) -> None:
        line = line_of(node)
        error = creation_error(binding)
        cluster_problem = cluster_pattern_error(binding.resource_type, binding.pattern_type)
        if error is not None:
            self.read.error(node, f"invalid ACL: {error.message}")
        elif cluster_problem is not None:
            self.read.error(
                node,
                f"invalid ACL: pattern_type {binding.pattern_type.name.lower()} on the cluster: "
                f"{cluster_problem}; write pattern_type: literal (or leave it out)",
            )
        elif binding in self.acl_lines:
            # Reported on the later line, whichever section (acls, roles) came first.
            first, second = sorted((self.acl_lines[binding], line))
            self.read.errors.append(
                f"{self.read.path}:{second}: the ACL {binding.operation.name} "
                f"{binding.permission_type.name} for {binding.principal} on "
                f"{binding.resource_type.name} {binding.resource_name!r} is already declared at "
                f"line {first}"
            )
            self.acl_lines[binding] = first
        else:
            self.acl_lines[binding] = line


_NULL = ScalarNode("tag:yaml.org,2002:null", "")


def _role_problem(roles: Roles) -> str | None:
    """kafka-acls' refusals, in YAML terms."""
    if not roles.producer and not roles.consumer:
        return "a role needs producer: true or consumer: true"
    if roles.idempotent and not roles.producer:
        return "idempotent is only available with producer: true"
    if not roles.topics:
        return "a role needs at least one topic"
    if roles.consumer and not roles.groups:
        return "consumer: true needs at least one group"
    if roles.groups and not roles.consumer:
        return "groups need consumer: true (only the consumer role grants on groups)"
    if roles.transactional_ids and not roles.producer:
        return "transactional_ids need producer: true"
    return None
