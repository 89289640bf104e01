"""ACL sets and requests for the authorizer benchmarks, each generated from a fixed seed.

- :func:`kafka_workload` (W1): Kafka's ``AuthorizerBenchmark`` generator, ported exactly
  (``reference/benchmarks.md`` §1.1), with its ``testAuthorizer`` and
  ``testAuthorizeByResourceType`` requests plus a mix of "hit" requests.
- :func:`tenant_workload` (W2, §7.3): a multi-tenant cluster with Zipf(1.1)-distributed
  requests, optionally with 1 % GLOB patterns.
- :func:`adversarial_workload` (W3, §7.3, after Redpanda's ``authorizer_bench.cc``):
  same-first-letter prefix noise, 8 nested matching prefixes, DENY at the front, middle and back
  of the path, 1,000 principals on one prefix, literal grants and a wildcard-only grant.
- :func:`glob_workload` (W4): GLOB stress with leading ``*``, middle ``*``, ``?``-heavy and
  ``*a*a*a*b``-style patterns against names of a chosen length.
- :func:`tenancy_log` (the pipeline's ``access`` and ``orphans`` data): the overlapping tenants,
  teams, prefixes and users of :mod:`aclog.sample.tenants`, committed to a data directory.
- :func:`update_pool` (W5, §1.2): ``StandardAuthorizerUpdateBenchmark``'s pool of 10,000 LITERAL
  resources x 255 ACLs, generated lazily.

A request is the tuple ``(principal, host, operation, resource type, name)`` that
``authorize`` takes.
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord
from aclog.sample import Tenancy, tenancy, write_tenancy

O = AclOperation  # noqa: E741
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
LITERAL, PREFIXED, GLOB = PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY

Request = tuple[str, str, AclOperation, ResourceType, str]
ByTypeRequest = tuple[str, str, AclOperation, ResourceType]


class _Ids:
    """Random ACL ids from their own seeded stream (so ids never shift the workload draws)."""

    def __init__(self, seed: int) -> None:
        self._bits = random.Random(seed ^ 0x5EED).getrandbits

    def __call__(self) -> uuid.UUID:
        return uuid.UUID(int=self._bits(128))


def _acl(
    new_id: _Ids,
    rtype: ResourceType,
    name: str,
    pattern: PatternType,
    principal: str,
    host: str,
    operation: AclOperation,
    permission: AclPermissionType = ALLOW,
) -> AccessControlEntryRecord:
    return AccessControlEntryRecord(
        new_id(), rtype, name, pattern, principal, host, operation, permission
    )


# -- W1: Kafka's AuthorizerBenchmark -----------------------------------------------------------

KAFKA_PREFIX = "foo-bar35_resource-"
TEST_USER = "User:test-user"
BY_TYPE_HOST = "127.0.0.2"


@dataclass
class KafkaWorkload:
    """The ACLs and requests of one ``AuthorizerBenchmark`` parameter set."""

    resources: int
    acl_count: int
    deny_percentage: float
    host_count: int
    acls: list[AccessControlEntryRecord]
    test_authorizer: Request
    by_type: ByTypeRequest
    hits: list[Request]
    predicted_examined: int
    """ACLs Kafka's scan steps over for ``test_authorizer`` (exact for this ACL set)."""


