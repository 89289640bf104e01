"""The lint of :mod:`aclog.questions.lint` on an ACL table's columns: the same findings, in the
same order, near-linear in the ACLs.

The reference compares each ACL with those its indexes offer, record by record: at a million
ACLs, building and ordering the records alone took longer than the whole goal. Here the
candidate pairs are found on integer keys (:mod:`aclog.questions.lint_columns`) in numpy:

- redundancy: ACLs of one (type, permission, principal span, host span) whose resource span
  is the same, a PREFIXED pattern of the other's name (or GLOB's literal stem), or a GLOB or
  ``*`` (any span that could cover it, as the reference's index offers), and that decide at
  least every operation the ACL decides;
- never deciding: DENYs of the ALLOW's type whose principal is the same or not a single one,
  whose resource span could cover it as above, sharing an operation with it, for ALLOWs whose
  operations those DENYs together could all take;
- risky grants: ALLOWs with a universal principal or resource, ALL, or a sensitive operation
  from any host.

Those pairs and rows are a superset of what the reference reports; only their records are
built, ordered in Kafka's order (:func:`aclog.acl.kafka_order`) and judged by the reference's
own functions (:func:`~aclog.questions.lint.makes_redundant`,
:func:`~aclog.questions.lint.never_decides`, :func:`~aclog.questions.risky.risks_of`), so
each rule has one definition. The contract test holds this equal to the reference.

Pure; thread-safe. Cost: O(ACLs) numpy passes and sorts, O(candidate pairs) to list them,
plus records and a Python step only for the ACLs and pairs that survive the filters.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from aclog.acl import compile_glob, kafka_order
from aclog.image.acl_table import AclTable
from aclog.questions.coverage import is_universal
from aclog.questions.findings import Finding
from aclog.questions.lint import lint_acls, makes_redundant, never_decides, redundant_finding
from aclog.questions.lint_columns import LintRows, distinct_keys, joined, lint_rows
from aclog.questions.risky import is_sensitive_operation, risks_of
from aclog.records import AccessControlEntryRecord, AclOperation, AclPermissionType, ResourceType

_ALLOW, _DENY = int(AclPermissionType.ALLOW), int(AclPermissionType.DENY)


def lint_records(acls: Sequence[AccessControlEntryRecord]) -> list[Finding]:
    """:func:`~aclog.questions.lint.lint_acls` of ``acls`` on a table of them (the reference
    itself when an id or a binding appears twice, which no image holds)."""
    table = AclTable.from_records(acls)
    return lint_acls(acls) if table is None else lint_table(table)


def lint_table(table: AclTable) -> list[Finding]:
    """Every finding :func:`~aclog.questions.lint.lint_acls` makes of ``table``'s ACLs, in
    its order (see the module docstring)."""
    rows = lint_rows(table)
    covers = _cover_lists(rows)
    redundant, never, risky = (
        _redundant_pairs(rows, covers),
        _never_pairs(rows, covers),
        _risky(rows),
    )
    involved = np.unique(np.concatenate([*redundant, *never, risky]))
    records = table.records_at(involved)
    ranks = {id(acl): at for at, acl in enumerate(kafka_order(records))}
    rank = np.full(len(rows), -1, dtype=np.int64)
    rank[involved] = [ranks[id(acl)] for acl in records]
    record = dict(zip(involved.tolist(), records, strict=True))
    found = [redundant_finding(record[a], b) for a, b in _firsts(redundant, rank, record)]
    for a, denies in _grouped(never, rank):
        finding = never_decides(record[a], [record[d] for d in denies])
        found += [] if finding is None else [finding]
    for a in risky[np.argsort(rank[risky])].tolist():
        found += risks_of(record[a])
    return found


def _cover_lists(rows: LintRows) -> tuple[Any, Any]:
    """For each span id, the resource span ids whose rows may cover a row of that span, then
    -1 (every GLOB or ``*`` row), as offsets and targets: the span itself when a name or
    PREFIXED, and each PREFIXED span of a prefix of its name (a GLOB's literal stem; ``*``'s
    empty one), found by Arrow a prefix length at a time."""
    present = distinct_keys(rows.resource)[0]
    spans = [rows.spans[s] for s in present.tolist()]
    narrow = np.array([kind in ("exact", "prefix") for kind, _ in spans], dtype=bool)
    looks = pa.array([_stem(kind, text) for kind, text in spans], pa.string())
    prefixed = np.array([kind == "prefix" for kind, _ in spans], dtype=bool)
    heads = pa.array([text for kind, text in spans if kind == "prefix"], pa.string())
    sizes = pc.utf8_length(looks).to_numpy(zero_copy_only=False)
    owners, targets = [present[narrow]], [present[narrow]]
    for length in np.unique(pc.utf8_length(heads).to_numpy(zero_copy_only=False)).tolist():
        found = pc.index_in(pc.utf8_slice_codeunits(looks, 0, length), value_set=heads)
        at = found.to_numpy(zero_copy_only=False).astype(np.float64)
        hit = (sizes >= length) & ~np.isnan(at)
        target = present[prefixed][at[hit].astype(np.int64)]
        mine = present[hit]
        owners.append(mine[target != mine])
        targets.append(target[target != mine])
    owner = np.concatenate([*owners, np.arange(len(rows.spans))])
    target = np.concatenate([*targets, np.full(len(rows.spans), -1)])
    order = np.lexsort((target < 0, owner))
    counts = np.bincount(owner, minlength=len(rows.spans))
    return np.cumsum(counts) - counts, target[order]


def _stem(kind: str, text: str) -> str:
    """What a PREFIXED pattern must be a prefix of to cover a span of this kind and text."""
    if kind in ("exact", "prefix"):
        return text
    return compile_glob(text).literal_prefix if kind == "glob" else ""


def _probes(rows: LintRows, asking: Any, covers: tuple[Any, Any], wide: bool) -> tuple[Any, Any]:
    """Each of the rows ``asking`` repeated once per resource span that may cover it, beside
    that span (-1 for the wide ones, when ``wide``: some row that may cover is wide)."""
    offsets, targets = covers
    spans = rows.resource[asking]
    ends = np.append(offsets[1:], len(targets))
    counts = (ends - offsets - (0 if wide else 1))[spans]
    firsts = np.repeat(offsets[spans] - (np.cumsum(counts) - counts), counts)
    return np.repeat(asking, counts), targets[firsts + np.arange(int(counts.sum()))]


def _home_resource(rows: LintRows) -> Any:
    """Each row's resource span id, -1 for GLOB and ``*`` (wide) ones."""
    wide = np.array([kind not in ("exact", "prefix") for kind, _ in rows.spans], dtype=bool)
    return np.where(wide[rows.resource], -1, rows.resource)


