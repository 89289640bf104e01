"""One aclog node behind a listener: the controller (the writer) plus the broker side that
follows the log.

- The :class:`~aclog.controller.controller.Controller` owns the data directory's writer lock and
  commits CreateAcls, DeleteAcls and AlterUserScramCredentials.
- A :class:`~aclog.broker.MetadataLoader` tails the same directory and publishes every committed
  batch to the trie :class:`~aclog.authorizer.Authorizer`, to a
  :class:`~aclog.broker.ScramCredentialCache` and to :class:`PublishedOffset`.
- Reads are answered from what the loader published, as a Kafka broker answers them: DescribeAcls
  from the authorizer, DescribeUserScramCredentials and SASL logins from the credential cache,
  authorization (admin APIs included, through :class:`ClusterAccess`) from the authorizer.
- Read-your-writes: after a write, :meth:`Node.wait_published` blocks until the loader has
  published the controller's committed offset, and only then is the response sent. So a SCRAM
  user created through the listener can log in, and a created ACL is in force and listed, as
  soon as the client has its answer. The controller's own image would have served logins too,
  but then reads and writes would see two different states; this way everything a client sees
  comes from one published image. Alone on its directory the controller hands each durable
  commit to the loader in memory (:meth:`Controller.add_commit_listener`), so the commit is
  published before the writer's call returns and the wait is a comparison; in a shared
  directory the writer's thread polls the log itself.

With ``--controller`` (:attr:`ServerConfig.controller`) several nodes share the data directory:
writes go through a :class:`~aclog.wire.quorum.QuorumMember` that is active or standing by, and
:meth:`Node.cluster_view` sends clients to the active node (Metadata and DescribeCluster list it
as the broker and the controller), as a KRaft broker names the active controller.

Thread-safe: the controller serializes writes; the authorizer, the cache and
:class:`PublishedOffset` are read lock-free or under their own lock.
"""

from __future__ import annotations

import base64
import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from aclog.acl import ApiError
from aclog.acl.filters import AclFilter
from aclog.authorizer import Authorizer, Decision
from aclog.broker import Manifest, MetadataLoader, ScramCredentialCache
from aclog.broker.publishers import AuthorizerPublisher
from aclog.controller import check_cluster_access
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller
from aclog.controller.quorum import ControllerNode
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import AclCreateResult, AclDeleteResult, ScramAlterResult
from aclog.controller.validation import CLUSTER_NAME
from aclog.image import MetadataDelta, MetadataImage, ScramCredential
from aclog.records import AclBinding, AclOperation, ResourceType, ScramMechanism
from aclog.snapshot import SnapshotPolicy
from aclog.wire.config import Endpoint, ServerConfig, parse_endpoint
from aclog.wire.login_secret import load_login_secret
from aclog.wire.quorum import QuorumMember
from aclog.wire.topics import TopicInventory, load_topics

logger = logging.getLogger(__name__)
T = TypeVar("T")

PUBLISH_WAIT_SECONDS = 10.0
"""How long a write waits for the loader before answering anyway (the commit is durable)."""


NO_CONTROLLER = -1
"""The controller id Kafka reports while no controller is known."""


class Committer(Protocol):
    """What the write handlers call: a :class:`Controller` (this node alone writes the
    directory) or a :class:`QuorumMember` (several nodes share it)."""

    @property
    def image(self) -> MetadataImage: ...

    def create_acls(self, acls: Sequence[AclBinding], caller: Caller) -> list[AclCreateResult]: ...

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller
    ) -> list[AclDeleteResult]: ...

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller,
    ) -> list[ScramAlterResult]: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Broker:
    """A node as Metadata and DescribeCluster list it."""

    node_id: int
    endpoint: Endpoint


@dataclass(frozen=True, slots=True)
class ClusterView:
    """The brokers a client should use and the controller id, as this node sees them."""

    brokers: tuple[Broker, ...]
    controller_id: int


