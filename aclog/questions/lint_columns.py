"""An ACL table's rows as the lint's fast path (:mod:`aclog.questions.lint_fast`) reads them:
small integer keys per row, worked out once per distinct value rather than once per ACL.

Per row: its resource type, permission and operation (normalised as the records map them), the
ids of the *spans* (:mod:`aclog.questions.coverage`) its resource pattern, principal and host
mean, whether its host is ``*``, and the operations it decides as a bit mask. A span id
indexes :attr:`LintRows.spans`; two rows share one exactly when their spans are equal. The
spans come from the very functions the reference lint calls on records, once per distinct
(pattern type, string): a million ACLs of a hundred thousand names cost a hundred thousand
calls. :func:`joined` pairs rows by equal integer keys, for candidate pairs without a Python
step per ACL.

Immutable once made; thread-safe (reads a table nobody writes). Cost: O(ACLs) numpy passes
and sorts, plus a Python step per distinct (pattern type, string) and per distinct (type,
permission, operation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclog.image.acl_table import AclTable
from aclog.questions.coverage import (
    Span,
    decided_operations,
    host_span_of,
    principal_span_of,
    resource_span_of,
)
from aclog.records import AclOperation, AclPermissionType, PatternType, ResourceType
from aclog.records.column_records import code_members

_CODES = np.arange(256)
_NORMAL = {
    field: np.array([int(m) for m in code_members(_CODES, field)], dtype=np.int64)
    for field in ("resource_type", "pattern_type", "operation", "permission_type")
}
"""Code as written -> the code of the enum member a record holds (unknown codes map to
``UNKNOWN`` as the record builders map them)."""


@dataclass(frozen=True)
class LintRows:
    """The keys of a table's live rows, in image order (see the module docstring)."""

    table: AclTable
    resource_type: Any
    permission: Any
    operation: Any
    resource: Any
    principal: Any
    host: Any
    any_host: Any
    decided: Any
    spans: list[Span]

    def __len__(self) -> int:
        return len(self.resource_type)


def lint_rows(table: AclTable) -> LintRows:
    """The keys of ``table``'s rows."""
    live, strings = table.live_columns(), table.pool.array()
    kind, pattern, operation, permission = (
        _NORMAL[field][codes]
        for field, codes in zip(
            ("resource_type", "pattern_type", "operation", "permission_type"),
            live.codes,
            strict=True,
        )
    )
    spans: dict[Span, int] = {}
    name, principal, host = live.names
    return LintRows(
        table,
        kind,
        permission,
        operation,
        _span_ids(name, pattern, strings, resource_span_of, spans),
        _span_ids(principal, pattern, strings, principal_span_of, spans),
        _span_ids(host, pattern, strings, host_span_of, spans),
        _any_host(host, strings),
        _decided_masks(permission, operation, kind),
        list(spans),
    )


def _span_ids(
    codes: Any,
    pattern: Any,
    strings: Any,
    span_of: Callable[[PatternType, str], Span],
    spans: dict[Span, int],
) -> Any:
    """Each row's span id of one string field, ``span_of`` asked once per distinct (pattern
    type, string); new spans are added to ``spans``."""
    distinct, inverse = distinct_keys(codes.astype(np.int64) * 8 + pattern)
    ids = np.array(
        [
            spans.setdefault(span_of(_PATTERNS[key % 8], strings[key // 8]), len(spans))
            for key in distinct.tolist()
        ],
        dtype=np.int64,
    )
    return ids[inverse]


_PATTERNS = {int(member): member for member in PatternType}


def _any_host(host: Any, strings: Any) -> Any:
    """Whether each row's host is ``*`` as written."""
    distinct, inverse = distinct_keys(host.astype(np.int64))
    star = np.array([strings[code] == "*" for code in distinct.tolist()], dtype=bool)
    return star[inverse]


def _decided_masks(permission: Any, operation: Any, kind: Any) -> Any:
    """Each row's decided operations (:func:`~aclog.questions.coverage.decided_operations`)
    as a bit mask: bit ``o`` set when operation code ``o`` is decided."""
    distinct, inverse = distinct_keys((permission * 16 + operation) * 8 + kind)
    masks = np.array([_mask(int(key)) for key in distinct.tolist()], dtype=np.int64)
    return masks[inverse]


def _mask(key: int) -> int:
    permission = AclPermissionType(key // 128)
    operation, kind = AclOperation(key // 8 % 16), ResourceType(key % 8)
    return sum(1 << int(op) for op in decided_operations(permission, operation, kind))


def distinct_keys(keys: Any) -> tuple[Any, Any]:
    """The distinct values of ``keys`` (non-negative integers), ascending, and each key's
    index into them, as ``np.unique`` gives: by a table as long as the largest key when that
    is small (no sort), else by ``np.unique``. Cost: O(keys + largest key), or a sort."""
    if not len(keys):
        return keys[:0], np.zeros(0, dtype=np.int64)
    top = int(keys.max())
    if top > 4 * len(keys) + (1 << 16):
        distinct, inverse = np.unique(keys, return_inverse=True)
        return distinct, inverse.reshape(-1)
    seen = np.zeros(top + 1, dtype=bool)
    seen[keys] = True
    distinct = np.flatnonzero(seen)
    place = np.zeros(top + 1, dtype=np.int64)
    place[distinct] = np.arange(len(distinct))
    return distinct, place[keys]


_CACHED = 1 << 17
"""Keys (8 bytes each) that stay in a core's caches while searched."""


def joined(home: Any, probe_rows: Any, probe_keys: Any, order: Any = None) -> tuple[Any, Any]:
    """Every (probe row, home row) pair whose keys are equal: ``home`` holds a key per row,
    ``probe_keys`` the keys each of ``probe_rows`` asks for (a row may ask several);
    ``order``: ``home``'s stable argsort, when the caller has it.
    Cost: a sort of ``home``, two searches per probe, O(pairs) to list them; the probes are
    sorted first when ``home`` outgrows the caches (searched at random, each probe would
    miss them)."""
    order = np.argsort(home, kind="stable") if order is None else order
    ordered = home[order]
    if len(home) > _CACHED:
        asked = np.argsort(probe_keys, kind="stable")
        probe_rows, probe_keys = probe_rows[asked], probe_keys[asked]
    low = np.searchsorted(ordered, probe_keys, "left")
    counts = np.searchsorted(ordered, probe_keys, "right") - low
    rows = np.repeat(probe_rows, counts)
    firsts = np.repeat(low - (np.cumsum(counts) - counts), counts)
    return rows, order[firsts + np.arange(len(rows))]


def equal_pairs(keys: Any, order: Any) -> tuple[Any, Any]:
    """Every (row, other row) pair, both ways, of two rows whose ``keys`` are equal
    (``order``: the keys' argsort). Cost: O(rows + pairs)."""
    ordered = keys[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(keys) else order
    sizes = np.diff(np.append(starts, len(keys)))
    run_start, run_size = np.repeat(starts, sizes), np.repeat(sizes, sizes)
    shared = np.flatnonzero(run_size > 1)  # places (in key order) of rows with an equal
    counts = run_size[shared]
    places = np.repeat(shared, counts)
    within = np.arange(len(places)) - np.repeat(np.cumsum(counts) - counts, counts)
    others = np.repeat(run_start[shared], counts) + within
    keep = places != others
    return order[places[keep]], order[others[keep]]
