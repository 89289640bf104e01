"""One page of the ACLs of an image that a filter selects, in image order, without making the
records of the others: page ``k`` of a million bindings as of any moment costs a few numpy
passes and the records of that page (what ``aclog ui``'s State view shows).

The reference is :func:`acl_page_reference`: every ACL's record, the filter's rule
(:meth:`~aclog.acl.filters.AclFilter.matches`) on each, then the slice. Over a table,
:func:`acl_page` selects the rows by comparing the columns instead: each field the filter
names exactly is one equality over its column (a code field through the table that maps
codes to the members the records hold, a string field against the string's code in the
table's pool, which holds each string once); the part no column comparison decides (a
resource name with pattern type MATCH) keeps only the rows whose pattern could apply (the
name itself, ``*``, a prefix of it, or any GLOB), makes their records and asks the rule;
:func:`acls_applying` does that for many resources at once (the Changes view's effect on
access reads the ACLs on a page's resources so).

Immutable inputs; thread-safe (the columns kept, :data:`KEPT` tables' by identity, under a
lock). Cost over a table: O(ACLs) numpy passes for a filter (none for no filter), one copy of
the table's live columns the first time a table is paged, and one record per ACL on the page
(plus one per candidate row for MATCH); over a mapping: :func:`acl_page_reference`, O(ACLs).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np

from aclog.acl.filters import AclFilter
from aclog.image.acl_column_rows import CODE_FIELDS
from aclog.image.acl_table import AclTable
from aclog.image.acl_table_records import LiveColumns, records_of
from aclog.image.acls_image import AclsImage
from aclog.records.column_records import code_members
from aclog.records.enums import PatternType, ResourceType
from aclog.records.types import AccessControlEntryRecord

KEPT = 2
"""Tables whose live columns are kept: the state at the log's end and the moment a person
looks at (each about 30 bytes per ACL)."""

_MEMBER_CODES = {
    field: np.array([int(member) for member in code_members(np.arange(256), field)])
    for field in CODE_FIELDS
}
"""Per code field, the code of the member a record holds for each stored code (a code
without a member reads as ``UNKNOWN``, as the record builders map it)."""


@dataclass(frozen=True)
class AclPage:
    """``acls``: the page, in image order; ``total``: how many ACLs the filter selects."""

    total: int
    acls: list[AccessControlEntryRecord]


def acl_page_reference(acls: AclsImage, acl_filter: AclFilter, start: int, count: int) -> AclPage:
    """The ACLs ``acl_filter`` selects, ``count`` of them from the ``start``-th: the rule
    asked of every record. O(ACLs) records (none made over a mapping)."""
    if acl_filter.matches_everything:
        return AclPage(len(acls), list(islice(acls.acls.values(), start, start + count)))
    selected = [acl for acl in acls.acls.values() if acl_filter.matches(acl)]
    return AclPage(len(selected), selected[start : start + count])


def acl_page(acls: AclsImage, acl_filter: AclFilter, start: int, count: int) -> AclPage:
    """What :func:`acl_page_reference` gives, by comparing a table's columns (see the
    module); an image held in a mapping takes the reference."""
    table = acls.table
    if table is None:
        return acl_page_reference(acls, acl_filter, start, count)
    columns = _live_columns(table)
    strings = table.pool.array()
    if acl_filter.matches_everything:
        rows = np.arange(start, max(start, min(start + count, len(columns.ids[0]))))
        return AclPage(len(columns.ids[0]), records_of(strings, columns, rows))
    selected = np.flatnonzero(_exact(columns, table, acl_filter))
    if acl_filter.pattern_type == PatternType.MATCH and acl_filter.resource_name is not None:
        may_apply = selected[_may_apply(columns, table, [acl_filter.resource_name])[selected]]
        found = [acl for acl in records_of(strings, columns, may_apply) if acl_filter.matches(acl)]
        return AclPage(len(found), found[start : start + count])
    return AclPage(len(selected), records_of(strings, columns, selected[start : start + count]))


def acls_applying(
    acls: AclsImage, resources: Sequence[tuple[ResourceType, str]]
) -> list[AccessControlEntryRecord]:
    """The ACLs that apply to any of ``resources`` (those an ``AclFilter(type, name,
    MATCH)`` of one of them selects), in image order: over a table, the rows whose pattern
    could apply to one of the names (one pass for all of them, see :func:`_may_apply`),
    then the rule on their records. Cost: O(ACLs) numpy passes and a record per GLOB ACL and
    per ACL on a name or a prefix of one; over a mapping, the rule on every ACL."""
    filters = [AclFilter(rt, name, PatternType.MATCH) for rt, name in resources]
    table = acls.table
    candidates: Iterable[AccessControlEntryRecord]
    if not filters:
        return []
    if table is None:
        candidates = acls.acls.values()
    else:
        columns = _live_columns(table)
        rows = np.flatnonzero(_may_apply(columns, table, [name for _, name in resources]))
        candidates = records_of(table.pool.array(), columns, rows)
    return [acl for acl in candidates if any(f.matches(acl) for f in filters)]


def _exact(columns: LiveColumns, table: AclTable, acl_filter: AclFilter) -> Any:
    """A ``bool`` per row: whether it has every value ``acl_filter`` names exactly (all
    but a resource name asked with MATCH)."""
    rows = np.ones(len(columns.ids[0]), dtype=bool)
    pattern = acl_filter.pattern_type
    exact_pattern = pattern not in (PatternType.ANY, PatternType.MATCH)
    codes = {
        "resource_type": acl_filter.resource_type,
        "pattern_type": pattern if exact_pattern else None,
        "operation": acl_filter.operation,
        "permission_type": acl_filter.permission_type,
    }
    for at, field in enumerate(CODE_FIELDS):
        wanted = codes[field]
        if wanted is not None and wanted.name != "ANY":
            rows &= _MEMBER_CODES[field][columns.codes[at]] == int(wanted)
    name = acl_filter.resource_name if pattern != PatternType.MATCH else None
    for at, text in enumerate((name, acl_filter.principal, acl_filter.host)):
        if text is not None:
            code = table.pool.code_of(text)
            rows &= False if code is None else columns.names[at] == code
    return rows


def _may_apply(columns: LiveColumns, table: AclTable, names: Sequence[str]) -> Any:
    """A ``bool`` per row: whether its pattern could apply to a resource of ``names`` (a
    LITERAL or PREFIXED pattern is the name, ``*`` or a prefix of it; a GLOB may be
    anything): a superset that the rule then decides."""
    patterns = {name[:end] for name in names for end in range(len(name) + 1)} | {"*"}
    candidates = table.pool.known_codes(sorted(patterns))
    named = np.isin(columns.names[0], candidates[candidates >= 0])
    glob = _MEMBER_CODES["pattern_type"][columns.codes[1]] == int(PatternType.GLOB)
    result: Any = named | glob
    return result


_lock = threading.Lock()
_kept: OrderedDict[int, tuple[AclTable, LiveColumns]] = OrderedDict()


def _live_columns(table: AclTable) -> LiveColumns:
    """``table.live_columns()``, kept for the :data:`KEPT` tables most recently paged."""
    with _lock:
        kept = _kept.get(id(table))
        if kept is not None and kept[0] is table:
            _kept.move_to_end(id(table))
            return kept[1]
    columns = table.live_columns()
    with _lock:
        _kept[id(table)] = (table, columns)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return columns
