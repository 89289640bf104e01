"""The admin client behind ``--bootstrap-server``: ACL and SCRAM operations on any Kafka cluster.

:class:`RemoteAdmin` is a :class:`~aclog.controller.writer.MetadataWriter`, as the
:class:`~aclog.controller.controller.Controller` is, so the commands share everything but the
backend. It rides on kafka-python's :class:`~kafka.admin.KafkaAdminClient` for bootstrap,
ApiVersions negotiation, SASL/TLS and routing, but builds the five requests itself with
kafka-python's protocol message classes and sends them the way the admin client's own methods do
(``admin._manager.run(admin._manager.send, request)``); the requests are built in
:mod:`aclog.remote.requests`. The admin client's convenience methods
cannot be used as they are:

- ``describe_acls`` and ``delete_acls`` turn every pattern type into ``ACLResourcePatternType``,
  which has no GLOB (code 5): a GLOB ACL in a response is a client-side ``ValueError``;
- ``create_acls`` keeps neither the position nor the message of a failed creation, and
  ``delete_acls`` drops the per-filter message;
- ``alter_user_scram_credentials`` and ``describe_user_scram_credentials`` return error
  messages without their codes (and key results by user, merging repeats).

The CLI prints Kafka's code, name and message per item, exactly as for a data directory, so the
responses are read field by field (:mod:`aclog.remote.messages`). GLOB travels as pattern type 5
(KIP-1042), as ``aclog serve`` expects; a Kafka broker without GLOB support rejects it.

Kafka does not expose ACL ids: ACLs read from a cluster carry :data:`REMOTE_ACL_ID` and print
with ``"id": null``. ``users set`` computes the salt and salted password on the client with
:func:`aclog.controller.upsertion_for_password` (PBKDF2, the same value kafka-python's
``UserScramCredentialUpsertion`` computes), so the password never leaves this process.

Not thread-safe: one command, one admin client. Cost: :meth:`RemoteAdmin.connect` bootstraps
(up to ``bootstrap_timeout_ms``, 15 s unless configured); each operation is one request and its
round trip, except a dry-run ``delete_acls``, which sends one DescribeAcls per filter. The
``*_later`` forms send on the calling thread and return a completed future.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

import kafka.errors as kafka_errors

from aclog.acl import ApiError
from aclog.acl.filters import AclFilter
from aclog.acl.glob import GLOB_FEATURE
from aclog.controller import (
    AclCreateResult,
    AclDeleteResult,
    ScramAlterResult,
    ScramDeletion,
    ScramUpsertion,
)
from aclog.controller.caller import Caller
from aclog.controller.quorum_state import QuorumState
from aclog.image import MetadataImage
from aclog.image.scram import ScramDescribeResult
from aclog.records import (
    AccessControlEntryRecord,
    AclBinding,
)
from aclog.remote.basics import RemoteError
from aclog.remote.connection import bootstrap_admin_client, describe_error
from aclog.remote.messages import (
    UnsupportedRemotely,
    acl_of,
    acls_of,
    api_error,
    check_count,
    users_of,
)
from aclog.remote.refusals import creation_refusals
from aclog.remote.requests import (
    alter_scram_request,
    api_versions_request,
    create_acls_request,
    delete_acls_request,
    describe_acls_request,
    describe_scram_request,
)


class RemoteAdmin:
    """A cluster as a :class:`~aclog.controller.writer.MetadataWriter`: ACL and SCRAM
    operations over the Kafka admin API. The server decides who the caller is (from the
    login), so ``caller`` is unused."""

    def __init__(self, bootstrap: str, admin: Any) -> None:
        self.bootstrap = bootstrap
        self._admin = admin

    @classmethod
    def connect(cls, bootstrap: str, settings: dict[str, Any] | None = None) -> RemoteAdmin:
        """Bootstrap a KafkaAdminClient; :class:`RemoteError` when that fails in time."""
        return cls(bootstrap, bootstrap_admin_client(bootstrap, settings))

    def close(self) -> None:
        """Close the connections and stop the client's I/O thread."""
        self._admin.close()

    def __enter__(self) -> RemoteAdmin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- leadership: the cluster's --

    @property
    def image(self) -> MetadataImage | None:
        """``None``: the state lives in the cluster; ask :meth:`describe_acls`."""
        return None

    @property
    def is_active(self) -> bool:
        """True: the cluster routes every admin request to its active controller."""
        return True

    @property
    def writes_in_order(self) -> bool:
        """True: each request is sent and answered before the next is made."""
        return True

    def leader(self) -> QuorumState | None:
        """The cluster's controller as DescribeCluster names it, at the address the cluster
        lists for it; ``None`` when it names none. Kafka does not expose the controller's
        epoch to admin clients: it is -1 here."""
        try:
            cluster = self._admin.describe_cluster()
        except (kafka_errors.KafkaError, OSError) as error:
            raise RemoteError(
                f"DescribeCluster to {self.bootstrap} failed: {describe_error(error)}"
            ) from error
        controller_id = cluster.get("controller_id", -1)
        if controller_id is None or controller_id < 0:
            return None
        for broker in cluster.get("brokers", []):
            if broker.get("node_id") == controller_id:
                return QuorumState(controller_id, -1, f"{broker['host']}:{broker['port']}")
        return QuorumState(controller_id, -1)

    def _send(self, request: Any) -> Any:
        manager = self._admin._manager
        try:
            return manager.run(manager.send, request)
        except kafka_errors.IncompatibleBrokerVersion:
            raise
        except (kafka_errors.KafkaError, OSError) as error:
            name = type(request).__name__.removesuffix("Request")
            reason = describe_error(error)
            raise RemoteError(f"{name} to {self.bootstrap} failed: {reason}") from error

    def supported_features(self) -> dict[str, tuple[int, int]]:
        """The features the cluster's ApiVersions response lists (KIP-584), as name -> (min,
        max) version; empty for a cluster too old to list any. ``aclog serve`` lists
        :data:`~aclog.acl.glob.GLOB_FEATURE`; Kafka lists ``metadata.version`` and the like."""
        try:
            response = self._send(api_versions_request())
        except kafka_errors.IncompatibleBrokerVersion:
            return {}
        return {f.name: (f.min_version, f.max_version) for f in response.supported_features}

    def _holds_glob(self) -> bool:
        """Whether the cluster stores GLOB ACLs (only ``aclog serve`` lists the feature)."""
        return GLOB_FEATURE in self.supported_features()

    # -- ACLs --

    def create_acls(
        self, acls: Sequence[AclBinding], caller: Caller | None = None, *, dry_run: bool = False
    ) -> list[AclCreateResult]:
        """CreateAcls: one result per binding, in request order (no ids: Kafka has none).
        What :mod:`aclog.remote.refusals` refuses is answered here and never sent."""
        del caller
        if dry_run:
            raise UnsupportedRemotely("Kafka cannot preview CreateAcls")
        errors = creation_refusals(acls, self._holds_glob)
        valid = [acl for acl, error in zip(acls, errors, strict=True) if error is None]
        sent = iter(self._create_acls(valid) if valid else [])
        return [AclCreateResult(e) if e is not None else next(sent) for e in errors]

    def _create_acls(self, acls: Sequence[AclBinding]) -> list[AclCreateResult]:
        response = self._send(create_acls_request(acls))
        results = [
            AclCreateResult(api_error(r.error_code, r.error_message)) for r in response.results
        ]
        check_count("CreateAcls", results, acls)
        return results

    def delete_acls(
        self, filters: Sequence[AclFilter], caller: Caller | None = None, *, dry_run: bool = False
    ) -> list[AclDeleteResult]:
        """DeleteAcls: one result per filter with the ACLs it removed. A dry run asks
        DescribeAcls with each filter instead (Kafka matches both the same way)."""
        del caller
        if not filters:
            return []
        if dry_run:
            return [AclDeleteResult(*self._describe_tuple(f)) for f in filters]
        request = delete_acls_request(filters)
        response = self._send(request)
        results = [
            AclDeleteResult(
                api_error(r.error_code, r.error_message),
                tuple(
                    acl_of(m, m.resource_type, m.resource_name, m.pattern_type)
                    for m in r.matching_acls
                ),
            )
            for r in response.filter_results
        ]
        check_count("DeleteAcls", results, filters)
        return results

    def create_acls_later(
        self, acls: Sequence[AclBinding], caller: Caller | None = None
    ) -> Future[list[AclCreateResult]]:
        """:meth:`create_acls`, sent now; the future is complete when this returns."""
        return _done(lambda: self.create_acls(acls, caller))

    def delete_acls_later(
        self, filters: Sequence[AclFilter], caller: Caller | None = None
    ) -> Future[list[AclDeleteResult]]:
        """:meth:`delete_acls`, sent now; the future is complete when this returns."""
        return _done(lambda: self.delete_acls(filters, caller))

    def describe_acls(
        self, acl_filter: AclFilter, caller: Caller | None = None
    ) -> tuple[ApiError, list[AccessControlEntryRecord]]:
        """DescribeAcls: the ACLs the filter matches, in the cluster's order."""
        del caller
        error, acls = self._describe_tuple(acl_filter)
        return error, list(acls)

    def _describe_tuple(
        self, acl_filter: AclFilter
    ) -> tuple[ApiError, tuple[AccessControlEntryRecord, ...]]:
        request = describe_acls_request(acl_filter)
        response = self._send(request)
        return api_error(response.error_code, response.error_message), acls_of(response)

    # -- SCRAM --

    def alter_scram(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller | None = None,
    ) -> list[ScramAlterResult]:
        """AlterUserScramCredentials: one result per user, as the cluster answers."""
        del caller
        request = alter_scram_request(upsertions, deletions)
        response = self._send(request)
        return [
            ScramAlterResult(r.user, api_error(r.error_code, r.error_message))
            for r in response.results
        ]

    def alter_scram_later(
        self,
        upsertions: Sequence[ScramUpsertion],
        deletions: Sequence[ScramDeletion],
        caller: Caller | None = None,
    ) -> Future[list[ScramAlterResult]]:
        """:meth:`alter_scram`, sent now; the future is complete when this returns."""
        return _done(lambda: self.alter_scram(upsertions, deletions, caller))

    def describe_scram(
        self, names: Sequence[str] | None, caller: Caller | None = None
    ) -> tuple[ApiError, list[ScramDescribeResult]]:
        """DescribeUserScramCredentials; ``None`` or no names describes every user."""
        del caller
        request = describe_scram_request(names)
        response = self._send(request)
        return api_error(response.error_code, response.error_message), users_of(response)


T = TypeVar("T")


def _done(call: Callable[[], T]) -> Future[T]:
    """A future holding what ``call`` returned (or raised)."""
    future: Future[T] = Future()
    try:
        future.set_result(call())
    except Exception as error:
        future.set_exception(error)
    return future
