"""An immutable snapshot of every stored ACL, indexed for authorization: one
:class:`NameIndex` per resource type.

:class:`AclIndex` is what the authorizer publishes to its readers. A change never touches a
published index: :meth:`AclIndex.changed` groups the batch by resource pattern, runs one
transaction that copies the shards it changes and rebuilds the changed patterns' rules, and
returns a new index, so readers holding the old one see it whole.

Immutable; thread-safe. :meth:`AclIndex.changed` costs O(batch + ACLs of the changed patterns +
touched shards), never O(total ACLs); :meth:`AclIndex.build` is O(ACLs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from aclog.acl.filters import AclFilter
from aclog.acl.glob import GlobSyntaxError, compile_glob
from aclog.acl.ordering import kafka_order
from aclog.authorizer.grouped import Grouped, Records
from aclog.authorizer.names import NameIndex
from aclog.authorizer.rules import Rules
from aclog.records.enums import PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord


class AclIndex:
    """Represents a set of stored ACLs, indexed by resource type and resource pattern.

    Immutable; thread-safe. ``len`` is O(1); iteration is O(ACLs).
    """

    __slots__ = ("_listing", "_size", "by_type")

    EMPTY: AclIndex

    def __init__(self, by_type: dict[ResourceType, NameIndex], size: int) -> None:
        self.by_type = by_type
        """Read-only (the index owns it): the hot path probes this dict directly."""
        self._size = size
        self._listing: list[AccessControlEntryRecord] | None = None

    @classmethod
    def build(cls, acls: Iterable[AccessControlEntryRecord]) -> AclIndex:
        """An index of ``acls`` (ids must be distinct; the caller checks)."""
        return cls.EMPTY.changed(adds=acls, removes=())

    def changed(
        self,
        adds: Iterable[AccessControlEntryRecord],
        removes: Iterable[AccessControlEntryRecord],
    ) -> AclIndex:
        """A new index: this one with ``removes`` (stored records) taken out, then ``adds`` put
        in. Raises ``KeyError`` for a removal that is not stored and ``ValueError`` for an ACL
        that cannot be indexed (an invalid GLOB pattern); this index is unchanged either way."""
        removed = _group(removes)
        return self._regrouped(_group(adds), removed)

    @classmethod
    def build_grouped(cls, grouped: Mapping[ResourceType, Grouped[Records]]) -> AclIndex:
        """:meth:`build` of ACLs already grouped by resource type, pattern type and pattern
        (each pattern's ACLs in their order, every map in order of first appearance): for a
        caller that grouped them its own way (:mod:`aclog.authorizer.table_load`)."""
        return cls.EMPTY._regrouped(grouped, {})

    @classmethod
    def of_rules(
        cls, built: Mapping[ResourceType, Grouped[Rules]], sizes: Mapping[ResourceType, int]
    ) -> AclIndex:
        """:meth:`build_grouped` of rules already built per pattern (grouped the same way),
        ``sizes`` the number of ACLs of each resource type: for a caller that built the rules
        its own way (:mod:`aclog.authorizer.table_load`). ``ValueError`` as there."""
        token = object()
        by_type: dict[ResourceType, NameIndex] = {}
        for resource_type in built.keys() | ():  # the order of _regrouped's set of types
            names = NameIndex(token)
            names.load(built[resource_type], sizes[resource_type])
            if names.size:
                by_type[resource_type] = names
        return AclIndex(by_type, sum(sizes.values()))

    def _regrouped(
        self,
        added: Mapping[ResourceType, Grouped[Records]],
        removed: Mapping[ResourceType, Grouped[Records]],
    ) -> AclIndex:
        token = object()
        by_type = self.by_type.copy()
        size = self._size
        for resource_type in added.keys() | removed.keys():
            names = by_type.get(resource_type)
            names = NameIndex(token) if names is None else names.owned(token)
            size -= names.size
            names.apply(added.get(resource_type, {}), removed.get(resource_type, {}))
            size += names.size
            if names.size:
                by_type[resource_type] = names
            else:
                by_type.pop(resource_type, None)
        return AclIndex(by_type, size)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[AccessControlEntryRecord]:
        for names in self.by_type.values():
            for _, rules in names.containers():
                yield from rules.acls

    def listing(self) -> list[AccessControlEntryRecord]:
        """Every ACL in Kafka's order (:func:`kafka_order`), sorted on first use and kept with
        this index: ACLs change rarely and are listed often, so the listings of one index
        version share one sort. Do not modify the list. Two threads racing to sort it store
        equal lists. Cost: O(n log n) once per index, then O(1)."""
        listing = self._listing
        if listing is None:
            listing = self._listing = kafka_order(self)
        return listing

    @property
    def resource_types(self) -> frozenset[ResourceType]:
        """The resource types with at least one ACL."""
        return frozenset(self.by_type)

    def names(self, resource_type: ResourceType) -> NameIndex | None:
        """The ACLs of ``resource_type``, or ``None`` when it has none."""
        return self.by_type.get(resource_type)

    def select(self, acl_filter: AclFilter) -> list[AccessControlEntryRecord]:
        """The ACLs ``acl_filter`` matches, in no particular order.

        A filter with a name is answered from the index: MATCH looks the name up (every ACL that
        applies to it), a specific or ANY pattern type looks the exact pattern up. A filter
        without a name scans the chosen types. Every candidate is then checked with
        :meth:`AclFilter.matches`, the one definition of filter semantics.
        """
        found: list[AccessControlEntryRecord] = []
        for names in self._names_for(acl_filter.resource_type):
            for rules in _filter_candidates(names, acl_filter):
                found.extend(acl for acl in rules.acls if acl_filter.matches(acl))
        return found

    def filtered(self, acl_filter: AclFilter) -> list[AccessControlEntryRecord]:
        """The ACLs ``acl_filter`` matches (Kafka filter semantics, plus GLOB), in Kafka's sort
        order (``reference/kafka-acl-spec.md`` §2; see :mod:`aclog.acl.ordering`).

        A MATCH filter with a name is answered like ``authorize`` (a few probes); a name with a
        specific pattern type is one lookup, plus O(k log k) to sort k results. A filter without
        a name walks :meth:`listing`, which is already in Kafka's order (sorted once per index).
        """
        if acl_filter.resource_name is None:
            if acl_filter.matches_everything:
                return list(self.listing())
            matches = acl_filter.matches
            return [acl for acl in self.listing() if matches(acl)]
        return kafka_order(self.select(acl_filter))

    def _names_for(self, resource_type: ResourceType) -> list[NameIndex]:
        if resource_type == ResourceType.ANY:
            return list(self.by_type.values())
        names = self.by_type.get(resource_type)
        return [] if names is None else [names]


AclIndex.EMPTY = AclIndex({}, 0)


def _group(
    acls: Iterable[AccessControlEntryRecord],
) -> dict[ResourceType, dict[PatternType, dict[str, list[AccessControlEntryRecord]]]]:
    """``acls`` by resource type, pattern type and pattern. Runs once per ACL of a bulk load,
    so it remembers the last (type, pattern type) pair: ACLs usually come in runs of one pair."""
    grouped: dict[ResourceType, dict[PatternType, dict[str, list[AccessControlEntryRecord]]]] = {}
    last_type = last_kind = None
    per: dict[str, list[AccessControlEntryRecord]] = {}
    for acl in acls:
        resource_type, kind = acl.resource_type, acl.pattern_type
        if resource_type is not last_type or kind is not last_kind:
            per = grouped.setdefault(resource_type, {}).setdefault(kind, {})
            last_type, last_kind = resource_type, kind
        same = per.get(acl.resource_name)
        if same is None:
            per[acl.resource_name] = [acl]
        else:
            same.append(acl)
    return grouped


def _filter_candidates(names: NameIndex, acl_filter: AclFilter) -> Iterator[Rules]:
    name, wanted = acl_filter.resource_name, acl_filter.pattern_type
    if name is None:
        yield from (rules for _, rules in names.containers())
    elif wanted == PatternType.MATCH:
        yield from (rules for _, _, rules in names.applicable(name))
    else:
        kinds = (PatternType.LITERAL, PatternType.PREFIXED, PatternType.GLOB)
        for kind in kinds if wanted == PatternType.ANY else (wanted,):
            if kind == PatternType.GLOB and not _valid_glob(name):
                continue  # no stored GLOB can have an invalid pattern
            if kind in kinds:
                rules = names.exact(kind, name)
                if rules is not None:
                    yield rules


def _valid_glob(pattern: str) -> bool:
    try:
        compile_glob(pattern)
    except GlobSyntaxError:
        return False
    return True
