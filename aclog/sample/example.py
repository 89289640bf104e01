"""The short example history ``aclog demo`` (and so ``make run``) writes: a platform team grants
producer and consumer roles, a GLOB rule (KIP-1042) for regional accounting topics, a DENY, two
SCRAM users, then revokes a grant, all through the controller that every other writer uses.
"""

from __future__ import annotations

from aclog.acl import AclFilter
from aclog.controller import Caller, Controller, ScramDeletion, upsertion_for_password
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)

ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP


def _acl(
    rt: ResourceType,
    name: str,
    pattern: PatternType,
    principal: str,
    op: AclOperation,
    permission: AclPermissionType = ALLOW,
) -> AclBinding:
    return AclBinding(rt, name, pattern, principal, "*", op, permission)


def write_example_history(controller: Controller) -> None:
    """Commit the example history through ``controller``: seven grants by a platform admin
    (PREFIXED producer and consumer roles, a GLOB rule for regional accounting topics, a DENY,
    ``User:*`` on ``audit``), three SCRAM credentials for two users, then an on-call engineer
    revokes the ``audit`` grant and one of ``ledger``'s credentials.

    Not thread-safe beyond what the controller is. Cost: five committed batches.
    """
    admin = Caller("User:platform-admin", "10.0.4.17", "terraform", "CreateAcls")
    controller.create_acls(
        [
            _acl(TOPIC, "payments.", PatternType.PREFIXED, "User:payments-svc", AclOperation.WRITE),
            _acl(
                TOPIC, "payments.", PatternType.PREFIXED, "User:payments-svc", AclOperation.DESCRIBE
            ),
            _acl(TOPIC, "payments.", PatternType.PREFIXED, "User:ledger", AclOperation.READ),
            _acl(GROUP, "ledger-", PatternType.PREFIXED, "User:ledger", AclOperation.READ),
            _acl(TOPIC, "??-accounts-*", PatternType.GLOB, "User:finance-*", AclOperation.READ),
            _acl(
                TOPIC, "payments.cards", PatternType.LITERAL, "User:ledger", AclOperation.READ, DENY
            ),
            _acl(TOPIC, "audit", PatternType.LITERAL, "User:*", AclOperation.DESCRIBE),
        ],
        admin,
    )
    users = Caller("User:platform-admin", "10.0.4.17", "kafka-python", "AlterUserScramCredentials")
    controller.alter_scram(
        [
            upsertion_for_password("payments-svc", ScramMechanism.SCRAM_SHA_512, "demo-only-1"),
            upsertion_for_password("ledger", ScramMechanism.SCRAM_SHA_256, "demo-only-2"),
        ],
        [],
        users,
    )
    # Kafka lets one request touch only one mechanism per user, so the second one comes alone.
    controller.alter_scram(
        [upsertion_for_password("ledger", ScramMechanism.SCRAM_SHA_512, "demo-only-3")], [], users
    )
    revoke = Caller("User:security-oncall", "10.0.9.2", "aclog-cli", "DeleteAcls")
    controller.delete_acls([AclFilter(TOPIC, "audit", PatternType.LITERAL)], revoke)
    rotate = Caller("User:security-oncall", "10.0.9.2", "aclog-cli", "AlterUserScramCredentials")
    controller.alter_scram([], [ScramDeletion("ledger", ScramMechanism.SCRAM_SHA_256)], rotate)
