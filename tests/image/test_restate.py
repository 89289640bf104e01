"""A snapshot's restatement in one go gives what replaying its records one by one gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance, ReplayError
from aclog.records.enums import (
    ScramMechanism,
)
from aclog.records.types import (
    Record,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from tests.acl_factory import acl_record

# Few ids and names, so ids and bindings stated twice happen; SCRAM records (a removal of a
# credential that does not exist fails) mixed in.
_records = st.lists(
    st.one_of(
        st.builds(acl_record, st.integers(1, 30), st.integers(1, 30).map("t{}".format)),
        st.builds(
            UserScramCredentialRecord,
            st.sampled_from(["a", "b"]),
            st.sampled_from([ScramMechanism.SCRAM_SHA_256]),
            st.just(b"s"),
            st.just(b"k"),
            st.just(b"v"),
            st.just(4096),
        ),
        st.builds(
            RemoveUserScramCredentialRecord,
            st.sampled_from(["a", "b"]),
            st.just(ScramMechanism.SCRAM_SHA_256),
        ),
    ),
    max_size=25,
)


def _outcome(base: MetadataImage, records: list[Record], bulk: bool) -> object:
    delta = MetadataDelta(base, snapshot=True)
    try:
        if bulk:
            delta.replay_restated(records, 7)
        else:
            for record in records:
                delta.replay(record, 7)
    except ReplayError as error:
        return str(error)
    return delta.apply(MetadataProvenance(7, 1, 0))


@settings(max_examples=300, deadline=None)
@given(_records, _records)
def test_restating_in_one_go_equals_one_by_one(before: list[Record], records: list[Record]) -> None:
    base = _outcome(MetadataImage.EMPTY, before, bulk=False)
    if not isinstance(base, MetadataImage):
        base = MetadataImage.EMPTY
    assert _outcome(base, records, bulk=True) == _outcome(base, records, bulk=False)
    bulk = _outcome(base, records, bulk=True)
    if isinstance(bulk, MetadataImage):
        carried = bulk.acls.__dict__.get("_ids_by_binding")
        expected = {acl.key: acl_id for acl_id, acl in bulk.acls.acls.items()}
        assert carried is None or dict(carried) == expected
