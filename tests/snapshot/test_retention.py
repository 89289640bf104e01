"""Deleting log segments below a snapshot keeps everything replay needs (a real log)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from aclog.log import SegmentedLog, read_records
from aclog.log.segment import list_segments
from aclog.records import (
    AccessControlEntryRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
    decode,
    encode,
)
from aclog.snapshot import RetentionPolicy, deletable_segments, newest_valid_snapshot
from tests.snapshot.helpers import acl, scram, write

State = dict[tuple[object, ...], Record]


def _apply(state: State, record: Record) -> None:
    """The minimal replay the snapshot tests need (the image layer does the real one)."""
    if isinstance(record, AccessControlEntryRecord):
        state[("acl", record.id)] = record
    elif isinstance(record, RemoveAccessControlEntryRecord):
        del state[("acl", record.id)]
    elif isinstance(record, UserScramCredentialRecord):
        state[("scram", record.name, record.mechanism)] = record
    elif isinstance(record, RemoveUserScramCredentialRecord):
        state.pop(("scram", record.name, record.mechanism), None)


def _history(directory: Path) -> dict[int, State]:
    """Append random batches to a log of small segments; return the state after each batch."""
    rng = random.Random(5)
    state: State = {}
    after: dict[int, State] = {}
    with SegmentedLog(directory, segment_bytes=700, fsync=False) as log:
        for n in range(60):
            batch: list[Record] = []
            for _ in range(rng.randrange(1, 5)):
                live = [r for r in state.values() if isinstance(r, AccessControlEntryRecord)]
                if live and rng.random() < 0.3:
                    batch.append(RemoveAccessControlEntryRecord(rng.choice(live).id))
                elif rng.random() < 0.2:
                    batch.append(scram(f"user-{rng.randrange(5)}"))
                else:
                    batch.append(acl(n * 10 + len(batch)))
                _apply(state, batch[-1])
            result = log.append([encode(r) for r in batch], epoch=1 + n // 20)
            after[result.last_offset] = dict(state)
    assert len(list_segments(directory)) > 10
    return after


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[int, State]]:
    directory = tmp_path_factory.mktemp("history")
    return directory, _history(directory)


def test_replay_after_deletion_below_any_snapshot_rebuilds_every_later_state(
    history: tuple[Path, dict[int, State]], tmp_path: Path
) -> None:
    source, after = history
    final = after[max(after)]
    for last_offset in sorted(after):
        directory = tmp_path / str(last_offset)
        shutil.copytree(source, directory)
        write(directory, list(after[last_offset].values()), last_offset)
        bases = [base for base, _ in list_segments(directory)]
        expected = deletable_segments(bases, last_offset)
        below = RetentionPolicy(delete_log_below_snapshot=True).delete_below(last_offset)
        assert below == last_offset + 1
        with SegmentedLog(directory, fsync=False) as log:
            deleted = log.delete_segments_below(below)
            start = log.start_offset
        assert sorted(int(p.name[:20]) for p in deleted) == expected
        assert start <= last_offset + 1  # the first record replay needs is still there
        found = newest_valid_snapshot(directory, on_warning=pytest.fail, log_start_offset=start)
        assert found is not None
        for as_of in (last_offset, *[o for o in after if o > last_offset][:3], max(after)):
            state: State = {}
            for record in found[1]:
                _apply(state, record)
            for logged in read_records(directory, last_offset + 1, as_of + 1):
                _apply(state, decode(logged.value, logged.offset))
            assert state == after[as_of]
        assert state == final


def test_the_default_policy_keeps_history() -> None:
    assert RetentionPolicy().delete_below(41) is None
