"""``split_changes`` over real segments (written by :class:`~aclog.log.SegmentedLog`, read
back by :func:`~aclog.replay.read_decoded`): each batch's additions and removals land under
the principal or resource of the ACL they add or remove, the keys kept are those with the
most changes, and the rest sum to (others), so no change is lost or counted twice."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.log import SegmentedLog
from aclog.questions import OTHERS, split_changes
from aclog.records import RemoveAccessControlEntryRecord, encode
from aclog.replay import read_decoded
from tests.acl_factory import acl_record

Plan = list[list[tuple[str, int]]]
"""Batches of steps: ("add", principal number) or ("remove", index of an earlier addition)."""


def _write(directory: Path, plan: Plan) -> list[tuple[Counter[str], Counter[str]]]:
    """Writes the plan's batches; what each batch added and removed per principal."""
    added_so_far: list[tuple[int, str]] = []
    live: set[int] = set()
    expected = []
    with SegmentedLog(directory, fsync=False) as log:
        for steps in plan:
            records, added, removed = [], Counter[str](), Counter[str]()
            for kind, n in steps:
                if kind == "add" or not live:
                    acl_id, principal = len(added_so_far) + 1, f"User:p{n}"
                    added_so_far.append((acl_id, principal))
                    live.add(acl_id)
                    records.append(acl_record(acl_id, f"t{acl_id}", principal))
                    added[principal] += 1
                else:
                    acl_id = sorted(live)[n % len(live)]
                    live.discard(acl_id)
                    records.append(RemoveAccessControlEntryRecord(acl_record(acl_id, "").id))
                    removed[added_so_far[acl_id - 1][1]] += 1
            log.append([encode(r) for r in records], 1)
            expected.append((added, removed))
    return expected


steps = st.lists(st.tuples(st.sampled_from(["add", "remove"]), st.integers(0, 9)), min_size=1,
                 max_size=8)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(plan=st.lists(steps, min_size=1, max_size=6), top=st.integers(1, 4))
def test_every_change_lands_under_its_principal_once(plan: Plan, top: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        expected = _write(Path(tmp), plan)
        split = split_changes(read_decoded(Path(tmp)), "principal", top=top)
    totals = sum((a + r for a, r in expected), Counter[str]())
    kept = [s for s in split.series if s.key != OTHERS]
    assert len(kept) == min(top, len(totals))
    assert [s.key for s in kept] == sorted(totals, key=lambda k: (-totals[k], k))[:top]
    for s in kept:
        assert s.added == [a[s.key] for a, _ in expected]
        assert s.removed == [r[s.key] for _, r in expected]
    for i, (added, removed) in enumerate(expected):  # (others) holds the rest, to the ACL
        assert sum(s.added[i] for s in split.series) == sum(added.values())
        assert sum(s.removed[i] for s in split.series) == sum(removed.values())
    assert (split.series[-1].key == OTHERS) == (len(totals) > top)


def test_a_split_by_resource_names_the_pattern(tmp_path: Path) -> None:
    _write(tmp_path, [[("add", 1), ("add", 2)], [("remove", 0)]])
    split = split_changes(read_decoded(tmp_path), "resource")
    assert {s.key: (s.added, s.removed) for s in split.series} == {
        "TOPIC:LITERAL:t1": ([1, 0], [0, 1]),
        "TOPIC:LITERAL:t2": ([1, 0], [0, 0]),
    }
