"""What ``aclog quickstart`` (and so ``make run``) does against a running listener, as a stock
Kafka admin client would: kafka-python's ``KafkaAdminClient`` creates two ACLs (a PREFIXED
ALLOW and a LITERAL DENY inside it) and a SCRAM user; then two decisions are explained from the
committed log, as ``aclog explain --json`` shows them.

kafka-python, the authorizer and the replay are imported when a function runs, so importing
this (with :mod:`aclog.sample`) costs nothing. Not thread-safe: one walk-through at a time.
Cost: three admin requests; a rebuild of the log's image.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

WALKTHROUGH_USER = "ledger"
"""The SCRAM user and the principal (``User:ledger``) of the walk-through."""


def admin_walkthrough(bootstrap: str) -> tuple[int, int]:
    """Through ``bootstrap``, create the walk-through's ACLs and its SCRAM-SHA-256 user;
    (ACLs created, ACLs that failed)."""
    from kafka.admin import (  # noqa: PLC0415 - kafka-python's clients only on a run
        ACL,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        KafkaAdminClient,
        ResourcePattern,
        ScramMechanism,
        UserScramCredentialUpsertion,
    )
    from kafka.admin import ResourceType as KafkaResourceType  # noqa: PLC0415

    def acl(permission: ACLPermissionType, name: str, pattern: ACLResourcePatternType) -> ACL:
        resource = ResourcePattern(KafkaResourceType.TOPIC, name, pattern)
        return ACL(f"User:{WALKTHROUGH_USER}", "*", ACLOperation.READ, permission, resource)

    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="aclog-quickstart")
    try:
        created = admin.create_acls(
            [
                acl(ACLPermissionType.ALLOW, "payments.", ACLResourcePatternType.PREFIXED),
                acl(ACLPermissionType.DENY, "payments.cards", ACLResourcePatternType.LITERAL),
            ]
        )
        upsert = UserScramCredentialUpsertion(
            WALKTHROUGH_USER, ScramMechanism.SCRAM_SHA_256, "change-me", iterations=8192
        )
        admin.alter_user_scram_credentials([upsert])
    finally:
        admin.close()
    return len(created["succeeded"]), len(created["failed"])


def explain_walkthrough(data_dir: Path) -> list[dict[str, Any]]:
    """Two decisions from the log in ``data_dir``, each as ``aclog explain --json`` shows it,
    with its request."""
    from aclog.authorizer import Authorizer  # noqa: PLC0415 - see the module docstring
    from aclog.records import AclOperation, ResourceType, call_paused  # noqa: PLC0415
    from aclog.replay import rebuild_image  # noqa: PLC0415

    authorizer = Authorizer()
    call_paused(lambda: authorizer.load(rebuild_image(data_dir).image.acls))  # a process edge
    principal, host = f"User:{WALKTHROUGH_USER}", "10.0.0.7"
    request = {"principal": principal, "host": host, "operation": "READ"}
    return [
        {
            **request,
            "topic": topic,
            **authorizer.explain(
                principal, host, AclOperation.READ, ResourceType.TOPIC, topic
            ).to_dict(),
        }
        for topic in ("payments.eu", "payments.cards")
    ]
