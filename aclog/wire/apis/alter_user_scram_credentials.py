"""AlterUserScramCredentials (key 51): upsert and delete SCRAM credentials through the
controller.

The controller applies Kafka's rules (``reference/kafka-acl-spec.md`` §10.1): ALTER on the
cluster, then per user name deletions before upsertions, one result per user, per-user
atomicity. Mechanism codes are read with ``fromCode`` (an unknown code is
UNSUPPORTED_SASL_MECHANISM (33) for that user). Both admin clients send the salted password
(PBKDF2 done client-side); the controller stores only StoredKey and ServerKey. The response is
sent once the loader has published the commit, so a new user can log in at once.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.admin import AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse

from aclog.acl import ApiError
from aclog.controller import ScramDeletion, ScramUpsertion
from aclog.controller.result import ScramAlterResult
from aclog.records import ScramMechanism
from aclog.wire.context import Api, Reply, RequestContext, many

_Result = AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult


def _response(ctx: RequestContext, results: list[tuple[str, ApiError]]) -> Any:
    return AlterUserScramCredentialsResponse(
        version=ctx.version,
        throttle_time_ms=0,
        results=[
            _Result(user=user, error_code=e.code, error_message=e.message) for user, e in results
        ],
    )


def handle(ctx: RequestContext, request: Any) -> Reply:
    deletions = [
        ScramDeletion(d.name, ScramMechanism.from_code(d.mechanism)) for d in request.deletions
    ]
    upsertions = [
        ScramUpsertion(
            u.name,
            ScramMechanism.from_code(u.mechanism),
            u.iterations,
            bytes(u.salt),
            bytes(u.salted_password),
        )
        for u in request.upsertions
    ]
    commit = ctx.node.alter_scram(upsertions, deletions, ctx.caller("AlterUserScramCredentials"))

    def render(results: list[ScramAlterResult]) -> Any:
        return _response(ctx, [(r.user, r.error) for r in results])

    return Reply.after(commit, render, many)


def error_response(ctx: RequestContext, request: Any, error: ApiError) -> Any:
    users = {d.name for d in request.deletions} | {u.name for u in request.upsertions}
    return _response(ctx, [(user, error) for user in sorted(users)])


API = Api(
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    0,
    0,
    handle,
    error_response,
    on_loop=True,
    queues_commit=True,
)
