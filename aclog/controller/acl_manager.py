"""CreateAcls and DeleteAcls: decide against the committed image, return records, change nothing.

Mirrors Kafka's ``AclControlManager`` (``reference/kafka-acl-spec.md`` §3-§4). The caller commits
``result.records`` as one batch and replays them; only then do the results hold.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from itertools import compress

from aclog.acl import ApiError, Errors
from aclog.acl.filters import AclFilter
from aclog.controller.record_cap import KAFKA_CAP_MESSAGE, MAX_RECORDS_PER_USER_OP
from aclog.controller.result import AclCreateResult, AclDeleteResult, ControllerResult
from aclog.controller.validation import creation_error, filter_error, precheck_error
from aclog.image.acls_image import AclsImage
from aclog.records.types import (
    AccessControlEntryRecord,
    AclBinding,
    Record,
    RemoveAccessControlEntryRecord,
    new_acl_id,
)

_TOO_MANY = ApiError.of(Errors.UNKNOWN_SERVER_ERROR)
_TOO_MANY_CREATED = ApiError(Errors.UNKNOWN_SERVER_ERROR, KAFKA_CAP_MESSAGE)


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
        errors = [creation_error(binding) for binding in acls]
        valid = [binding for binding, error in zip(acls, errors, strict=True) if error is None]
        # One vectorised lookup for the request (over a table, a lookup per binding would
        # pay numpy's call overhead each time); a binding hashes in Python, so few times.
        found = image.ids_of(valid)
        fresh = list(dict.fromkeys(b for b, i in zip(valid, found, strict=True) if i is None))
        created = dict(zip(fresh, self._new_ids(image, len(fresh)), strict=True))
        ids = iter(found)
        results: list[AclCreateResult] = []
        for binding, error in zip(acls, errors, strict=True):
            if error is not None:
                results.append(AclCreateResult(error))
                continue
            acl_id = next(ids)
            results.append(AclCreateResult(ApiError.NONE, acl_id or created[binding]))
        records = [binding.with_id(acl_id) for binding, acl_id in created.items()]
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

    def _new_ids(self, image: AclsImage, count: int) -> list[uuid.UUID]:
        """``count`` distinct ids the image does not use: the factory's ids in order, each
        one the image or an earlier one holds skipped. The first ``count`` are checked
        against the image in one vectorised lookup; a skip (rare) draws more, one at a time."""
        drawn = [self._id_factory() for _ in range(count)]
        held = set(compress(drawn, image.held(drawn)))
        ids: list[uuid.UUID] = []
        used: set[uuid.UUID] = set()
        pending = iter(drawn)
        while len(ids) < count:
            candidate = next(pending, None)
            if candidate is None:
                candidate = self._id_factory()
                taken = candidate in image.acls
            else:
                taken = candidate in held
            if not taken and candidate not in used:
                ids.append(candidate)
                used.add(candidate)
        return ids


def _over_cap_create(binding: AclBinding) -> AclCreateResult:
    # Pre-check failures are answered by Kafka's AclApis before the controller runs, so they
    # keep their INVALID_REQUEST; everything the controller saw fails with the request.
    error = precheck_error(binding)
    return AclCreateResult(error if error is not None else _TOO_MANY_CREATED)
