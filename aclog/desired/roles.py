"""kafka-acls' role shortcuts as ACL grants: the one definition of what ``--producer``,
``--consumer`` and ``--idempotent`` stand for (Kafka 4.0's ``AclCommand``), shared by
``aclog acls add`` (:mod:`aclog.tools.acl_roles`) and desired-state files (``roles:``).

- producer: WRITE, DESCRIBE and CREATE on each topic; WRITE and DESCRIBE on each transactional
  id; with idempotent, IDEMPOTENT_WRITE on the cluster (always the LITERAL ``kafka-cluster``).
- consumer: READ and DESCRIBE on each topic; READ on each group.

Which combinations are refused is the caller's rule (options and YAML keys differ); this module
only expands. Pure functions; thread-safe. Cost: O(resources).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aclog.controller.validation import CLUSTER_NAME
from aclog.records import AclOperation, PatternType, ResourceType

Pattern = tuple[ResourceType, str, PatternType]
Grant = tuple[Pattern, list[AclOperation]]

PRODUCER_TOPIC = [AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE]
PRODUCER_TRANSACTIONAL_ID = [AclOperation.WRITE, AclOperation.DESCRIBE]
CONSUMER_TOPIC = [AclOperation.READ, AclOperation.DESCRIBE]
CONSUMER_GROUP = [AclOperation.READ]
IDEMPOTENT: Grant = (
    (ResourceType.CLUSTER, CLUSTER_NAME, PatternType.LITERAL),
    [AclOperation.IDEMPOTENT_WRITE],
)


@dataclass(frozen=True)
class Roles:
    """Which roles to grant, on which resources (names are patterns of ``pattern``)."""

    producer: bool = False
    consumer: bool = False
    idempotent: bool = False
    topics: Sequence[str] = ()
    transactional_ids: Sequence[str] = ()
    groups: Sequence[str] = ()


def role_grants(roles: Roles, pattern: PatternType) -> list[Grant]:
    """The resource patterns the roles grant on, each with its operations, in kafka-acls
    order (producer first, then consumer)."""
    grants: list[Grant] = []
    if roles.producer:
        grants += [((ResourceType.TOPIC, t, pattern), PRODUCER_TOPIC) for t in roles.topics]
        grants += [
            ((ResourceType.TRANSACTIONAL_ID, t, pattern), PRODUCER_TRANSACTIONAL_ID)
            for t in roles.transactional_ids
        ]
        if roles.idempotent:
            grants.append(IDEMPOTENT)
    if roles.consumer:
        grants += [((ResourceType.TOPIC, t, pattern), CONSUMER_TOPIC) for t in roles.topics]
        grants += [((ResourceType.GROUP, g, pattern), CONSUMER_GROUP) for g in roles.groups]
    return grants