def _redundant_pairs(rows: LintRows, covers: tuple[Any, Any]) -> tuple[Any, Any]:
    """(ACL, candidate) rows: same group, a span that may cover it, deciding at least as
    much."""
    size = len(rows.spans) + 1
    first = distinct_keys((rows.resource_type * 4 + rows.permission) * size + rows.principal)[1]
    group = distinct_keys(first * size + rows.host)[1]
    resource = _home_resource(rows)
    asking = np.flatnonzero(rows.decided != 0)
    probe_rows, spans = _probes(rows, asking, covers, bool((resource < 0).any()))
    home = group * size + resource + 1
    a, b = joined(home, probe_rows, group[probe_rows] * size + spans + 1)
    keep = (a != b) & (rows.decided[a] & ~rows.decided[b] == 0)
    return a[keep], b[keep]


def _never_pairs(rows: LintRows, covers: tuple[Any, Any]) -> tuple[Any, Any]:
    """(ALLOW, DENY) rows: the DENY may cover the ALLOW and shares an operation with it, and
    such DENYs of the ALLOW could together take all it decides."""
    size = len(rows.spans) + 1
    exact = np.array([kind == "exact" for kind, _ in rows.spans], dtype=bool)
    named = np.where(exact[rows.principal], rows.principal, -1)  # -1: may cover any principal
    denies = np.flatnonzero(rows.permission == _DENY)
    resource = _home_resource(rows)[denies]
    home = (rows.resource_type[denies] * size + named[denies] + 1) * size + resource + 1
    allows = np.flatnonzero((rows.permission == _ALLOW) & (rows.decided != 0))
    probe_rows, spans = _probes(rows, allows, covers, bool((resource < 0).any()))
    own = named[probe_rows] >= 0  # a DENY naming the ALLOW's principal, or a wide one
    principals = named[probe_rows[own]]
    if (named[denies] < 0).any():
        principals = np.concatenate([principals, np.full(len(probe_rows), -1)])
        probe_rows, spans = np.concatenate([probe_rows[own], probe_rows]), np.r_[spans[own], spans]
    else:
        probe_rows, spans = probe_rows[own], spans[own]
    keys = (rows.resource_type[probe_rows] * size + principals + 1) * size + spans + 1
    a, at = joined(home, probe_rows, keys)
    d = denies[at]
    keep = rows.decided[a] & rows.decided[d] != 0
    return _could_take_all(rows, a[keep], d[keep])


def _could_take_all(rows: LintRows, a: Any, d: Any) -> tuple[Any, Any]:
    """The pairs of ``a`` whose DENYs together decide every operation ``a`` decides."""
    if not len(a):
        return a, d
    order = np.argsort(a, kind="stable")
    a, d = a[order], d[order]
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    taken = np.bitwise_or.reduceat(rows.decided[d], starts)
    whole = rows.decided[a[starts]] & ~taken == 0
    keep = np.repeat(whole, np.diff(np.append(starts, len(a))))
    return a[keep], d[keep]


def _risky(rows: LintRows) -> Any:
    """The ALLOW rows a risky-grant rule may flag."""
    universal = np.array([is_universal(span) for span in rows.spans], dtype=bool)
    distinct, inverse = distinct_keys(rows.operation * 8 + rows.resource_type)
    sensitive = np.array(
        [
            is_sensitive_operation(AclOperation(k // 8), ResourceType(k % 8))
            for k in distinct.tolist()
        ],
        dtype=bool,
    )[inverse]
    flagged = universal[rows.principal] | universal[rows.resource]
    flagged |= (rows.operation == int(AclOperation.ALL)) | (sensitive & rows.any_host)
    return np.flatnonzero(flagged & (rows.permission == _ALLOW))


def _grouped(pairs: tuple[Any, Any], rank: Any) -> Iterator[tuple[int, list[int]]]:
    """Each first row of ``pairs`` in Kafka's order, with its second rows in that order."""
    a, b = pairs
    order = np.lexsort((rank[b], rank[a]))
    a, b = a[order].tolist(), b[order].tolist()
    start = 0
    for end in range(1, len(a) + 1):
        if end == len(a) or a[end] != a[start]:
            yield a[start], b[start:end]
            start = end


def _firsts(
    pairs: tuple[Any, Any], rank: Any, record: dict[int, AccessControlEntryRecord]
) -> Iterator[tuple[int, AccessControlEntryRecord]]:
    """Each ACL of ``pairs`` in Kafka's order with the first candidate (in that order) that
    makes it redundant, when one does."""
    for a, candidates in _grouped(pairs, rank):
        acl = record[a]
        for b in candidates:
            if makes_redundant(record[b], acl, later=bool(rank[b] > rank[a])):
                yield a, record[b]
                break
