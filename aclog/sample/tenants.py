"""Realistic, overlapping sample data: tenants with teams, each team with a topic and group prefix
and service accounts, people, SCRAM users, and a history of ACL and credential changes made by
different authors, committed through the real :class:`Controller`.

The names overlap on purpose, as they do on a real cluster: every team's accounts hold PREFIXED
grants on the team's prefix (so one ACL decides thousands of topics); GLOB principals and
patterns cover a whole tenant; ``User:*`` reads the ``public.`` topics and LITERAL ``*`` lets the
monitor describe every topic; DENYs take the ``pii`` topics out of the team grants and every
write from one quarantined host; LITERAL grants repeat a team grant (redundant ACLs); people read
other teams' topics; a tenth of the accounts have no SCRAM credential (their ACLs are orphans),
some legacy users have a credential and no ACL, and a quarter of the credentials use 4096
iterations. Later changes grant and revoke, add and lift DENYs and rotate credentials, each by
one of several authors.

Seeded: the same arguments give the same requests (ACL ids are the controller's own). Pure
until :func:`write_tenancy`, which owns the directory while it writes. Cost: O(ACLs + changes)
requests; no PBKDF2 (the client-side salted password is drawn, as a client would send it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from aclog.acl import AclFilter
from aclog.controller import Caller, Controller, LocalOperator, ScramDeletion, ScramUpsertion
from aclog.log import SegmentedLog
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records import ScramMechanism as Mech
from aclog.snapshot import RetentionPolicy

ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
LITERAL, PREFIXED, GLOB = PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB
READ, WRITE, DESCRIBE = AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE
TENANT_NAMES = ("acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell")
TEAM_NAMES = ("payments", "orders", "search", "billing", "fraud", "ads", "media", "risk")
PEOPLE = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")
DATASETS = ("events", "cdc", "pii", "metrics", "audit")
MONITOR = "User:monitor"
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


@dataclass(frozen=True)
class Team:
    """One team of a tenant: its topic and group prefix and its service accounts (user names)."""

    tenant: str
    name: str
    accounts: tuple[str, ...]

    @property
    def prefix(self) -> str:
        return f"{self.tenant}.{self.name}."


@dataclass(frozen=True)
class Tenancy:
    """The world: teams, people, every topic and group name (an inventory), the SCRAM users
    (``users``; a credential each at first) and the principals an inventory asks about."""

    teams: tuple[Team, ...]
    people: tuple[str, ...]
    topics: tuple[str, ...]
    groups: tuple[str, ...]
    users: tuple[str, ...]
    principals: tuple[str, ...]
    authors: tuple[Caller, ...] = field(repr=False)


@dataclass(frozen=True)
class Request:
    """One request to the controller: ACLs to create or delete, or credentials to change."""

    caller: Caller
    create: tuple[AclBinding, ...] = ()
    delete: tuple[AclBinding, ...] = ()
    upsert: tuple[ScramUpsertion, ...] = ()
    remove: tuple[ScramDeletion, ...] = ()


def tenancy(
    *, tenants: int = 3, teams: int = 3, accounts: int = 3, topics: int = 6, seed: int = 0
) -> Tenancy:
    """``tenants`` x ``teams`` teams of ``accounts`` service accounts and ``topics`` topics
    each (names cycle through the stock lists with a number once they run out).
    ``ValueError`` unless every count is at least 1."""
    if min(tenants, teams, accounts, topics) < 1:
        raise ValueError("tenants, teams, accounts and topics must each be at least 1")
    rng = random.Random(seed)
    made: list[Team] = []
    for t in range(tenants):
        tenant = _name(TENANT_NAMES, t)
        for m in range(teams):
            team = _name(TEAM_NAMES, m)
            made.append(
                Team(tenant, team, tuple(f"svc-{tenant}-{team}-{a}" for a in range(accounts)))
            )
    people = tuple(
        f"{_name(PEOPLE, p)}.{_name(TENANT_NAMES, p % tenants)}" for p in range(len(made))
    )
    names = [f"{team.prefix}{_name(DATASETS, d)}-{d:04d}" for team in made for d in range(topics)]
    names += [f"public.status-{i}" for i in range(max(1, topics // 3))]
    groups = [f"{team.prefix}app-{a}" for team in made for a in range(accounts)]
    legacy = [f"legacy-{_name(TENANT_NAMES, t)}" for t in range(tenants)]
    accounts_all = [a for team in made for a in team.accounts]
    users = [a for a in accounts_all if rng.random() >= 0.1] + list(people) + legacy
    authors = (
        Caller("User:platform", "10.0.0.10", "terraform", "CreateAcls"),
        *(
            Caller(
                f"User:admin-{_name(TENANT_NAMES, t)}", f"10.1.{t}.5", "kafka-acls", "CreateAcls"
            )
            for t in range(tenants)
        ),
        Caller("User:security", "10.0.0.20", "aclog", "aclog acls add"),
    )
    principals = [f"User:{a}" for a in accounts_all + list(people)] + [MONITOR, "User:intruder"]
    return Tenancy(
        tuple(made), people, tuple(names), tuple(groups), tuple(users), tuple(principals), authors
    )


def _name(stock: tuple[str, ...], i: int) -> str:
    return stock[i] if i < len(stock) else f"{stock[i % len(stock)]}{i // len(stock)}"


def _acl(
    rt: ResourceType,
    name: str,
    pattern: PatternType,
    who: str,
    op: AclOperation,
    permission: AclPermissionType = ALLOW,
    host: str = "*",
) -> AclBinding:
    return AclBinding(rt, name, pattern, who, host, op, permission)


def setup_requests(world: Tenancy, seed: int = 0) -> Iterator[Request]:
    """The first grants, team by team, then each tenant's and the platform's rules, then the
    SCRAM users."""
    rng = random.Random(seed)
    platform, security = world.authors[0], world.authors[-1]
    tenants = sorted({team.tenant for team in world.teams})
    for team in world.teams:
        admin = world.authors[1 + tenants.index(team.tenant)]
        grants = []
        for account in team.accounts:
            who = f"User:{account}"
            grants += [_acl(TOPIC, team.prefix, PREFIXED, who, op) for op in (READ, WRITE)]
            grants.append(_acl(GROUP, team.prefix, PREFIXED, who, READ))
        first = f"User:{team.accounts[0]}"
        # Redundant: the team's PREFIXED grant already allows it.
        grants.append(_acl(TOPIC, _first_topic(world, team), LITERAL, first, READ))
        yield Request(admin, tuple(grants))
    for index, tenant in enumerate(tenants):
        rules = (
            _acl(TOPIC, f"{tenant}.*", GLOB, f"User:svc-{tenant}-*", DESCRIBE),
            _acl(TOPIC, f"{tenant}.*.pii-*", GLOB, "User:*", READ, DENY),
            _acl(TOPIC, f"{tenant}.", PREFIXED, "User:*", WRITE, DENY, host="10.66.6.6"),
        )
        yield Request(world.authors[1 + index], rules)
    yield Request(
        platform,
        (
            _acl(TOPIC, "public.", PREFIXED, "User:*", READ),
            _acl(TOPIC, "*", LITERAL, MONITOR, DESCRIBE),
            _acl(GROUP, "*", LITERAL, MONITOR, DESCRIBE),
        ),
    )
    for person in world.people:
        picks = rng.sample(world.topics, k=min(3, len(world.topics)))
        yield Request(
            security, tuple(_acl(TOPIC, t, LITERAL, f"User:{person}", READ) for t in picks)
        )
    for start in range(0, len(world.users), 50):
        yield Request(
            security, upsert=tuple(_credential(u, rng) for u in world.users[start : start + 50])
        )


def _first_topic(world: Tenancy, team: Team) -> str:
    return next(t for t in world.topics if t.startswith(team.prefix))


def _credential(user: str, rng: random.Random, iterations: int | None = None) -> ScramUpsertion:
    mechanism = rng.choice((Mech.SCRAM_SHA_256, Mech.SCRAM_SHA_512))
    size = 32 if mechanism == Mech.SCRAM_SHA_256 else 64
    rounds = iterations or rng.choice((4096, 8192, 8192, 16384))
    return ScramUpsertion(user, mechanism, rounds, rng.randbytes(16), rng.randbytes(size))


def change_requests(world: Tenancy, changes: int, seed: int = 0) -> Iterator[Request]:
    """``changes`` later requests by random authors: people granted and revoked other teams'
    topics, a DENY on an account added then lifted, credentials rotated.
    Each is valid against the state the earlier ones leave (a revoke names a live grant); a
    credential set here has 8192 iterations (a rotation, or a second mechanism)."""
    rng = random.Random(seed + 1)
    granted: list[AclBinding] = []
    denied: list[AclBinding] = []
    for _ in range(changes):
        author = rng.choice(world.authors)
        roll = rng.random()
        if roll < 0.35 or not granted:
            who = f"User:{rng.choice(world.people)}"
            grant = _acl(TOPIC, rng.choice(world.topics), LITERAL, who, rng.choice((READ, WRITE)))
            if grant not in granted:
                granted.append(grant)
            yield Request(author, (grant,))
        elif roll < 0.55:
            yield Request(author, delete=(granted.pop(rng.randrange(len(granted))),))
        elif roll < 0.7 and denied:
            yield Request(author, delete=(denied.pop(rng.randrange(len(denied))),))
        elif roll < 0.8:
            team = rng.choice(world.teams)
            deny = _acl(
                TOPIC, team.prefix, PREFIXED, f"User:{rng.choice(team.accounts)}", READ, DENY
            )
            if deny not in denied:
                denied.append(deny)
            yield Request(author, (deny,))
        else:
            yield Request(author, upsert=(_credential(rng.choice(world.users), rng, 8192),))


def write_tenancy(
    directory: Path,
    world: Tenancy,
    *,
    changes: int = 40,
    seed: int = 0,
    start_ms: int = START_MS,
    step_ms: int = 60_000,
    snapshot_every: int | None = None,
    on_request: Callable[[int], None] | None = None,
    fsync: bool = False,
) -> int:
    """Commit the setup and ``changes`` later requests to ``directory`` through a controller,
    one request every ``step_ms`` from ``start_ms`` (a snapshot every ``snapshot_every``
    requests when given); returns the requests committed. The directory must be new. Tests and
    benchmarks leave ``fsync`` off; a directory a person keeps turns it on."""
    clock = [start_ms / 1000]
    log = SegmentedLog(directory, fsync=fsync, clock=lambda: clock[0])
    requests = [*setup_requests(world, seed), *change_requests(world, changes, seed)]
    with Controller(
        log, authorizer=LocalOperator(), retention=RetentionPolicy(), clock=lambda: clock[0]
    ) as controller:
        for number, request in enumerate(requests, start=1):
            clock[0] += step_ms / 1000
            _send(controller, request)
            if snapshot_every and number % snapshot_every == 0:
                controller.snapshot()
            if on_request is not None:
                on_request(number)
    return len(requests)


def _send(controller: Controller, request: Request) -> None:
    if request.create:
        controller.create_acls(list(request.create), request.caller)
    if request.delete:  # the author's client, asking through the API that deletes
        filters = [
            AclFilter(
                a.resource_type,
                a.resource_name,
                a.pattern_type,
                a.principal,
                a.host,
                a.operation,
                a.permission_type,
            )
            for a in request.delete
        ]
        controller.delete_acls(filters, replace(request.caller, api="DeleteAcls"))
    if request.upsert or request.remove:
        caller = replace(request.caller, api="AlterUserScramCredentials")
        controller.alter_scram(list(request.upsert), list(request.remove), caller)
