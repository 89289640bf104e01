"""Which operations an ACL grants or denies, and which operations a resource type supports.

Kafka's rules (``reference/kafka-acl-spec.md`` §7 step 6 and §9):

- an ACL for ALL fits every requested operation, ALLOW and DENY alike;
- ALLOW ACLs also fit by implication: DESCRIBE is granted by ALLOW DESCRIBE, READ, WRITE, DELETE
  or ALTER; DESCRIBE_CONFIGS by ALLOW DESCRIBE_CONFIGS or ALTER_CONFIGS;
- DENY ACLs never imply: only the same operation or ALL denies;
- a request for ALL is granted only by an ALL ACL.

Immutable tables; thread-safe. Every lookup is one dict probe.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from aclog.records.enums import AclOperation, ResourceType

_O = AclOperation

IMPLIED_BY: Mapping[AclOperation, frozenset[AclOperation]] = MappingProxyType(
    {
        _O.DESCRIBE: frozenset({_O.DESCRIBE, _O.READ, _O.WRITE, _O.DELETE, _O.ALTER}),
        _O.DESCRIBE_CONFIGS: frozenset({_O.DESCRIBE_CONFIGS, _O.ALTER_CONFIGS}),
    }
)
"""For an implied operation, the ALLOW operations (besides ALL) that grant it."""

SUPPORTED_OPERATIONS: Mapping[ResourceType, frozenset[AclOperation]] = MappingProxyType(
    {
        ResourceType.TOPIC: frozenset(
            {
                _O.READ,
                _O.WRITE,
                _O.CREATE,
                _O.DESCRIBE,
                _O.DELETE,
                _O.ALTER,
                _O.DESCRIBE_CONFIGS,
                _O.ALTER_CONFIGS,
            }
        ),
        ResourceType.GROUP: frozenset(
            {_O.READ, _O.DESCRIBE, _O.DELETE, _O.DESCRIBE_CONFIGS, _O.ALTER_CONFIGS}
        ),
        ResourceType.CLUSTER: frozenset(
            {
                _O.CREATE,
                _O.CLUSTER_ACTION,
                _O.DESCRIBE_CONFIGS,
                _O.ALTER_CONFIGS,
                _O.IDEMPOTENT_WRITE,
                _O.ALTER,
                _O.DESCRIBE,
            }
        ),
        ResourceType.TRANSACTIONAL_ID: frozenset({_O.DESCRIBE, _O.WRITE}),
        ResourceType.DELEGATION_TOKEN: frozenset({_O.DESCRIBE}),
        ResourceType.USER: frozenset({_O.CREATE_TOKENS, _O.DESCRIBE_TOKENS}),
    }
)
"""KIP-430: the operations reported for each resource type (never ALL)."""


def _deny_ops(operation: AclOperation) -> frozenset[int]:
    return frozenset({operation, _O.ALL})


def _allow_ops(operation: AclOperation) -> frozenset[int]:
    return frozenset({operation, _O.ALL} | IMPLIED_BY.get(operation, frozenset()))


DENY_OPS: Mapping[AclOperation, frozenset[int]] = MappingProxyType(
    {op: _deny_ops(op) for op in AclOperation}
)
"""For a requested operation, the operations of the DENY ACLs that deny it."""

ALLOW_OPS: Mapping[AclOperation, frozenset[int]] = MappingProxyType(
    {op: _allow_ops(op) for op in AclOperation}
)
"""For a requested operation, the operations of the ALLOW ACLs that grant it."""


def supported_operations(resource_type: ResourceType) -> frozenset[AclOperation]:
    """The KIP-430 operations of ``resource_type``; empty for UNKNOWN."""
    return SUPPORTED_OPERATIONS.get(resource_type, frozenset())


def granted_operations(
    supported: frozenset[AclOperation],
    allowed: set[AclOperation],
    denied: set[AclOperation],
) -> frozenset[AclOperation]:
    """The operations of ``supported`` that ALLOW ACLs for ``allowed`` and DENY ACLs for
    ``denied`` (all of them matching one request) leave authorized."""
    if _O.ALL in denied:
        return frozenset()
    return frozenset(
        op for op in supported if op not in denied and not allowed.isdisjoint(ALLOW_OPS[op])
    )


def operations_bitfield(operations: Iterable[AclOperation]) -> int:
    """The KIP-430 32-bit field: bit ``1 << code`` set for each operation (Kafka's
    ``Utils.to32BitField``). READ and DESCRIBE give 264."""
    field = 0
    for op in operations:
        field |= 1 << int(op)
    return field


def operations_from_bitfield(field: int) -> frozenset[AclOperation]:
    """The operations whose bits are set in a KIP-430 field; unknown bits are ignored."""
    return frozenset(op for op in AclOperation if field & (1 << int(op)))
