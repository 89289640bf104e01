"""The Who can, Reach and Diff views, as data: :func:`aclog.questions.who_can` and
:func:`aclog.questions.reach` over the state as of the moment, and :func:`aclog.replay.diff`
between two points, their ``to_dict()`` exactly as ``aclog who-can --json``, ``aclog reach
--json`` and ``aclog diff --json`` print it (no super users, Kafka's default for
allow-everyone).

Thread-safe (the authorizer comes from :class:`~aclog.ui.views.Authorizers`). Cost: one
question to the authorizer per request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aclog.image import MetadataImage
from aclog.questions import reach, who_can
from aclog.records import ResourceType
from aclog.replay import Point, backwards, range_point
from aclog.ui.queries import (
    BadQuery,
    caller,
    choice,
    host_query,
    operation_query,
    resource_query,
    text,
)
from aclog.ui.source import LogProblem, LogSource
from aclog.ui.views import Authorizers


def who_can_data(
    image: MetadataImage, authorizers: Authorizers, params: Mapping[str, str]
) -> dict[str, Any] | None:
    """``who-can --json`` for the operation and resource the URL names (``None``: the form
    is empty)."""
    if not params.get("operation"):
        return None
    operation = operation_query(params)
    resource_type, name = resource_query(params)
    authorizer = authorizers.for_image(image)
    return who_can(authorizer, operation, resource_type, name, host_query(params)).to_dict()


def reach_data(
    image: MetadataImage, authorizers: Authorizers, params: Mapping[str, str]
) -> dict[str, Any] | None:
    """``reach --json`` for the principal the URL names (``None``: the form is empty); a
    principal no ACL names and that reaches nothing is a :class:`LogProblem` (404): most
    likely a typo, and an empty answer would read as "reaches nothing"."""
    principal = text(params, "principal")
    if not principal:
        return None
    caller(principal)
    resource_type = choice(params, "resource_type", ResourceType, ResourceType.ANY)
    if resource_type == ResourceType.UNKNOWN:
        raise BadQuery("resource_type: choose one, e.g. TOPIC")
    types = None if resource_type == ResourceType.ANY else [resource_type]
    answer = reach(authorizers.for_image(image), principal, host_query(params), types).to_dict()
    if not answer["resources"] and not any(acl.principal == principal for acl in image.acls):
        raise LogProblem(
            f"no ACL names the principal {principal!r} and it reaches nothing; check the "
            "spelling (Type:name, case-sensitive)",
            404,
        )
    return answer


def diff_data(
    source: LogSource, params: Mapping[str, str], shown: int | None = None
) -> dict[str, Any] | None:
    """``diff --json`` between the points ``from`` and ``to`` (each an offset, a bare
    number, or a time; ``None``: the form is empty); ``from`` after ``to`` is a
    :class:`BadQuery`, as the CLI refuses it. With ``shown`` (a page), only the first
    ``shown`` ACL changes, and ``acls_total``: a diff across a bulk import lists hundreds of
    thousands, which a page neither shows nor needs as JSON."""
    start_text, end_text = text(params, "from").strip(), text(params, "to").strip()
    if not start_text and not end_text:
        return None
    try:
        start = range_point(start_text or "0", "from")
        end = range_point(end_text, "to") if end_text else Point()
    except ValueError as error:
        raise BadQuery(str(error)) from None
    result = source.diff(start, end)
    reached = result.start.provenance.last_offset, result.end.provenance.last_offset
    if backwards(start, end, *reached):
        raise BadQuery("from comes after to; give the earlier point as from")
    if shown is None:
        return result.to_dict()
    return {
        "from": result.start.provenance.to_dict(),
        "to": result.end.provenance.to_dict(),
        "acls": [change.to_dict() for change in result.acls[:shown]],
        "acls_total": len(result.acls),
        "credentials": [change.to_dict() for change in result.credentials],
    }
