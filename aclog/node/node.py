"""One aclog node: the writer (a controller) plus the broker side that follows the log, as a
listener serves them.

- The writer is a :class:`~aclog.controller.writer.MetadataWriter` opened by
  :func:`~aclog.node.writers.open_node_writer`: the exclusive
  :class:`~aclog.controller.controller.Controller` of the data directory, or with
  ``settings.controller`` a :class:`~aclog.controller.quorum_member.QuorumMember` of a directory
  several nodes share (then :meth:`Node.cluster_view` sends clients to the active node, as a
  KRaft broker names the active controller).
- A :class:`~aclog.broker.MetadataLoader` tails the same directory and publishes every committed
  batch to the trie :class:`~aclog.authorizer.Authorizer`, to a
  :class:`~aclog.broker.ScramCredentialCache` and to a
  :class:`~aclog.node.published.PublishedOffset`.
- Reads are answered from what the loader published, as a Kafka broker answers them: DescribeAcls
  from the authorizer, DescribeUserScramCredentials and SASL logins from the credential cache,
  authorization (admin APIs included, through :class:`~aclog.node.cluster.ClusterAccess`) from
  the authorizer.
- Read-your-writes: a write's future completes only once the loader has published the writer's
  committed offset. So a SCRAM user created through the listener can log in, and a created ACL
  is in force and listed, as soon as the client has its answer; everything a client sees comes
  from one published image. Alone on its directory the controller hands each durable commit to
  the loader in memory, so the commit is published before its future completes and the wait is
  a comparison; in a shared directory a pool thread polls the log.

Thread-safe: the writer serializes writes; the authorizer, the cache and the published offset
are read lock-free or under their own lock. Cost of a write: the writer's commit, plus at most
one poll of the log tail when the commit was not handed over in memory.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol, TypeVar

from aclog.acl import ApiError, Errors
from aclog.acl.filters import AclFilter
from aclog.authorizer import Authorizer, Decision
from aclog.broker import MetadataLoader, ScramCredentialCache
from aclog.broker.publishers import AuthorizerPublisher
from aclog.controller import check_cluster_access
from aclog.controller.caller import Caller
from aclog.controller.requests import ScramDeletion, ScramUpsertion
from aclog.controller.result import AclCreateResult, AclDeleteResult, ScramAlterResult
from aclog.controller.writer import MetadataWriter
from aclog.image import ScramCredential
from aclog.node.cluster import Broker, ClusterAccess, ClusterView, default_cluster_id
from aclog.node.endpoint import Endpoint
from aclog.node.login_secret import load_login_secret
from aclog.node.published import PublishedOffset
from aclog.node.scrub import Scrub
from aclog.node.topics import TopicInventory, load_topics
from aclog.node.writers import NodeWriter, WriterSettings, open_node_writer
from aclog.records import AclBinding, AclOperation, ResourceType, ScramMechanism

logger = logging.getLogger(__name__)
T = TypeVar("T")

PUBLISH_WAIT_SECONDS = 10.0
"""How long a write waits for the loader before answering anyway (the commit is durable)."""


class NodeSettings(WriterSettings, Protocol):
    """What a node reads from ``aclog serve``'s settings (:class:`~aclog.wire.ServerConfig`)."""

    @property
    def listen(self) -> Endpoint: ...
    @property
    def advertised(self) -> Endpoint | None: ...
    @property
    def cluster_id(self) -> str | None: ...
    @property
    def topics_file(self) -> Path | None: ...
    @property
    def super_users(self) -> frozenset[str]: ...
    @property
    def allow_everyone_if_no_acl_found(self) -> bool: ...
    @property
    def scrub_interval(self) -> float: ...


