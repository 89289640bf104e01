"""Small random logs written through the real controller, for the pipeline tests.

Names, patterns, principals and hosts are drawn from small pools that collide on purpose: LITERAL,
PREFIXED and GLOB patterns that overlap on the same names, ``User:*`` and host ``*`` wildcards,
GLOB principals and hosts, DENY beside ALLOW, implied operations, and ties in specificity that
only the ACL id breaks.
"""

from __future__ import annotations

import random
from pathlib import Path

from aclog.acl.filters import AclFilter
from aclog.controller import ScramDeletion, upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller, LocalOperator
from aclog.log import SegmentedLog
from aclog.records import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    ScramMechanism,
)
from aclog.snapshot import RetentionPolicy

NAMES = ["orders", "orders.eu", "ord", "pay", "payments", "*", "a*b", "x"]
GLOBS = ["ord*", "*.eu", "*r*", "o?ders", "pay*s", "orders", "*", "a\\*b", "?"]
PRINCIPALS = ["User:alice", "User:bob", "User:*", "User:carol"]
GLOB_PRINCIPALS = ["User:a*", "User:?ob", "User:*", "User:bob"]
HOSTS = ["*", "10.0.0.1", "::1"]
GLOB_HOSTS = ["*", "10.0.*", "0:0:0:0:0:0:0:1", "10.0.0.?"]
OPERATIONS = [
    AclOperation.READ,
    AclOperation.WRITE,
    AclOperation.DESCRIBE,
    AclOperation.ALL,
    AclOperation.ALTER,
    AclOperation.ALTER_CONFIGS,
    AclOperation.DESCRIBE_CONFIGS,
]
USERS = ["alice", "bob", "dave"]
AUTHORS = [
    Caller("User:admin", "10.0.0.9", "admin-cli", "CreateAcls"),
    Caller("User:ops", "10.0.0.8", "ops-tool", "aclog acls add"),
]

REQUEST_NAMES = [*NAMES, "orders.us", "ordinary", "o1ders", "pays", "zzz", "a*b", "ab"]
REQUEST_PRINCIPALS = ["User:alice", "User:bob", "User:carol", "User:zed", "User:*", "User:a"]
REQUEST_HOSTS = ["10.0.0.1", "::1", "10.0.0.7"]


def _binding(rng: random.Random) -> AclBinding:
    pattern_type = rng.choice([PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB])
    if pattern_type == PatternType.GLOB:
        name, principal, host = (
            rng.choice(GLOBS),
            rng.choice(GLOB_PRINCIPALS),
            rng.choice(GLOB_HOSTS),
        )
    else:
        name, principal, host = rng.choice(NAMES), rng.choice(PRINCIPALS), rng.choice(HOSTS)
    if pattern_type == PatternType.PREFIXED and name == "*":
        name = "ord"
    return AclBinding(
        rng.choice([ResourceType.TOPIC, ResourceType.TOPIC, ResourceType.GROUP]),
        name,
        pattern_type,
        principal,
        host,
        rng.choice(OPERATIONS),
        rng.choice([AclPermissionType.ALLOW, AclPermissionType.ALLOW, AclPermissionType.DENY]),
    )


def mutate(controller: Controller, rng: random.Random) -> None:
    """One random request: create or delete ACLs, or change SCRAM credentials."""
    caller = rng.choice(AUTHORS)
    kind = rng.random()
    if kind < 0.6:
        controller.create_acls([_binding(rng) for _ in range(rng.randint(1, 5))], caller)
    elif kind < 0.75:
        acls = list(controller.image.acls)
        if acls:
            victim = rng.choice(acls)
            controller.delete_acls(
                [
                    AclFilter(
                        victim.resource_type,
                        victim.resource_name,
                        victim.pattern_type,
                        victim.principal,
                        victim.host,
                        victim.operation,
                        victim.permission_type,
                    )
                ],
                caller,
            )
    else:
        name = rng.choice(USERS)
        mechanism = rng.choice([ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512])
        if rng.random() < 0.7:
            upsert = upsertion_for_password(
                name, mechanism, "pw", rng.choice([4096, 8192]), salt=b"salt"
            )
            controller.alter_scram([upsert], [], caller)
        elif controller.image.scram.credential(name, mechanism) is not None:
            controller.alter_scram([], [ScramDeletion(name, mechanism)], caller)


def write_log(
    directory: Path,
    *,
    seed: int,
    steps: int,
    snapshot_at: tuple[int, ...] = (),
    prune: bool = False,
    segment_bytes: int = 2048,
    start_ms: int = 1_700_000_000_000,
) -> None:
    """A log of ``steps`` random requests, one second apart, with snapshots after the given
    steps (and the segments below them deleted when ``prune``)."""
    rng = random.Random(seed)
    clock = [start_ms / 1000]
    log = SegmentedLog(directory, segment_bytes=segment_bytes, fsync=False, clock=lambda: clock[0])
    retention = RetentionPolicy(delete_log_below_snapshot=prune)
    with Controller(
        log, authorizer=LocalOperator(), retention=retention, clock=lambda: clock[0]
    ) as controller:
        for step in range(steps):
            clock[0] += 1
            mutate(controller, rng)
            if step in snapshot_at:
                controller.snapshot()
