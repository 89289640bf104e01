"""The ACLs in a metadata image: :class:`AclsImage`, the committed state, held as an ACL table
or in a mapping.

Every image replay makes from :attr:`AclsImage.EMPTY` holds its ACLs in an
:class:`~aclog.image.acl_table.AclTable` (:meth:`AclsImage.of_table`). An image made from a
mapping keeps one (a :class:`~aclog.image.layered.LayeredMap`), and so do the images a delta
applies onto it: the controller holds its image so (:meth:`AclsImage.in_a_mapping`), because a
commit of a few ACLs costs a few dict operations there and a few numpy calls per run of a
table. A small image (:attr:`AclsImage.SMALL`, where a rebuild of a small log starts) is held
in a mapping too, which needs no numpy, until a delta makes it :data:`TABLE_MIN` ACLs or more:
that image holds a table. The delta that replays records into an image is
:class:`aclog.image.acls.AclsDelta`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from aclog.image.layered import LayeredMap
from aclog.image.render import acl_to_dict
from aclog.records.types import AccessControlEntryRecord, AclBinding, AclKey

if TYPE_CHECKING:  # numpy and pyarrow load with the first table, not with every image
    from aclog.image.acl_table import AclTable

AclChanges = Mapping[uuid.UUID, AccessControlEntryRecord | None]
"""Ordered changes by ACL id: a record is an addition, ``None`` a removal."""

BindingIndex = LayeredMap[AclKey, uuid.UUID]
"""ACL key (:attr:`AccessControlEntryRecord.key`) -> the id that stores that ACL."""

TABLE_MIN = 4096
"""A small image (``small``) that a delta makes this many ACLs or more holds a table from then
on. Set well below the size where a table's smaller rows alone would repay loading numpy and
pyarrow (the ``cli`` suite's start-up ``peak RSS`` rows), so that a follower whose log grows
reaches the table's bulk replay early; an image rebuilt from a small log
(``SMALL_LOG_BYTES``) rarely holds this many."""


@dataclass(frozen=True)
class AclsImage:
    """Represents the ACLs in the metadata image, by id, in commit order.

    Immutable; thread-safe. ``acls`` is a read-only view. ``table``, when set (every image
    replay makes but the empty one), holds the ACLs as columns
    (:class:`~aclog.image.acl_table.AclTable`, see :meth:`of_table`) and ``acls`` is its
    view, whose records are made when read; lookups by binding search the table. An image
    made from a mapping keeps it, with ``index``, the binding index of exactly these ACLs when
    whoever made the image had it (a delta carries its base's forward); otherwise
    :attr:`bindings` builds it on first use, O(n) once per image. ``small``: held in a mapping
    only while small (see :data:`TABLE_MIN`). Two images are equal when they hold the same ACLs
    under the same ids.
    """

    acls: Mapping[uuid.UUID, AccessControlEntryRecord] = field(default_factory=dict)
    index: BindingIndex | None = field(default=None, compare=False, repr=False)
    table: AclTable | None = field(default=None, compare=False, repr=False)
    small: bool = field(default=False, compare=False, repr=False)

    EMPTY: ClassVar[AclsImage]
    SMALL: ClassVar[AclsImage]

    def __post_init__(self) -> None:
        if self.table is None and not isinstance(self.acls, LayeredMap):
            object.__setattr__(self, "acls", LayeredMap(self.acls))

    @classmethod
    def of_table(cls, table: AclTable) -> AclsImage:
        """The image of the ACLs ``table`` holds, in its order; ``acls`` is the table's
        read-only view. O(1)."""
        return cls(table.acls, None, table)

    @property
    def replays_onto_a_table(self) -> bool:
        """True when replay onto this image makes table-backed images: it has a table, or
        it is :attr:`EMPTY` (where replay starts; an empty image made from a mapping stays
        in one)."""
        return self.table is not None or self is AclsImage.EMPTY

    def in_a_mapping(self) -> AclsImage:
        """This image with its ACLs held in a mapping (never :attr:`EMPTY` itself): replay
        onto it stays in one, each record a few dict operations (a controller's commits).
        O(ACLs) for a table-backed image (every record built once); O(1) otherwise (a small
        image keeps its mapping at any size from then on)."""
        if self.small:
            return AclsImage(self.acls, self.index)
        if self.table is None and self is not AclsImage.EMPTY:
            return self
        return AclsImage({acl.id: acl for acl in self.acls.values()})

    def grown(
        self, acls: LayeredMap[uuid.UUID, AccessControlEntryRecord], index: BindingIndex | None
    ) -> AclsImage:
        """The image a delta applies onto this one held in a mapping: ``acls`` with their
        binding ``index`` (if known), small while this one is and it holds fewer than
        :data:`TABLE_MIN` ACLs, else a table's once it holds more (O(ACLs) once)."""
        if not self.small:
            return AclsImage(acls, index)
        if len(acls) < TABLE_MIN:
            return AclsImage(acls, index, small=True)
        from aclog.image.acl_table import AclTable  # noqa: PLC0415  # (see the imports)

        table = AclTable.from_records(list(acls.values()))
        if table is None:
            raise AssertionError("replay accepted an ACL id or binding twice")
        return AclsImage.of_table(table)

    def __len__(self) -> int:
        return len(self.acls)

    def __iter__(self) -> Iterator[AccessControlEntryRecord]:
        return iter(self.acls.values())

    @cached_property
    def bindings(self) -> BindingIndex:
        """The binding index: ``index`` if given, else built from the ACLs (once)."""
        if self.index is not None:
            return self.index
        return LayeredMap.adopt({acl.key: acl_id for acl_id, acl in self.acls.items()})

    def built_bindings(self) -> BindingIndex | None:
        """:attr:`bindings` if it exists already (given or built), without building it."""
        return self.index if self.index is not None else self.__dict__.get("bindings")

    def id_of(self, binding: AclBinding) -> uuid.UUID | None:
        """The id of the stored ACL identical to ``binding`` (all seven fields), if any.
        O(1) over a mapping, O(log ACLs) over a table; a read (adds nothing)."""
        return self.id_of_key(binding.key)

    def id_of_key(self, key: AclKey) -> uuid.UUID | None:
        """Like :meth:`id_of`, for an :attr:`AccessControlEntryRecord.key`."""
        if self.table is not None:
            return self.table.id_of_key(key)
        return self.bindings.get(key)

    def ids_of(self, bindings: Sequence[AclBinding]) -> list[uuid.UUID | None]:
        """:meth:`id_of` of each of ``bindings``, in order: over a table, one vectorised
        lookup for all of them (a request of many bindings pays numpy's calls once)."""
        keys = [binding.key for binding in bindings]
        if self.table is not None:
            return self.table.ids_of_keys(keys)
        return list(map(self.bindings.get, keys))

    def held(self, ids: Sequence[uuid.UUID]) -> list[bool]:
        """Whether each of ``ids`` is stored, in order (over a table: one vectorised lookup)."""
        if self.table is not None:
            from aclog.image.acl_column_rows import words_of  # noqa: PLC0415

            held: list[bool] = self.table.contains_words(words_of(ids)).tolist()
            return held
        return [acl_id in self.acls for acl_id in ids]

    def to_dict(self) -> list[dict[str, str]]:
        """Every ACL as :func:`aclog.image.render.acl_to_dict`, in commit order."""
        return [acl_to_dict(acl) for acl in self.acls.values()]


AclsImage.EMPTY = AclsImage()
AclsImage.SMALL = AclsImage(small=True)
"""Where replay of a small log starts (:func:`aclog.replay.rebuild.rebuild_image`): an empty
image held in a mapping while small (see :data:`TABLE_MIN`)."""
