""":func:`~aclog.image.acl_table_net.applied_net` against its reference: a run of ACL records
applied in two table applies gives the table one-by-one replay
(:class:`~aclog.image.acls.AclsDelta`) gives, and declines every run that one-by-one replay
refuses (an id or a binding stated twice, an unknown or repeated removal), including errors
that a later record of the run would hide (an ACL added over a stored id, then removed)."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import ReplayError
from aclog.image.acl_table import AclTable
from aclog.image.acl_table_net import AclRecord, applied_net, net_of
from aclog.image.acls import AclsDelta
from aclog.image.acls_image import AclsImage
from aclog.records import RemoveAccessControlEntryRecord
from tests.acl_factory import acl_record

_record = st.one_of(
    st.builds(lambda n, name: acl_record(n, f"t{name}"), st.integers(0, 9), st.integers(0, 5)),
    st.builds(lambda n: RemoveAccessControlEntryRecord(uuid.UUID(int=n)), st.integers(0, 9)),
)


def _reference(table: AclTable, records: list[AclRecord]) -> list[object] | None:
    delta = AclsDelta(AclsImage.of_table(table))
    try:
        for offset, record in enumerate(records):
            delta.replay(record, offset)
    except ReplayError:
        return None
    return list(delta.apply().acls.items())


@settings(max_examples=400, deadline=None)
@given(stored=st.lists(st.integers(0, 5), unique=True, max_size=4), run=st.lists(_record))
def test_a_run_applies_as_one_by_one_replay_or_declines(stored: list[int], run: list) -> None:
    table = AclTable.from_records([acl_record(n, f"t{n}") for n in stored])
    assert table is not None
    expected = _reference(table, run)
    applied = applied_net(table, run)
    if applied is not None:
        assert list(applied.acls.items()) == expected
    else:
        assert expected is None or net_of(run) is None or _declined_by_the_table(table, run)


def _declined_by_the_table(table: AclTable, run: list[AclRecord]) -> bool:
    """A run one-by-one replay takes but the table's check declines: a stored binding
    removed and added again (the order decides, so the caller replays it in pieces)."""
    removed = {r.id for r in run if isinstance(r, RemoveAccessControlEntryRecord)}
    stored_keys = {acl.key for acl_id, acl in table.acls.items() if acl_id in removed}
    return any(getattr(r, "key", None) in stored_keys for r in run)


def test_an_addition_over_a_stored_id_is_declined_though_the_run_removes_it_again() -> None:
    table = AclTable.from_records([acl_record(1, "t1")])
    assert table is not None
    run: list[AclRecord] = [
        acl_record(1, "other"),
        RemoveAccessControlEntryRecord(uuid.UUID(int=1)),
    ]
    assert _reference(table, run) is None
    assert applied_net(table, run) is None
