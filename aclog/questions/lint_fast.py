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
from aclog.questions.lint_columns import (
    LintRows,
    distinct_keys,
    equal_pairs,
    joined,
    lint_rows,
)
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
    redundant, never, risky = _redundant_pairs(rows), _never_pairs(rows), _risky(rows)
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


def _prefix_lists(rows: LintRows, asking: Any, homes: Any) -> tuple[Any, Any]:
    """For each span id, the PREFIXED spans of the rows ``homes`` whose text is a prefix of
    that span's name (a GLOB's literal stem; ``*``'s empty one), itself aside, then -1 (the
    GLOB and ``*`` rows), as offsets and targets; found for the spans of the rows ``asking``
    by Arrow, a prefix length at a time."""
    present = distinct_keys(rows.resource[asking])[0]
    looks = pa.array([_stem(*rows.spans[s]) for s in present.tolist()], pa.string())
    offered = distinct_keys(rows.resource[homes])[0]
    prefixed = offered[[rows.spans[s][0] == "prefix" for s in offered.tolist()]]
    heads = pa.array([rows.spans[s][1] for s in prefixed.tolist()], pa.string())
    sizes = pc.utf8_length(looks).to_numpy(zero_copy_only=False)
    owners, targets = [np.arange(len(rows.spans))], [np.full(len(rows.spans), -1)]
    for length in np.unique(pc.utf8_length(heads).to_numpy(zero_copy_only=False)).tolist():
        found = pc.index_in(pc.utf8_slice_codeunits(looks, 0, length), value_set=heads)
        at = found.to_numpy(zero_copy_only=False).astype(np.float64)
        hit = (sizes >= length) & ~np.isnan(at)
        target, mine = prefixed[at[hit].astype(np.int64)], present[hit]
        owners.append(mine[target != mine])
        targets.append(target[target != mine])
    owner, target = np.concatenate(owners), np.concatenate(targets)
    order = np.lexsort((target < 0, owner))
    counts = np.bincount(owner, minlength=len(rows.spans))
    return np.cumsum(counts) - counts, target[order]


def _stem(kind: str, text: str) -> str:
    """What a PREFIXED pattern must be a prefix of to cover a span of this kind and text."""
    if kind in ("exact", "prefix"):
        return text
    return compile_glob(text).literal_prefix if kind == "glob" else ""


def _probes(rows: LintRows, asking: Any, lists: tuple[Any, Any], wide: Any) -> tuple[Any, Any]:
    """Each of the rows ``asking`` repeated once per span of its list in ``lists``
    (:func:`_prefix_lists`), beside that span; -1 (the wide rows) only where ``wide`` (a
    flag per asking row) holds."""
    offsets, targets = lists
    spans = rows.resource[asking]
    ends = np.append(offsets[1:], len(targets))
    counts = (ends - offsets - 1)[spans] + wide
    firsts = np.repeat(offsets[spans] - (np.cumsum(counts) - counts), counts)
    return np.repeat(asking, counts), targets[firsts + np.arange(int(counts.sum()))]


def _home_resource(rows: LintRows) -> Any:
    """Each row's resource span id, -1 for GLOB and ``*`` (wide) ones."""
    wide = np.array([kind not in ("exact", "prefix") for kind, _ in rows.spans], dtype=bool)
    return np.where(wide[rows.resource], -1, rows.resource)


def _redundant_pairs(rows: LintRows) -> tuple[Any, Any]:
    """(ACL, candidate) rows: same group, a span that may cover it (the same, a PREFIXED
    prefix, a wide one), deciding at least as much."""
    size = len(rows.spans) + 1
    principal, host = (distinct_keys(ids)[1] for ids in (rows.principal, rows.host))
    first = distinct_keys((rows.resource_type * 4 + rows.permission) * size + principal)[1]
    group = distinct_keys(first * size + host)[1]
    resource = _home_resource(rows)
    home = group * size + resource + 1
    order = np.argsort(home, kind="stable")
    asking = np.flatnonzero(rows.decided != 0)
    lists = _prefix_lists(rows, asking, np.arange(len(rows)))
    # a wide row asks for the wide ones among its equals (same key), not by a probe
    wide = (resource < 0).any() & (resource[asking] >= 0)
    probe_rows, spans = _probes(rows, asking, lists, wide)
    pairs = [
        equal_pairs(home, order),
        joined(home, probe_rows, group[probe_rows] * size + spans + 1, order),
    ]
    a, b = (np.concatenate(side) for side in zip(*pairs, strict=True))
    keep = (a != b) & (rows.decided[a] & ~rows.decided[b] == 0) & (rows.decided[a] != 0)
    return a[keep], b[keep]


def _never_pairs(rows: LintRows) -> tuple[Any, Any]:
    """(ALLOW, DENY) rows: the DENY may cover the ALLOW and shares an operation with it, and
    such DENYs of the ALLOW could together take all it decides."""
    size = len(rows.spans) + 1
    exact = np.array([kind == "exact" for kind, _ in rows.spans], dtype=bool)
    named = np.where(exact[rows.principal], rows.principal, -1)  # -1: may cover any principal
    denies = np.flatnonzero(rows.permission == _DENY)
    resource = _home_resource(rows)[denies]
    home = (rows.resource_type[denies] * size + named[denies] + 1) * size + resource + 1
    allows = np.flatnonzero((rows.permission == _ALLOW) & (rows.decided != 0))
    lists = _prefix_lists(rows, allows, denies)
    probe_rows, spans = _probes(rows, allows, lists, np.full(len(allows), (resource < 0).any()))
    denied = np.zeros(len(rows.spans), dtype=bool)
    denied[resource[resource >= 0]] = True  # the DENYs' own names and PREFIXED patterns
    same = allows[denied[rows.resource[allows]]]
    probe_rows, spans = np.r_[probe_rows, same], np.r_[spans, rows.resource[same]]
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
