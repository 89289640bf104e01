"""The ACLs of one image as a list a filter selects from: what ``acls list`` lists and the State
view pages through, with :meth:`AclFilter.matches` as the one rule of what a filter selects.

An image is immutable, so its listing is built once and kept for that image
(:func:`listing_of`, the newest :data:`KEPT` images by identity): a table-backed image builds
its records anew on every pass, which at 1M ACLs is seconds, and a page of 100 needs only a
slice. A filter naming a field's value (a principal, host, operation, permission, resource
type, or a resource name with an exact pattern type) reads only the ACLs the index of such a
field with the fewest of them gives (built on first use), then applies the filter's rule.

Thread-safe: a lock guards the cache and the indexes (a second caller waits for the build
rather than repeating it). Cost: O(ACLs) once per image for the records and once per indexed
field; memory about a record and an index entry per ACL, for :data:`KEPT` images at most.
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Sequence

from aclog.authorizer import AclFilter
from aclog.image import AclsImage
from aclog.records import (
    AccessControlEntryRecord,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

KEPT = 2
"""Listings kept: the state at the log's end and the moment a person looks at."""

_FIELDS: dict[str, Callable[[AccessControlEntryRecord], object]] = {
    "principal": lambda acl: acl.principal,
    "resource_name": lambda acl: acl.resource_name,
    "host": lambda acl: acl.host,
    "operation": lambda acl: acl.operation,
    "permission_type": lambda acl: acl.permission_type,
    "resource_type": lambda acl: acl.resource_type,
}


def _named(acl_filter: AclFilter) -> list[tuple[str, object]]:
    """The fields ``acl_filter`` names an exact value of, as (field, value)."""
    exact = acl_filter.pattern_type not in (PatternType.ANY, PatternType.MATCH)
    wanted: list[tuple[str, object]] = [
        ("principal", acl_filter.principal),
        ("resource_name", acl_filter.resource_name if exact else None),
        ("host", acl_filter.host),
        ("operation", None if acl_filter.operation == AclOperation.ANY else acl_filter.operation),
        ("permission_type", None if acl_filter.permission_type == AclPermissionType.ANY
         else acl_filter.permission_type),
        ("resource_type", None if acl_filter.resource_type == ResourceType.ANY
         else acl_filter.resource_type),
    ]  # fmt: skip
    return [(field, value) for field, value in wanted if value is not None]


class AclListing:
    """The ACLs of one image in its order, and positions by principal and by resource name."""

    def __init__(self, acls: AclsImage) -> None:
        self.records: list[AccessControlEntryRecord] = list(acls.acls.values())
        self._indexes: dict[str, dict[object, array[int]]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.records)

    def matching(self, acl_filter: AclFilter) -> Sequence[AccessControlEntryRecord]:
        """The ACLs ``acl_filter`` selects, in image order (the listing itself when it
        selects every ACL: slice it, do not change it)."""
        if acl_filter.matches_everything:
            return self.records
        return [acl for acl in self._candidates(acl_filter) if acl_filter.matches(acl)]

    def _candidates(self, acl_filter: AclFilter) -> Sequence[AccessControlEntryRecord]:
        """The ACLs the filter can select: those the index of the field it names with the
        fewest ACLs gives, else all."""
        named = _named(acl_filter)
        if not named:
            return self.records
        empty: array[int] = array("L")
        positions = min((self._index(field).get(value, empty) for field, value in named), key=len)
        return [self.records[i] for i in positions]

    def _index(self, field: str) -> dict[object, array[int]]:
        with self._lock:
            index = self._indexes.get(field)
            if index is None:
                index = {}
                key_of = _FIELDS[field]
                for i, acl in enumerate(self.records):
                    key = key_of(acl)
                    found = index.get(key)
                    if found is None:
                        index[key] = found = array("L")
                    found.append(i)
                self._indexes[field] = index
            return index


_lock = threading.Lock()
_kept: OrderedDict[int, tuple[AclsImage, AclListing]] = OrderedDict()


def listing_of(acls: AclsImage) -> AclListing:
    """The listing of ``acls``, built on the first call for that image and kept while it is
    among the :data:`KEPT` most recently asked."""
    with _lock:
        kept = _kept.get(id(acls))
        if kept is not None and kept[0] is acls:
            _kept.move_to_end(id(acls))
            return kept[1]
        listing = AclListing(acls)
        _kept[id(acls)] = (acls, listing)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
        return listing
