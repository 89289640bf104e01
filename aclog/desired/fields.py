"""Reading the typed fields of a desired-state file (resource types, pattern types, hosts,
permissions, operations, SCRAM mechanisms) from YAML nodes, with the defaults the schema gives
(``docs/as-code.md``) and an error naming the line and the accepted values for anything else.

Not thread-safe: one reader per file. Cost: O(1) per field (O(operations) for a list).
"""

from __future__ import annotations

from yaml.nodes import Node

from aclog.desired.nodes import NodeReader
from aclog.records import (
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)

SPECIFIC_PATTERNS = ("literal", "prefixed", "glob")


class FieldReader(NodeReader):
    """A :class:`NodeReader` that also reads the schema's typed fields (``None``: an error was
    recorded; a missing optional field gets its default)."""

    def mechanism(self, node: Node) -> ScramMechanism | None:
        text = self.text(node, "mechanism")
        if text is None:
            return None
        for mechanism in (ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512):
            if text.upper().replace("_", "-") == mechanism.mechanism_name:
                return mechanism
        self.error(node, f"unknown mechanism {text!r}; use SCRAM-SHA-256 or SCRAM-SHA-512")
        return None

    def resource_type(self, node: Node) -> ResourceType | None:
        text = self.text(node, "resource_type")
        if text is None:
            return None
        try:
            value = ResourceType.parse(text)
        except ValueError:
            value = ResourceType.UNKNOWN
        if value in (ResourceType.UNKNOWN, ResourceType.ANY):
            names = ", ".join(m.name.lower() for m in ResourceType if m > ResourceType.ANY)
            self.error(node, f"unknown resource_type {text!r}; use one of: {names}")
            return None
        return value

    def pattern_type(self, node: Node | None) -> PatternType | None:
        if node is None:
            return PatternType.LITERAL
        text = self.text(node, "pattern_type")
        if text is not None and text.lower() in SPECIFIC_PATTERNS:
            return PatternType.parse(text)
        if text is not None:
            self.error(node, f"unknown pattern_type {text!r}; use literal, prefixed or glob")
        return None

    def host(self, node: Node | None) -> str | None:
        return "*" if node is None else self.text(node, "host")

    def permission(self, node: Node | None) -> AclPermissionType | None:
        if node is None:
            return AclPermissionType.ALLOW
        text = self.text(node, "permission")
        if text is not None and text.lower() in ("allow", "deny"):
            return AclPermissionType.parse(text)
        if text is not None:
            self.error(node, f"unknown permission {text!r}; use allow or deny")
        return None

    def operations(self, node: Node | None) -> list[AclOperation]:
        if node is None:
            return [AclOperation.ALL]
        found: list[AclOperation] = []
        texts = self.texts(node, "operations")
        for text in texts:
            try:
                operation = AclOperation.parse(text)
            except ValueError:
                operation = AclOperation.UNKNOWN
            if operation in (AclOperation.UNKNOWN, AclOperation.ANY):
                self.error(node, f"unknown operation {text!r}")
            elif operation not in found:
                found.append(operation)
        if not texts:
            self.error(node, "operations must name at least one operation")
        return found
