"""Reading an ACL image's mapping the cheap way, whatever holds it: a dict, or an
:class:`~aclog.image.acl_table.AclTable` whose view makes a record at each read.

On a table, ``image.acls[acl_id]`` and ``acl_id in image.acls`` are each a numpy search
(O(log n), with a fixed numpy cost per call) and every pass over ``values()`` builds every
record again; on a dict they are a hash probe and a walk. A reader that asks about many ids,
or walks the ACLs more than once, goes through these instead:

- :func:`stored_records`: the records of some ids, one vectorised search on a table;
- :func:`acls_by_id`: the ACLs as a mapping that is cheap to probe many times (the dict
  itself, or a table's records read once into one);
- :func:`only_in`: the ACLs of one image whose ids another lacks, by comparing the tables'
  id columns when both are tables (records made only for those).

>>> import uuid
>>> from aclog.image.acl_table import AclTable
>>> from aclog.records.enums import AclOperation, AclPermissionType, PatternType, ResourceType
>>> acl = AccessControlEntryRecord(uuid.UUID(int=7), ResourceType.TOPIC, "orders",
...     PatternType.LITERAL, "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
>>> image = AclsImage.of_table(AclTable.from_records([acl]))
>>> stored_records(image, [uuid.UUID(int=8), uuid.UUID(int=7)]) == [None, acl]
True
>>> acls_by_id(image) == {acl.id: acl}
True
>>> only_in(image, AclsImage.EMPTY) == [acl], only_in(image, image)
(True, [])

Pure; thread-safe (images are immutable). Cost: see each function.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

import numpy as np

from aclog.image.acls_image import AclsImage
from aclog.records.types import AccessControlEntryRecord


def stored_records(
    image: AclsImage, acl_ids: Sequence[uuid.UUID]
) -> list[AccessControlEntryRecord | None]:
    """The record ``image`` stores under each of ``acl_ids`` (``None`` where none), in order.
    Cost: one vectorised search and a record per hit on a table
    (:meth:`~aclog.image.acl_table.AclTable.get_many`), a probe per id on a dict."""
    if image.table is not None:
        return image.table.get_many(acl_ids)
    get = image.acls.get
    return [get(acl_id) for acl_id in acl_ids]


def acls_by_id(image: AclsImage) -> Mapping[uuid.UUID, AccessControlEntryRecord]:
    """The ACLs of ``image`` by id, in image order, as a mapping a reader may probe many
    times: the image's own when a dict holds it (no copy), else a dict of the table's records
    read once. Cost: nothing, or one record per ACL."""
    if image.table is None:
        return image.acls
    return {acl.id: acl for acl in image.table.records()}


def only_in(image: AclsImage, other: AclsImage) -> list[AccessControlEntryRecord]:
    """The ACLs of ``image`` whose ids ``other`` does not store, in ``image``'s order. Cost
    with two tables: a search of ``other``'s id column for each id of ``image``'s
    (:meth:`~aclog.image.acl_table.AclTable.contains_words`) and a record per ACL found;
    otherwise a probe of ``other`` per ACL of ``image`` (each read once)."""
    mine, theirs = image.table, other.table
    if mine is not None and theirs is not None:
        return mine.records_at(np.flatnonzero(~theirs.contains_words(mine.ids())))
    stored = acls_by_id(other)
    return [acl for acl in image.acls.values() if acl.id not in stored]