class Node:
    """The writer and broker state one listener serves. Use :meth:`open` and :meth:`close`."""

    def __init__(
        self,
        settings: NodeSettings,
        writer: NodeWriter,
        authorizer: Authorizer,
        credentials: ScramCredentialCache,
        loader: MetadataLoader,
        published: PublishedOffset,
        topics: TopicInventory,
        login_secret: bytes,
        scrub: Scrub | None = None,
    ) -> None:
        self.config = settings
        self.controller: MetadataWriter = writer.writer
        self._start = writer.start
        self.authorizer = authorizer
        self.cluster_access = ClusterAccess(authorizer)
        self.credentials = credentials
        self.loader = loader
        self.published = published
        self.topics = topics
        self.login_secret = login_secret
        """The data directory's secret for the salts of unknown SCRAM users."""
        self.scrub = scrub or Scrub(settings.data_dir, settings.scrub_interval)
        """Re-reads what was acknowledged; writes stop while it finds the log damaged."""
        self.node_id = settings.node_id
        self.cluster_id = settings.cluster_id or default_cluster_id(settings.data_dir)
        self.advertised: Endpoint = settings.advertised or settings.listen
        # Waits for a commit the loader has not published yet run here; threads start on use.
        self._waits = ThreadPoolExecutor(settings.workers, thread_name_prefix="aclog-publish")

    @classmethod
    def open(cls, settings: NodeSettings) -> Node:
        """Read the topics, open the writer (taking the writer lock), read the login secret,
        then load and start following the log. The authorizer is ready when this returns."""
        topics = load_topics(settings.topics_file)
        authorizer = Authorizer(settings.super_users, settings.allow_everyone_if_no_acl_found)
        writer = open_node_writer(settings, ClusterAccess(authorizer))
        try:
            login_secret = load_login_secret(settings.data_dir)
            credentials = ScramCredentialCache()
            published = PublishedOffset()
            loader = MetadataLoader(
                settings.data_dir,
                [AuthorizerPublisher(authorizer), credentials, published],
                durable_end=writer.durable_end,
                image=writer.image,
            )
            loader.start()
            writer.follow(loader)
        except BaseException:
            writer.writer.close()
            raise
        return cls(
            settings, writer, authorizer, credentials, loader, published, topics, login_secret
        )

    def start(self, advertised: Endpoint) -> None:
        """The listener is bound and clients reach it at ``advertised``: in a shared directory,
        start taking part in elections (a leader announces where it listens)."""
        self.advertised = advertised
        self._start(str(advertised))
        self.scrub.start()

    def cluster_view(self) -> ClusterView:
        """The brokers and controller clients should use (see :meth:`ClusterView.of`)."""
        return ClusterView.of(Broker(self.node_id, self.advertised), self.controller.leader())

    @property
    def writes_in_order(self) -> bool:
        """Whether writes commit in the order they are queued, so a connection may queue a
        write before the one ahead of it has committed (the writer's answer)."""
        return self.controller.writes_in_order

    def close(self) -> None:
        """Finish the writes under way, stop following the log, then release the data
        directory (queued commits are made first; the log fsyncs on close)."""
        self.scrub.stop()
        self.controller.close()
        self._waits.shutdown(wait=True)
        self.loader.stop()

    # -- writes: each future completes once its commit is published --------------------------

    def create_acls(
        self, bindings: Sequence[AclBinding], caller: Caller
    ) -> Future[list[AclCreateResult]]:
        """CreateAcls through the writer, without blocking the calling thread."""
        damage = self._damage()
        if damage is not None:
            return _done([AclCreateResult(damage) for _ in bindings])
        return self._published(self.controller.create_acls_later(bindings, caller))

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller
    ) -> Future[list[AclDeleteResult]]:
        """DeleteAcls through the writer, without blocking the calling thread."""
        damage = self._damage()
        if damage is not None:
            return _done([AclDeleteResult(damage) for _ in filters])
        return self._published(self.controller.delete_acls_later(filters, caller))

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller,
    ) -> Future[list[ScramAlterResult]]:
        """AlterUserScramCredentials through the writer, without blocking the caller."""
        damage = self._damage()
        if damage is not None:
            users = dict.fromkeys([d.name for d in deletions] + [u.name for u in upsertions])
            return _done([ScramAlterResult(user, damage) for user in users])
        return self._published(self.controller.alter_scram_later(upsertions, deletions, caller))

    def _damage(self) -> ApiError | None:
        """KAFKA_STORAGE_ERROR naming the file and byte while the scrub finds the log damaged:
        a write appended behind damage would be unreadable at the next start."""
        damage = self.scrub.damage
        return None if damage is None else ApiError(Errors.KAFKA_STORAGE_ERROR, str(damage))

    def _published(self, commit: Future[T]) -> Future[T]:
        """``commit``'s outcome, once the loader has published it: at once when the commit
        was handed over in memory, else after a wait on the pool (never on the caller's
        thread, which may be the listener's event loop)."""
        answer: Future[T] = Future()

        def settle(done: Future[T]) -> None:
            error = done.exception()
            if error is not None:
                answer.set_exception(error)
            elif self.published.offset >= self._committed_offset():
                answer.set_result(done.result())
            else:
                self._waits.submit(self._wait_then_answer, done, answer)

        commit.add_done_callback(settle)
        return answer

    def _wait_then_answer(self, done: Future[T], answer: Future[T]) -> None:
        self.wait_published()
        answer.set_result(done.result())

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

    def scram_mechanisms_held(self) -> tuple[str, ...]:
        """The SCRAM mechanisms the published users hold, the most held first (what a first
        client should be told to log in with)."""
        held = Counter(m for creds in self.credentials.image.users.values() for m in creds)
        return tuple(m.mechanism_name for m, _ in held.most_common())

    def scram_credential(self, user: str, mechanism: ScramMechanism) -> ScramCredential | None:
        """The published credential a login checks against."""
        return self.credentials.credential(user, mechanism)

    def _committed_offset(self) -> int:
        """The last offset the writer has committed (a node's writer holds the log)."""
        image = self.controller.image
        return -1 if image is None else image.provenance.last_offset

    def wait_published(self) -> None:
        """Block until the loader has published everything the writer has committed."""
        target = self._committed_offset()
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


def _done(value: T) -> Future[T]:
    """A future that already holds ``value``."""
    future: Future[T] = Future()
    future.set_result(value)
    return future