def kafka_workload(
    resources: int,
    acl_count: int = 10,
    deny_percentage: float = 0.0,
    host_count: int = 10,
    seed: int = 18293,
    fix_host_bug: bool = False,
    hit_count: int = 2000,
) -> KafkaWorkload:
    """``AuthorizerBenchmark.prepareAclCache`` with ``R``=``resources``, ``A``=``acl_count``,
    ``d``=``deny_percentage`` and ``H``=``host_count`` (KAFKA-17729: 10), from a fixed seed
    (Kafka seeds with the clock). ``fix_host_bug`` writes the wildcard ACLs' hosts as
    ``127.0.0.<i>`` instead of Kafka's ``127.0.0<i>`` (§1.1 item 4)."""
    rng = random.Random(seed)
    new_id = _Ids(seed)
    acls: list[AccessControlEntryRecord] = []

    def should_deny() -> bool:
        return rng.random() * 100.0 - 1e-9 < deny_percentage

    def allow_and_maybe_deny(
        rtype: ResourceType, name: str, pattern: PatternType, principal: str, host: str
    ) -> None:
        acls.append(_acl(new_id, rtype, name, pattern, principal, host, O.READ))
        if should_deny():
            acls.append(_acl(new_id, rtype, name, pattern, principal, host, O.READ, DENY))

    principals = [TEST_USER + ("" if a == 0 else str(a)) for a in range(acl_count)]
    for resource_id in range(resources):
        rtype = GROUP if resource_id % 10 == 0 else TOPIC
        pattern = PREFIXED if resource_id % 5 == 0 else LITERAL
        name = KAFKA_PREFIX + str(resource_id)
        for principal in principals:
            allow_and_maybe_deny(rtype, name, pattern, principal, "*")
    prefix_acls = len(acls)
    for host_id in range(host_count):
        allow_and_maybe_deny(TOPIC, KAFKA_PREFIX, PREFIXED, TEST_USER, f"127.0.0.{host_id}")
    prefix_acls = len(acls) - prefix_acls
    wildcard_acls = len(acls)
    for host_id in range(resources // 10):
        host = f"127.0.0.{host_id}" if fix_host_bug else f"127.0.0{host_id}"
        if host == BY_TYPE_HOST:
            continue  # never true with Kafka's host text: the quirk of §1.1 item 4
        allow_and_maybe_deny(TOPIC, "*", LITERAL, TEST_USER, host)
    wildcard_acls = len(acls) - wildcard_acls

    test_authorizer: Request = (TEST_USER, "127.0.0.1", O.WRITE, TOPIC, KAFKA_PREFIX + "95")
    predicted = 0
    if resources > 95:
        on_95 = sum(1 for a in acls if a.resource_name == KAFKA_PREFIX + "95")
        on_9 = sum(1 for a in acls if a.resource_name == KAFKA_PREFIX + "9")
        # Both passes walk "*"; pass 1 also walks "...-95" and the H prefix ACLs and skips the
        # LITERAL "...-9" ACLs one by one; plus the first ACL of each of the two sections it
        # jumps away from (to "...-9", then to "...-") and one per pass at the type boundary.
        predicted = on_95 + on_9 + prefix_acls + 2 * wildcard_acls + 4
    work = KafkaWorkload(
        resources,
        acl_count,
        deny_percentage,
        host_count,
        acls,
        test_authorizer,
        (TEST_USER, BY_TYPE_HOST, O.READ, TOPIC),
        _kafka_hits(resources, acl_count, host_count, seed, hit_count),
        predicted,
    )
    return work


def _kafka_hits(
    resources: int, acl_count: int, host_count: int, seed: int, count: int
) -> list[Request]:
    """Requests that hit the W1 ACL set in different ways (design §7.3 W1 (d))."""
    rng = random.Random(seed + 1)
    topics = [i for i in range(resources) if i % 10]
    groups = [i for i in range(resources) if i % 10 == 0] or [0]
    prefixed_topics = [i for i in topics if i % 5 == 0] or topics

    def principal() -> str:
        a = rng.randrange(acl_count)
        return TEST_USER + ("" if a == 0 else str(a))

    def client() -> str:
        return f"10.0.{rng.randrange(4)}.{rng.randrange(256)}"

    out: list[Request] = []
    while len(out) < count:
        roll = rng.random()
        if roll < 0.35:  # READ on a topic's own ACLs: ALLOW, or DENY where a DENY was drawn
            out.append(
                (principal(), client(), O.READ, TOPIC, f"{KAFKA_PREFIX}{rng.choice(topics)}")
            )
        elif roll < 0.45:  # DESCRIBE, implied by READ
            out.append(
                (principal(), client(), O.DESCRIBE, TOPIC, f"{KAFKA_PREFIX}{rng.choice(topics)}")
            )
        elif roll < 0.55:  # a group under a PREFIXED group pattern
            name = f"{KAFKA_PREFIX}{rng.choice(groups)}-consumer"
            out.append((principal(), client(), O.READ, GROUP, name))
        elif roll < 0.65:  # a name under a PREFIXED topic pattern (and maybe a LITERAL one)
            name = f"{KAFKA_PREFIX}{rng.choice(prefixed_topics)}{rng.randrange(10)}"
            out.append((principal(), client(), O.READ, TOPIC, name))
        elif roll < 0.75:  # the H host-specific ACLs on PREFIXED "foo-bar35_resource-"
            host = f"127.0.0.{rng.randrange(host_count)}"
            out.append((TEST_USER, host, O.READ, TOPIC, f"{KAFKA_PREFIX}x{rng.randrange(10**6)}"))
        elif roll < 0.85:  # unknown names: TOPIC still has the "*" ACLs, GROUP has none
            rtype = rng.choice((TOPIC, GROUP))
            out.append((principal(), client(), O.READ, rtype, f"unknown-{rng.randrange(10**6)}"))
        else:  # operations nobody is granted
            op = rng.choice((O.WRITE, O.CREATE, O.DELETE, O.ALTER, O.DESCRIBE_CONFIGS))
            out.append((principal(), client(), op, TOPIC, f"{KAFKA_PREFIX}{rng.choice(topics)}"))
    return out


# -- W2: multi-tenant -------------------------------------------------------------------------


@dataclass
class TenantWorkload:
    """A multi-tenant ACL set, Zipf requests and one principal's metadata request."""

    acls: list[AccessControlEntryRecord]
    requests: list[Request]
    topics: list[str] = field(repr=False)
    metadata_principal: str = ""


def tenant_workload(
    target: int, seed: int = 1042, globs: bool = False, request_count: int = 5000
) -> TenantWorkload:
    """About ``target`` ACLs over tenants ``tNNNNN.``; each tenant has 2-5 principals with
    PREFIXED topic (READ, WRITE, DESCRIBE) and group (READ) ACLs on the tenant prefix, and 5-50
    LITERAL cross-tenant grants, 0.5 % of them DENYs; with ``globs`` 1 % of the grants are GLOB
    patterns (``tNNNNN.*.dlq``, ``t*.audit.a?``); two admins hold LITERAL ``*`` DESCRIBE ACLs.

    Requests: topics are drawn by Zipf(1.1) over a fixed popularity ranking; 40 % WRITE, 40 %
    READ, 15 % DESCRIBE, 5 % other operations; mostly a principal of the topic's tenant, 8 % the
    principal and operation of a DENY, 2 % unknown topics."""
    rng = random.Random(seed)
    new_id = _Ids(seed)
    acls: list[AccessControlEntryRecord] = []
    tenants = max(1, target // 42)
    width = max(5, len(str(tenants)))
    tenant_principals: list[list[str]] = []
    tenant_topics: list[list[str]] = []
    for t in range(tenants):
        prefix = f"t{t:0{width}d}."
        principals = [f"User:{prefix}svc{j}" for j in range(rng.randint(2, 5))]
        tenant_principals.append(principals)
        tenant_topics.append([f"{prefix}topic-{k}" for k in range(rng.randint(5, 20))])
        for principal in principals:
            for op in (O.READ, O.WRITE, O.DESCRIBE):
                acls.append(_acl(new_id, TOPIC, prefix, PREFIXED, principal, "*", op))
            acls.append(_acl(new_id, GROUP, prefix, PREFIXED, principal, "*", O.READ))
    denies: list[AccessControlEntryRecord] = []
    seen: set[tuple[str, str, AclOperation, AclPermissionType]] = set()

    def fresh(name: str, principal: str, op: AclOperation, permission: AclPermissionType) -> bool:
        """False for a grant already made (the controller would not store it twice)."""
        key = (name, principal, op, permission)
        if key in seen:
            return False
        seen.add(key)
        return True

    while len(acls) < target - 4:
        t = rng.randrange(tenants)
        other = rng.randrange(tenants)
        principal = rng.choice(tenant_principals[t])
        roll = rng.random()
        if globs and roll < 0.01:
            if rng.random() < 0.7:
                pattern = f"t{other:0{width}d}.*.dlq"
            else:
                pattern = f"t*.audit.{rng.choice('ab')}?"
            if fresh(pattern, principal, O.READ, ALLOW):
                acls.append(_acl(new_id, TOPIC, pattern, GLOB, principal, "*", O.READ))
        elif roll < 0.015:
            topic = rng.choice(tenant_topics[other])
            if fresh(topic, principal, O.WRITE, DENY):
                deny = _acl(new_id, TOPIC, topic, LITERAL, principal, "*", O.WRITE, DENY)
                acls.append(deny)
                denies.append(deny)
        else:
            topic = rng.choice(tenant_topics[other])
            op = rng.choice((O.READ, O.DESCRIBE, O.WRITE))
            if fresh(topic, principal, op, ALLOW):
                acls.append(_acl(new_id, TOPIC, topic, LITERAL, principal, "*", op))
    for admin in ("User:admin-ops", "User:monitor"):
        acls.append(_acl(new_id, TOPIC, "*", LITERAL, admin, "*", O.DESCRIBE))
        acls.append(_acl(new_id, GROUP, "*", LITERAL, admin, "*", O.DESCRIBE))

    topics = [(t, name) for t, names in enumerate(tenant_topics) for name in names]
    rng.shuffle(topics)  # the popularity ranking
    requests = _zipf_requests(rng, topics, tenant_principals, denies, request_count)
    return TenantWorkload(acls, requests, [name for _, name in topics], tenant_principals[0][0])


def _zipf_requests(
    rng: random.Random,
    topics: list[tuple[int, str]],
    tenant_principals: list[list[str]],
    denies: list[AccessControlEntryRecord],
    count: int,
) -> list[Request]:
    weights = list(itertools.accumulate(1.0 / (rank + 1) ** 1.1 for rank in range(len(topics))))
    requests: list[Request] = []
    others = (O.CREATE, O.DELETE, O.ALTER, O.DESCRIBE_CONFIGS)
    for _ in range(count):
        roll = rng.random()
        if roll < 0.02:
            name = f"z-unknown-{rng.randrange(10**6)}"
            requests.append(("User:nobody", "10.1.0.1", O.DESCRIBE, TOPIC, name))
            continue
        if roll < 0.10 and denies:
            deny = rng.choice(denies)
            requests.append((deny.principal, "10.1.0.1", O.WRITE, TOPIC, deny.resource_name))
            continue
        ((t, topic),) = rng.choices(topics, cum_weights=weights)
        op_roll = rng.random()
        if op_roll < 0.40:
            op = O.WRITE
        elif op_roll < 0.80:
            op = O.READ
        elif op_roll < 0.95:
            op = O.DESCRIBE
        else:
            op = rng.choice(others)
        requests.append((rng.choice(tenant_principals[t]), "10.1.0.1", op, TOPIC, topic))
    return requests


# -- W3: adversarial prefixes -----------------------------------------------------------------

TARGET_TOPIC = "tz-some-workload-topic"
NESTED = (1, 3, 5, 8, 11, 14, 17, 20)
"""Lengths of the 8 nested PREFIXED patterns over :data:`TARGET_TOPIC`."""


@dataclass
class AdversarialWorkload:
    acls: list[AccessControlEntryRecord]
    cases: dict[str, Request]


def adversarial_workload(target: int, seed: int = 30816) -> AdversarialWorkload:
    """About ``target`` ACLs: a fixed part (8 nested prefixes of :data:`TARGET_TOPIC` with
    ALLOWs, DENYs at the front, middle and back of that path, 1,000 principals on one prefix,
    ``min(10240, target // 4)`` LITERAL grants, one wildcard grant) plus PREFIXED noise whose
    names start with ``t`` like the target but do not prefix it."""
    rng = random.Random(seed)
    new_id = _Ids(seed)
    acls: list[AccessControlEntryRecord] = []
    for length in NESTED:
        prefix = TARGET_TOPIC[:length]
        for who in ("nested", "deny-front", "deny-middle", "deny-back"):
            acls.append(_acl(new_id, TOPIC, prefix, PREFIXED, f"User:{who}", "*", O.READ))
    acls.append(_acl(new_id, TOPIC, "t", PREFIXED, "User:deny-front", "*", O.READ, DENY))
    acls.append(_acl(new_id, TOPIC, "tz-some-", PREFIXED, "User:deny-middle", "*", O.READ, DENY))
    acls.append(_acl(new_id, TOPIC, TARGET_TOPIC, LITERAL, "User:deny-back", "*", O.READ, DENY))
    for i in range(1000):
        acls.append(_acl(new_id, TOPIC, "tz-some-w", PREFIXED, f"User:crowd-{i}", "*", O.READ))
    literals = min(10240, target // 4)
    for i in range(literals):
        acls.append(_acl(new_id, TOPIC, f"tz-lit-{i}", LITERAL, "User:lit", "*", O.WRITE))
    acls.append(_acl(new_id, TOPIC, "*", LITERAL, "User:wild", "*", O.DESCRIBE))
    letters = "abcdefghijklmnopqrstuvwxy"  # never "z": noise names never prefix the target
    noise: set[tuple[str, str]] = set()
    while len(acls) < target:
        name = "t" + "".join(rng.choices(letters, k=rng.randint(3, 12)))
        principal = f"User:noise-{rng.randrange(500)}"
        if (name, principal) not in noise:  # no identical ACLs (Kafka stores each once)
            noise.add((name, principal))
            acls.append(_acl(new_id, TOPIC, name, PREFIXED, principal, "*", O.READ))
    host = "10.2.0.1"
    cases: dict[str, Request] = {
        "nested allow": ("User:nested", host, O.READ, TOPIC, TARGET_TOPIC),
        "deny front": ("User:deny-front", host, O.READ, TOPIC, TARGET_TOPIC),
        "deny middle": ("User:deny-middle", host, O.READ, TOPIC, TARGET_TOPIC),
        "deny back": ("User:deny-back", host, O.READ, TOPIC, TARGET_TOPIC),
        "crowd hit": ("User:crowd-999", host, O.READ, TOPIC, TARGET_TOPIC),
        "crowd miss": ("User:crowd-x", host, O.READ, TOPIC, TARGET_TOPIC),
        "literal hit": ("User:lit", host, O.WRITE, TOPIC, f"tz-lit-{max(0, literals // 2)}"),
        "wildcard only": ("User:wild", host, O.DESCRIBE, TOPIC, "x-unmatched-topic"),
        "noise miss": ("User:noise-1", host, O.READ, TOPIC, "tq-" + "q" * 12),
    }
    return AdversarialWorkload(acls, cases)


# -- W4: GLOB stress --------------------------------------------------------------------------

GLOB_KINDS = ("leading *", "middle *", "?-heavy", "*a*a*a*b")


@dataclass
class GlobWorkload:
    acls: list[AccessControlEntryRecord]
    requests: list[Request]


def glob_workload(
    globs: int, name_length: int, seed: int = 1042, request_count: int = 400
) -> GlobWorkload:
    """``globs`` GLOB ACLs, a quarter of each kind of :data:`GLOB_KINDS`, and requests for names
    of exactly ``name_length`` characters: random names, runs of ``a`` (the worst case for
    ``*a*a*a*b``), and names aimed at each kind."""
    rng = random.Random(seed)
    new_id = _Ids(seed)
    acls: list[AccessControlEntryRecord] = []
    for i in range(globs):
        kind = i % 4
        if kind == 0:
            pattern = f"*-sfx{i}"
        elif kind == 1:
            pattern = f"app{i % 97}.*.ev{i}"
        elif kind == 2:
            pattern = f"q{i}.??-????-??"
        else:
            pattern = f"*a*a*a*b{i}"
        principal = f"User:g{i % 50}"
        acls.append(_acl(new_id, TOPIC, pattern, GLOB, principal, "*", O.READ))
    acls.append(_acl(new_id, TOPIC, "app", PREFIXED, "User:g0", "*", O.DESCRIBE))

    def fit(text: str) -> str:
        if len(text) >= name_length:
            return text[-name_length:]
        pad = "".join(rng.choices("bcdefgh", k=name_length - len(text)))
        return pad + text

    requests: list[Request] = []
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789.-"
    for _ in range(request_count):
        i = rng.randrange(max(1, globs))
        principal = f"User:g{i % 50}"
        roll = rng.randrange(5)
        if roll == 0:
            name = "".join(rng.choices(alphabet, k=name_length))
        elif roll == 1:
            name = "a" * name_length
        elif roll == 2:
            name = fit(f"-sfx{i - i % 4}")
        elif roll == 3:
            j = i - i % 4 + 1
            head, tail = f"app{j % 97}.", f".ev{j}"
            middle = "m" * max(0, name_length - len(head) - len(tail))
            name = (head + middle + tail)[:name_length] if name_length >= 8 else head
        else:
            name = fit(f"aXaXaXb{i - i % 4 + 3}")
        requests.append((principal, "10.3.0.1", O.READ, TOPIC, name))
    return GlobWorkload(acls, requests)


# -- W5: StandardAuthorizerUpdateBenchmark's pool ---------------------------------------------


def update_pool(seed: int = 13437) -> Iterator[AccessControlEntryRecord]:
    """The 10,000 x 255 pool of §1.2 in order, lazily: LITERAL ``foo-bar35_resource-<i>``,
    GROUP with probability 0.2 (``nextInt(10) > 7``) else TOPIC; ACL ``j`` in 1..255 has
    principal ``User:test-user<rand(0..99)>``, host ``127.0.0.<j>``, READ, ALLOW."""
    rng = random.Random(seed)
    new_id = _Ids(seed)
    for i in range(10_000):
        rtype = GROUP if rng.randrange(10) > 7 else TOPIC
        name = KAFKA_PREFIX + str(i)
        for j in range(1, 256):
            principal = TEST_USER + str(rng.randrange(100))
            yield _acl(new_id, rtype, name, LITERAL, principal, f"127.0.0.{j}", O.READ)


def tenancy_log(directory: Path, *, quick: bool, seed: int = 2026) -> Tenancy:
    """Commit a tenancy to ``directory``: 10 tenants x 10 teams of 10 accounts with 1,000 topics
    each (quick: 4 x 5 teams of 5 accounts, 250 topics each), plus 200 later changes."""
    if quick:
        world = tenancy(seed=seed, tenants=4, teams=5, accounts=5, topics=250)
    else:
        world = tenancy(seed=seed, tenants=10, teams=10, accounts=10, topics=1_000)
    write_tenancy(directory, world, changes=200, seed=seed)
    return world