class PublishedOffset:
    """A publisher that remembers the last offset the loader published and lets writers wait
    for it. Registered last, so when it sees an offset every other publisher has it too."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._offset = -1

    @property
    def offset(self) -> int:
        """The last published offset (-1 before the first record)."""
        return self._offset

    def publish(
        self, delta: MetadataDelta | None, image: MetadataImage, manifest: Manifest
    ) -> None:
        with self._condition:
            self._offset = image.provenance.last_offset
            self._condition.notify_all()

    def wait_for(self, offset: int, timeout: float) -> bool:
        """Block until ``offset`` is published; False if ``timeout`` seconds pass first."""
        with self._condition:
            return self._condition.wait_for(lambda: self._offset >= offset, timeout)


class ClusterAccess:
    """The controller's :class:`~aclog.controller.ClusterAuthorizer`, backed by the trie
    authorizer: may this principal do this operation on CLUSTER ``kafka-cluster``?"""

    def __init__(self, authorizer: Authorizer) -> None:
        self.authorizer = authorizer

    def authorize_cluster(self, principal: str, host: str, operation: AclOperation) -> bool:
        decision = self.authorizer.authorize(
            principal, host, operation, ResourceType.CLUSTER, CLUSTER_NAME
        )
        return decision is Decision.ALLOWED


class Node:
    """The controller and broker state one listener serves. Use :meth:`open` and
    :meth:`close`."""

    def __init__(
        self,
        config: ServerConfig,
        controller: Committer,
        authorizer: Authorizer,
        credentials: ScramCredentialCache,
        loader: MetadataLoader,
        published: PublishedOffset,
        topics: TopicInventory,
        login_secret: bytes,
    ) -> None:
        self.config = config
        self.controller = controller
        self.authorizer = authorizer
        self.cluster_access = ClusterAccess(authorizer)
        self.credentials = credentials
        self.loader = loader
        self.published = published
        self.topics = topics
        self.login_secret = login_secret
        """The data directory's secret for the salts of unknown SCRAM users."""
        self.node_id = config.node_id
        self.cluster_id = config.cluster_id or default_cluster_id(config.data_dir)
        self.advertised: Endpoint = config.advertised or config.listen
        # Blocking writes (a shared directory's QuorumMember) run here; threads start on use.
        self._writers = ThreadPoolExecutor(config.workers, thread_name_prefix="aclog-write")

    @classmethod
    def open(cls, config: ServerConfig) -> Node:
        """Read the topics, open the controller (taking the writer lock), read the login secret,
        then load and start following the log. The authorizer is ready when this returns."""
        topics = load_topics(config.topics_file)
        authorizer = Authorizer(config.super_users, config.allow_everyone_if_no_acl_found)
        controller = _open_controller(config, ClusterAccess(authorizer))
        try:
            login_secret = load_login_secret(config.data_dir)
            credentials = ScramCredentialCache()
            published = PublishedOffset()
            loader = MetadataLoader(
                config.data_dir,
                [AuthorizerPublisher(authorizer), credentials, published],
                durable_end=_durable_end(controller),
            )
            loader.start()
            if isinstance(controller, Controller):
                # This process is the only writer: publish each commit from memory.
                controller.add_commit_listener(loader.offer)
        except BaseException:
            controller.close()
            raise
        return cls(
            config, controller, authorizer, credentials, loader, published, topics, login_secret
        )

    def start(self, advertised: Endpoint) -> None:
        """The listener is bound and clients reach it at ``advertised``: in a shared directory,
        start taking part in elections (a leader announces where it listens)."""
        self.advertised = advertised
        if isinstance(self.controller, QuorumMember):
            self.controller.start(str(advertised))

    def cluster_view(self) -> ClusterView:
        """Alone on the directory this node is the broker and the controller. In a shared
        directory clients are sent to the active controller; while an election is pending
        this node lists itself and reports no controller (clients retry)."""
        me = Broker(self.node_id, self.advertised)
        if not isinstance(self.controller, QuorumMember):
            return ClusterView((me,), self.node_id)
        leader = self.controller.leader()
        if leader is None:
            return ClusterView((me,), NO_CONTROLLER)
        if leader.leader_id == self.node_id:
            return ClusterView((me,), self.node_id)
        try:
            endpoint = parse_endpoint(leader.listener or "")
        except ValueError:
            return ClusterView((me,), NO_CONTROLLER)
        return ClusterView((Broker(leader.leader_id, endpoint),), leader.leader_id)

    @property
    def writes_in_order(self) -> bool:
        """Whether writes commit in the order they are queued, so a connection may queue a
        write before the one ahead of it has committed: true alone on the directory (one commit
        queue); in a shared directory the blocking writes run on a pool, in no set order."""
        return isinstance(self.controller, Controller)

    def close(self) -> None:
        """Finish the writes under way, stop following the log, then release the data
        directory (queued commits are made first; the log fsyncs on close)."""
        self._writers.shutdown(wait=True)
        self.loader.stop()
        self.controller.close()

    # -- writes: each future completes once its commit is published --------------------------

    def create_acls(
        self, bindings: Sequence[AclBinding], caller: Caller
    ) -> Future[list[AclCreateResult]]:
        """CreateAcls through the controller, without blocking the calling thread."""
        return self._write(
            lambda c: c.create_acls_later(bindings, caller),
            lambda c: c.create_acls(bindings, caller),
        )

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller
    ) -> Future[list[AclDeleteResult]]:
        """DeleteAcls through the controller, without blocking the calling thread."""
        return self._write(
            lambda c: c.delete_acls_later(filters, caller),
            lambda c: c.delete_acls(filters, caller),
        )

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller,
    ) -> Future[list[ScramAlterResult]]:
        """AlterUserScramCredentials through the controller, without blocking the caller."""
        return self._write(
            lambda c: c.alter_scram_later(upsertions, deletions, caller),
            lambda c: c.alter_scram(upsertions, deletions, caller),
        )

    def _write(
        self,
        later: Callable[[Controller], Future[T]],
        blocking: Callable[[Committer], T],
    ) -> Future[T]:
        """One write: alone on the directory the controller queues it (``later``); in a shared
        directory the blocking call runs on the write pool and its future completes once the
        loader has published it."""
        controller = self.controller
        if isinstance(controller, Controller):
            return later(controller)
        return self._writers.submit(self._published, blocking, controller)

    def _published(self, write: Callable[..., T], *args: object) -> T:
        """Run a blocking write, then wait until the loader has published it."""
        result = write(*args)
        self.wait_published()
        return result

    # -- questions handlers ask ----------------------------------------------------------------

    def check_cluster(
        self, principal: str, host: str, operation: AclOperation, *, acl_api: bool
    ) -> ApiError | None:
        """``None`` if the caller may do ``operation`` on the cluster, else the error for the
        whole request (CLUSTER_AUTHORIZATION_FAILED)."""
        return check_cluster_access(
            self.cluster_access, principal, host, operation, acl_api=acl_api
        )

    def allows(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> bool:
        """Whether the published ACLs allow the operation on the LITERAL resource."""
        decision = self.authorizer.authorize(principal, host, operation, resource_type, name)
        return decision is Decision.ALLOWED

    def scram_credential(self, user: str, mechanism: ScramMechanism) -> ScramCredential | None:
        """The published credential a login checks against."""
        return self.credentials.credential(user, mechanism)

    def wait_published(self) -> None:
        """Block until the loader has published everything the controller has committed."""
        target = self.controller.image.provenance.last_offset
        if self.published.offset < target:
            try:
                self.loader.poll()  # on this thread: no hand-off to the loader thread and back
            except Exception:  # the loader thread retries; wait for it below
                logger.exception("publishing offset %d from the writer failed", target)
        if not self.published.wait_for(target, PUBLISH_WAIT_SECONDS):
            logger.warning(
                "the metadata loader has not published offset %d after %.0f s (it is at %d); "
                "answering anyway, the change is committed",
                target,
                PUBLISH_WAIT_SECONDS,
                self.published.offset,
            )


def _open_controller(config: ServerConfig, access: ClusterAccess) -> Committer:
    """The exclusive controller (taking the writer lock), or with ``config.controller`` a
    standby in a shared directory that elections may make active."""
    if not config.controller:
        return Controller.open(
            config.data_dir,
            node_id=config.node_id,
            authorizer=access,
            snapshot_policy=SnapshotPolicy(),
        )
    node = ControllerNode(
        config.data_dir,
        config.node_id,
        authorizer=access,
        heartbeat_ms=config.heartbeat_ms,
        election_timeout_ms=config.election_timeout_ms,
        snapshot_policy=SnapshotPolicy(),
    )
    return QuorumMember(node)


def _durable_end(controller: Committer) -> Callable[[], int] | None:
    """Where the exclusive controller's fsynced log ends (its ``end_offset`` advances only
    after a group's fsync). In a shared directory other processes append too; there the
    loader reads to the end of what is written."""
    if isinstance(controller, Controller):
        log = controller.log
        return lambda: log.end_offset
    return None


def default_cluster_id(data_dir: Path) -> str:
    """A Kafka-style cluster id (22 characters of URL-safe base64) derived from the data
    directory's absolute path, so it stays the same across restarts."""
    digest = uuid.uuid5(uuid.NAMESPACE_URL, f"aclog:{data_dir.resolve()}").bytes
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
