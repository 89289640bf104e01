"""Metadata (key 3): this node as the only broker and the controller, plus the inventory topics.

Follows Kafka's ``KafkaApis.handleTopicMetadataRequest``:

- ``topics`` null (or empty at v0) asks for every topic: the topics the caller may DESCRIBE.
- A named topic the caller may not DESCRIBE gets TOPIC_AUTHORIZATION_FAILED (29), whether it
  exists or not; an unknown one gets UNKNOWN_TOPIC_OR_PARTITION (3). aclog never creates topics,
  so ``allow_auto_topic_creation`` changes nothing. From v12 a topic may be asked for by id: an
  unknown id gets UNKNOWN_TOPIC_ID (100), an unauthorized one 29, both without a name.
- KIP-430: with ``include_topic_authorized_operations`` (v8+) each described topic carries the
  operations the caller may do on it; with ``include_cluster_authorized_operations`` (v8-10) the
  response carries the caller's cluster operations, or none without DESCRIBE on the cluster.
  When not asked for, the fields hold Kafka's "omitted" value (INT32_MIN).
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.metadata import MetadataRequest, MetadataResponse

from aclog.acl import ApiError, Errors
from aclog.controller.validation import CLUSTER_NAME
from aclog.node.topics import Topic
from aclog.records import AclOperation, ResourceType
from aclog.wire.context import Api, Reply, RequestContext

_Broker = MetadataResponse.MetadataResponseBroker
_Topic = MetadataResponse.MetadataResponseTopic
_Partition = _Topic.MetadataResponsePartition


def cluster_operations(ctx: RequestContext) -> set[int]:
    """KIP-430 cluster operations: none without DESCRIBE on the cluster (as Kafka does)."""
    node = ctx.node
    if not node.allows(
        ctx.principal, ctx.host, AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME
    ):
        return set()
    ops = node.authorizer.authorized_operations(
        ctx.principal, ctx.host, ResourceType.CLUSTER, CLUSTER_NAME
    )
    return {int(op) for op in ops}


def _may_describe(ctx: RequestContext, name: str) -> bool:
    return ctx.node.allows(ctx.principal, ctx.host, AclOperation.DESCRIBE, ResourceType.TOPIC, name)


def _described(ctx: RequestContext, topic: Topic, with_operations: bool, node_id: int) -> Any:
    """A topic whose partitions are all led by ``node_id`` (the broker the response lists)."""
    partitions = [
        _Partition(
            error_code=0,
            partition_index=index,
            leader_id=node_id,
            leader_epoch=0,
            replica_nodes=[node_id],
            isr_nodes=[node_id],
            offline_replicas=[],
        )
        for index in range(topic.partitions)
    ]
    operations = None
    if with_operations:
        ops = ctx.node.authorizer.authorized_operations(
            ctx.principal, ctx.host, ResourceType.TOPIC, topic.name
        )
        operations = {int(op) for op in ops}
    return _Topic(
        error_code=0,
        name=topic.name,
        topic_id=topic.topic_id,
        is_internal=False,
        partitions=partitions,
        authorized_operations=operations,
    )


def _failed(error: int, name: str | None, topic_id: Any = None) -> Any:
    return _Topic(
        error_code=error,
        name=name,
        topic_id=topic_id,
        is_internal=False,
        partitions=[],
        authorized_operations=None,
    )


def _topics(ctx: RequestContext, request: Any, node_id: int) -> list[Any]:
    inventory = ctx.node.topics
    version = ctx.version
    with_operations = version >= 8 and bool(request.include_topic_authorized_operations)
    wanted = request.topics
    if wanted is None or (version == 0 and not wanted):
        return [
            _described(ctx, topic, with_operations, node_id)
            for topic in inventory.topics
            if _may_describe(ctx, topic.name)
        ]
    results = []
    for entry in wanted:
        topic_id = getattr(entry, "topic_id", None)
        if topic_id is not None:
            found = inventory.by_id.get(topic_id)
            if found is None:
                results.append(_failed(Errors.UNKNOWN_TOPIC_ID, None, topic_id))
            elif not _may_describe(ctx, found.name):
                results.append(_failed(Errors.TOPIC_AUTHORIZATION_FAILED, None, topic_id))
            else:
                results.append(_described(ctx, found, with_operations, node_id))
            continue
        name = entry.name
        if not _may_describe(ctx, name):
            results.append(_failed(Errors.TOPIC_AUTHORIZATION_FAILED, name))
        elif name not in inventory.by_name:
            results.append(_failed(Errors.UNKNOWN_TOPIC_OR_PARTITION, name))
        else:
            results.append(_described(ctx, inventory.by_name[name], with_operations, node_id))
    return results


def _response(
    ctx: RequestContext,
    brokers: list[Any],
    topics: list[Any],
    cluster_ops: Any,
    controller_id: int,
) -> Any:
    node = ctx.node
    return MetadataResponse(
        version=ctx.version,
        throttle_time_ms=0,
        brokers=brokers,
        cluster_id=node.cluster_id,
        controller_id=controller_id,
        topics=topics,
        authorized_operations=cluster_ops,
        error_code=0,
    )


def _invalid(ctx: RequestContext, request: Any) -> str | None:
    """Kafka's InvalidRequestException cases: a topic without a name before v12, an id before
    v12, or (v12+) neither a name nor an id."""
    for entry in request.topics or []:
        topic_id = getattr(entry, "topic_id", None)
        if ctx.version < 12 and (entry.name is None or topic_id is not None):
            return f"Topic names are required and topic IDs unsupported in version {ctx.version}"
        if entry.name is None and topic_id is None:
            return "A topic needs a name or a topic ID"
    return None


def handle(ctx: RequestContext, request: Any) -> Reply:
    invalid = _invalid(ctx, request)
    if invalid is not None:
        return Reply(error_response(ctx, request, ApiError(Errors.INVALID_REQUEST, invalid)))
    view = ctx.node.cluster_view()
    brokers = [
        _Broker(node_id=b.node_id, host=b.endpoint.host, port=b.endpoint.port, rack=None)
        for b in view.brokers
    ]
    cluster_ops = None
    if 8 <= ctx.version <= 10 and request.include_cluster_authorized_operations:
        cluster_ops = cluster_operations(ctx)
    topics = _topics(ctx, request, view.brokers[0].node_id)
    return Reply(_response(ctx, brokers, topics, cluster_ops, view.controller_id))


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    topics = [
        _failed(error.code, entry.name or "", getattr(entry, "topic_id", None))
        for entry in request.topics or []
    ]
    return _response(ctx, [], topics, None, ctx.node.cluster_view().controller_id)


API = Api(MetadataRequest, MetadataResponse, 0, 13, handle, error_response)
