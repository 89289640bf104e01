"""CreateAcls and DeleteAcls: decide against the committed image, return records, change nothing.

Mirrors Kafka's ``AclControlManager`` (``reference/kafka-acl-spec.md`` §3-§4). The caller commits
``result.records`` as one batch and replays them; only then do the results hold.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence

from aclog.acl import ApiError, Errors
from aclog.acl.filters import AclFilter
from aclog.controller.result import AclCreateResult, AclDeleteResult, ControllerResult
from aclog.controller.validation import creation_error, filter_error, precheck_error
from aclog.image.acls import AclsImage
from aclog.records.types import (
    AccessControlEntryRecord,
    AclBinding,
    Record,
    RemoveAccessControlEntryRecord,
    new_acl_id,
)

MAX_RECORDS_PER_USER_OP = 10_000
"""Kafka's ``QuorumController.MAX_RECORDS_PER_USER_OP``: the most records one request may commit."""

_TOO_MANY = ApiError.of(Errors.UNKNOWN_SERVER_ERROR)


class AclControlManager:
    """Decides ACL creations and deletions. Stateless apart from the id factory; thread-safe if
    the factory is.

    ``id_factory`` makes the id of each new ACL (``new_acl_id`` by default; tests inject a
    deterministic one). An id already used by the image or by the same request is skipped.
    """

    def __init__(self, id_factory: Callable[[], uuid.UUID] = new_acl_id) -> None:
        self._id_factory = id_factory

    def create_acls(
        self, image: AclsImage, acls: Sequence[AclBinding]
    ) -> ControllerResult[list[AclCreateResult]]:
        """One result per binding, in request order, and one record per new distinct ACL.

        A binding identical to a stored ACL, or to an earlier one in the request, succeeds with no
        record. If more than 10,000 records would result, nothing is created: every creation that
        passed the pre-checks fails with UNKNOWN_SERVER_ERROR (§3 stage 7).
        """
        results: list[AclCreateResult] = []
        records: list[AccessControlEntryRecord] = []
        created: dict[AclBinding, uuid.UUID] = {}
        used: set[uuid.UUID] = set()
        for binding in acls:
            error = creation_error(binding)
            if error is not None:
                results.append(AclCreateResult(error))
                continue
            acl_id = image.id_of(binding)
            if acl_id is None:
                acl_id = created.get(binding)
            if acl_id is None:
                acl_id = self._new_id(image, used)
                created[binding] = acl_id
                used.add(acl_id)
                records.append(binding.with_id(acl_id))
            results.append(AclCreateResult(ApiError.NONE, acl_id))
        if len(records) > MAX_RECORDS_PER_USER_OP:
            return ControllerResult((), [_over_cap_create(binding) for binding in acls])
        return ControllerResult(tuple(records), results)

    def delete_acls(
        self, image: AclsImage, filters: Sequence[AclFilter]
    ) -> ControllerResult[list[AclDeleteResult]]:
        """One result per filter, in request order, listing the ACLs it matches (commit order);
        one removal record per distinct matched ACL.

        If the union of matches exceeds 10,000 ACLs, Kafka's controller refuses the whole result
        at append time, so every filter fails with UNKNOWN_SERVER_ERROR and nothing is removed
        (§4 stage 5). Exactly 10,000 succeeds.
        """
        results: list[AclDeleteResult] = []
        removed: dict[uuid.UUID, RemoveAccessControlEntryRecord] = {}
        stored: list[AccessControlEntryRecord] | None = None
        for acl_filter in filters:
            error = filter_error(acl_filter)
            if error is not None:
                results.append(AclDeleteResult(error))
                continue
            if stored is None:  # once: a table-backed image makes its records at each pass
                stored = list(image)
            matched = tuple(acl for acl in stored if acl_filter.matches(acl))
            for acl in matched:
                if acl.id not in removed:
                    removed[acl.id] = RemoveAccessControlEntryRecord(acl.id)
            results.append(AclDeleteResult(ApiError.NONE, matched))
        if len(removed) > MAX_RECORDS_PER_USER_OP:
            return ControllerResult((), [AclDeleteResult(_TOO_MANY) for _ in filters])
        records: tuple[Record, ...] = tuple(removed.values())
        return ControllerResult(records, results)

    def _new_id(self, image: AclsImage, used: set[uuid.UUID]) -> uuid.UUID:
        while True:
            candidate = self._id_factory()
            if candidate not in image.acls and candidate not in used:
                return candidate


def _over_cap_create(binding: AclBinding) -> AclCreateResult:
    # Pre-check failures are answered by Kafka's AclApis before the controller runs, so they
    # keep their INVALID_REQUEST; everything the controller saw fails with the request.
    error = precheck_error(binding)
    return AclCreateResult(error if error is not None else _TOO_MANY)
