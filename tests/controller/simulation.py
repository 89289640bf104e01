"""A seeded fault-injection simulation of controllers, brokers and clients on one data directory.

N controllers (``ControllerNode``, shared log, fake clock), M brokers (``MetadataLoader`` feeding
an ``Authorizer`` and a SCRAM cache) and clients issuing random ACL and SCRAM mutations to random
controllers run in lock step. A seeded schedule injects faults: crashes (between operations,
mid-append leaving a torn tail, after the write but before the acknowledgement), pauses past the
election timeout, and slow disks (the clock jumps during an append). ``check`` then verifies:

1. every acknowledged mutation is in the log;
2. no batch of an older epoch follows a newer epoch;
3. every broker's image equals a fresh replay of the log;
4. SCRAM changes stayed atomic per user (a user's records are in the request's batch exactly
   when the user's result was a success).

Each violation names the seed; ``Sim(seed).run()`` reproduces it.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aclog.acl.filters import AclFilter
from aclog.authorizer import Authorizer
from aclog.broker import AuthorizerPublisher, MetadataLoader, ScramCredentialCache
from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import LocalOperator
from aclog.controller.quorum import ControllerNode
from aclog.controller.requests import ScramDeletion
from aclog.log import CorruptLogError
from aclog.log import files as files_module
from aclog.records import (
    AccessControlEntryRecord,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    RemoveAccessControlEntryRecord,
    ResourceType,
    ScramMechanism,
    UserScramCredentialRecord,
)
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import read_decoded

NAMES = ["a", "b", "orders", "orders.eu", "pay"]
USERS = ["u1", "u2", "u3"]
MECHANISMS = [ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512]


class SimulatedCrash(Exception):
    """The process died here."""


@dataclass
class Acked:
    """Acknowledged mutations, by kind, with the request id the batch author carries."""

    creates: list[tuple[str, AclBinding]] = field(default_factory=list)
    deletes: list[tuple[str, uuid.UUID]] = field(default_factory=list)
    scram: list[tuple[str, str, bool]] = field(default_factory=list)  # (request, user, ok)


class Sim:
    """One seeded schedule."""

    def __init__(
        self, seed: int, directory: Path, *, steps: int = 60, controllers: int = 3, brokers: int = 2
    ) -> None:
        self.seed, self.directory, self.steps = seed, directory, steps
        self.rng = random.Random(seed)
        self.now = 1_000.0
        self.nodes: dict[int, ControllerNode | None] = {}
        self.paused: dict[int, int] = {}
        self.acked = Acked()
        self.requests = 0
        for node_id in range(1, controllers + 1):
            self.nodes[node_id] = self._start(node_id)
        self.brokers = [self._broker() for _ in range(brokers)]
        self.ack_before_write = False  # planted bug: acknowledge, then lose the batch

    def clock(self) -> float:
        return self.now

    def _start(self, node_id: int) -> ControllerNode:
        return ControllerNode(
            self.directory,
            node_id,
            clock=self.clock,
            heartbeat_ms=200,
            election_timeout_ms=1000,
            authorizer=LocalOperator(),
            fsync=False,
        )

    def _broker(self) -> tuple[MetadataLoader, Authorizer, ScramCredentialCache]:
        authorizer, cache = Authorizer(), ScramCredentialCache()
        loader = MetadataLoader(self.directory, [AuthorizerPublisher(authorizer), cache])
        return loader, authorizer, cache

    # -- the schedule ------------------------------------------------------------------------

    def run(self) -> list[str]:
        for _ in range(self.steps):
            self.now += self.rng.choice([0.05, 0.1, 0.3])
            self._maybe_fault()
            for node_id, node in list(self.nodes.items()):
                if node is not None and self.paused.get(node_id, 0) <= 0:
                    try:
                        node.tick()
                    except SimulatedCrash:
                        self._crash(node_id)
                self.paused[node_id] = self.paused.get(node_id, 0) - 1
            self._client_request()
            for loader, _, _ in self.brokers:
                try:
                    loader.poll()
                except CorruptLogError as error:
                    return self._report([f"a broker could not read the log: {error}"])
        return self.check()

    def _maybe_fault(self) -> None:
        roll = self.rng.random()
        node_id = self.rng.choice(list(self.nodes))
        node = self.nodes[node_id]
        if node is None:
            if roll < 0.3:
                self.nodes[node_id] = self._start(node_id)  # restart after a crash
            return
        if roll < 0.04:
            self._crash(node_id)
        elif roll < 0.08:
            self.paused[node_id] = self.rng.randint(8, 20)  # past the election timeout
        elif roll < 0.12:
            self._arm_write_fault(node, self.rng.choice(["torn", "after-write", "slow"]))

    def _crash(self, node_id: int) -> None:
        node = self.nodes[node_id]
        if node is not None:
            node.close()
        self.nodes[node_id] = None

    def _arm_write_fault(self, node: ControllerNode, kind: str) -> None:
        """Make this node's next append misbehave (once)."""
        log = node.controller.log
        real = log._write_batch
        sim = self

        def faulty(batch: bytearray, base: int) -> None:
            log._write_batch = real  # type: ignore[method-assign]
            if kind == "slow":
                sim.now += 2.0  # the disk stalls past the election timeout
                real(batch, base)
                return
            if kind == "torn":
                cut = sim.rng.randrange(1, len(batch))
                files_module.os.write(log._active.fd, bytes(batch[:cut]))
                raise SimulatedCrash("crashed mid-append")
            real(batch, base)
            raise SimulatedCrash("crashed after the write, before the acknowledgement")

        log._write_batch = faulty  # type: ignore[method-assign]

    # -- clients -----------------------------------------------------------------------------

    def _client_request(self) -> None:
        node_id = self.rng.choice(list(self.nodes))
        node = self.nodes[node_id]
        if node is None or self.paused.get(node_id, 0) > 0:
            return
        self.requests += 1
        request = f"req-{self.requests}"
        caller = Caller("User:client", "10.0.0.9", request, "sim")
        try:
            self._send(node, request, caller)
        except SimulatedCrash:
            self._crash(node_id)

    def _send(self, node: ControllerNode, request: str, caller: Caller) -> None:
        kind = self.rng.random()
        if kind < 0.5:
            bindings = [self._binding() for _ in range(self.rng.randint(1, 3))]
            log = node.controller.log
            size_before, segment = log._active.size, log._active.path
            results = node.create_acls(bindings, caller)
            for binding, result in zip(bindings, results, strict=True):
                if result.error.is_success:
                    self.acked.creates.append((request, binding))
            self._lose_if_planted(results, segment, size_before)
        elif kind < 0.7:
            name = self.rng.choice(NAMES)
            results = node.delete_acls([AclFilter(ResourceType.TOPIC, name)], caller)
            for result in results:
                if result.error.is_success:
                    self.acked.deletes += [(request, acl.id) for acl in result.acls]
        else:
            self._scram(node, request, caller)

    def _lose_if_planted(self, results: list[Any], segment: Path, size_before: int) -> None:
        """The planted bug: the batch was acknowledged but never made durable, and the machine
        lost power; the bytes vanish and the controller dies."""
        acknowledged = any(r.error.is_success for r in results)
        grew = segment.exists() and segment.stat().st_size > size_before
        if self.ack_before_write and acknowledged and grew:
            files_module.os.truncate(segment, size_before)
            raise SimulatedCrash("power loss before the acknowledged batch was durable")

    def _scram(self, node: ControllerNode, request: str, caller: Caller) -> None:
        upserts, deletes = [], []
        for user in self.rng.sample(USERS, self.rng.randint(1, 3)):
            mechanism = self.rng.choice(MECHANISMS)
            if self.rng.random() < 0.7:
                iterations = self.rng.choice([4096, 8192, 100])  # 100 is rejected
                upserts.append(upsertion_for_password(user, mechanism, "pw", iterations))
            else:
                deletes.append(ScramDeletion(user, mechanism))
        for result in node.alter_scram(upserts, deletes, caller):
            if result.error.code != 41:
                self.acked.scram.append((request, result.user, result.error.is_success))

    def _binding(self) -> AclBinding:
        return AclBinding(
            ResourceType.TOPIC,
            self.rng.choice(NAMES),
            self.rng.choice([PatternType.LITERAL, PatternType.PREFIXED]),
            f"User:{self.rng.choice('xyz')}",
            "*",
            self.rng.choice([AclOperation.READ, AclOperation.WRITE]),
            self.rng.choice([AclPermissionType.ALLOW, AclPermissionType.DENY]),
        )

    # -- the checker -------------------------------------------------------------------------

    def check(self) -> list[str]:
        """Every invariant violation found, each naming the seed."""
        try:
            batches = list(read_decoded(self.directory))
        except CorruptLogError as error:
            return self._report([f"the log is unreadable: {error}"])
        problems = self._check_acknowledged(batches) + self._check_epochs(batches)
        problems += self._check_brokers() + self._check_scram_atomicity(batches)
        return self._report(problems)

    def _report(self, problems: list[str]) -> list[str]:
        hint = f"re-run: Sim({self.seed}, Path('somewhere')).run()"
        return [f"seed {self.seed}: {p} ({hint})" for p in problems]

    def _check_acknowledged(self, batches: list[Any]) -> list[str]:
        by_request: dict[str, list[Any]] = {}
        for batch in batches:
            if batch.author is not None:
                by_request[batch.author.client_id] = [e.record for e in batch.entries]
        created = {
            (r.binding, r.id)
            for b in batches
            for e in b.entries
            if isinstance(r := e.record, AccessControlEntryRecord)
        }
        known = {binding for binding, _ in created}
        removed = {
            e.record.id
            for b in batches
            for e in b.entries
            if isinstance(e.record, RemoveAccessControlEntryRecord)
        }
        problems = [
            f"acknowledged creation of {binding} is not in the log"
            for _, binding in self.acked.creates
            if binding not in known
        ]
        problems += [
            f"acknowledged deletion of {acl_id} is not in the log"
            for _, acl_id in self.acked.deletes
            if acl_id not in removed
        ]
        problems += [
            f"acknowledged SCRAM change of {user} ({request}) is not in the log"
            for request, user, ok in self.acked.scram
            if ok and request not in by_request
        ]
        return problems

    @staticmethod
    def _check_epochs(batches: list[Any]) -> list[str]:
        problems, newest = [], -1
        for batch in batches:
            if batch.epoch < newest:
                problems.append(
                    f"batch {batch.base_offset} has epoch {batch.epoch} after epoch {newest}"
                )
            newest = max(newest, batch.epoch)
        return problems

    def _check_brokers(self) -> list[str]:
        expected = rebuild_image(self.directory, use_snapshots=False).image
        problems = []
        for i, (loader, authorizer, cache) in enumerate(self.brokers):
            loader.poll()
            if loader.image != expected:
                problems.append(f"broker {i}'s image differs from a fresh replay of the log")
            if sorted(a.id for a in authorizer.acls(AclFilter())) != sorted(expected.acls.acls):
                problems.append(f"broker {i}'s authorizer differs from a fresh replay")
            if cache.image != expected.scram:
                problems.append(f"broker {i}'s SCRAM cache differs from a fresh replay")
        return problems

    def _check_scram_atomicity(self, batches: list[Any]) -> list[str]:
        users_by_request: dict[str, set[str]] = {}
        for batch in batches:
            if batch.author is not None:
                users_by_request[batch.author.client_id] = {
                    e.record.name
                    for e in batch.entries
                    if isinstance(e.record, UserScramCredentialRecord)
                    or type(e.record).__name__ == "RemoveUserScramCredentialRecord"
                }
        problems = []
        for request, user, ok in self.acked.scram:
            written = user in users_by_request.get(request, set())
            if ok != written:
                state = "succeeded but has no record" if ok else "failed but has records"
                problems.append(f"SCRAM change of {user} in {request} {state}")
        return problems
