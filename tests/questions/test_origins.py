"""``AclOrigins`` over batches read back from real segments: each ACL id maps to the batch
that added it, whatever its bytes (leading or trailing zero bytes too), lookups between
additions see every batch fed so far, and an id never added is ``None``."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.log import SegmentedLog
from aclog.questions import AclOrigins
from aclog.records import encode
from aclog.replay import read_decoded
from tests.acl_factory import acl_record

ids = st.one_of(
    st.uuids(),
    st.integers(0, 2**16).map(lambda n: uuid.UUID(int=n)),  # leading zero bytes
    st.integers(1, 2**16).map(lambda n: uuid.UUID(int=n << 100)),  # trailing zero bytes
)


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(st.lists(ids, min_size=1, max_size=5), min_size=1, max_size=6),
       strangers=st.lists(st.uuids(), max_size=3))  # fmt: skip
def test_each_id_maps_to_the_batch_that_added_it(
    batches: list[list[uuid.UUID]], strangers: list[uuid.UUID]
) -> None:
    added: dict[uuid.UUID, int] = {}
    origins = AclOrigins()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for acl_ids in batches:
            fresh = [i for i in dict.fromkeys(acl_ids) if i not in added]
            if not fresh:
                continue
            with SegmentedLog(directory, fsync=False) as log:
                base = log.end_offset
                log.append([encode(acl_record(i, "t")) for i in fresh], 1)
            added.update((i, base) for i in fresh)
            for batch in read_decoded(directory, base):
                origins.add(batch)
            for acl_id, offset in added.items():  # a lookup between additions
                assert origins.origin_of(acl_id) == offset
    assert len(origins) == len(added)
    for stranger in strangers:
        if stranger not in added:
            assert origins.origin_of(stranger) is None
