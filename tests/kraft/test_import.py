"""``aclog import --from-kraft``: the aclog log it writes decodes to the KRaft records, in order,
with their epochs and timestamps; bad input and bad targets fail cleanly."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import aclog.tools.kraft_import  # noqa: F401  (registers the command until main.py does)
from aclog.controller import RecordAdmission
from aclog.image.metadata import MetadataImage
from aclog.image.metadata_delta import MetadataDelta
from aclog.image.provenance import MetadataProvenance
from aclog.kraft import (
    BatchPosition,
    SnapshotPosition,
    import_kraft,
    position_of,
)
from aclog.kraft.encoding import encode_record, frame
from aclog.kraft.writer import LogBuilder, write_checkpoint
from aclog.records import NoOpRecord, RequestContextRecord
from aclog.replay.kraft_stream import kraft_decoded_batches, kraft_replay_decoded
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import DecodedBatch, Entry, entries_between, read_decoded
from aclog.tools.main import app
from tests.kraft.layout import ACL_B, BOB, Layout, build_layout, kraft_records_for_replay

runner = CliRunner()


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return build_layout(tmp_path / "kraft" / "__cluster_metadata-0")


def _changes(batches: Iterable[DecodedBatch]) -> list[Entry]:
    """The imported records, without the request contexts that say where they came from."""
    return [e for e in entries_between(batches) if not isinstance(e.record, RequestContextRecord)]


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_import_preserves_records_order_epochs_and_timestamps(
    layout: Layout, tmp_path: Path
) -> None:
    target = tmp_path / "aclog"
    code, stdout, stderr = run(
        "import", "--from-kraft", str(layout.directory), "--data-dir", str(target), "--json"
    )
    assert code == 0, stderr
    _, kraft = kraft_records_for_replay(layout.directory)
    expected = list(kraft)
    batches = list(read_decoded(target))
    entries = _changes(batches)
    assert [e.record for e in entries] == [r.record for r in expected]
    assert [(e.epoch, e.timestamp_ms) for e in entries] == [
        (r.epoch, r.timestamp_ms) for r in expected
    ]
    # one aclog batch per KRaft batch holding aclog records: the snapshot, then 13..14, 15, 16..17,
    # each opened by a request context naming its KRaft position (the requester is unknown)
    assert [len(b.entries) for b in batches] == [2, 3, 2, 3]
    assert [position_of(b.author) for b in batches] == [
        SnapshotPosition("00000000000000000013-0000000002.checkpoint", 0, 0, 1),
        BatchPosition(13, 14, 2),
        BatchPosition(15, 15, 3),
        BatchPosition(16, 17, 3),
    ]
    assert all(b.author is not None and b.author.principal == "unknown" for b in batches)
    assert all(b.author.client_address == str(layout.directory) for b in batches)  # type: ignore[union-attr]
    report = json.loads(stdout)
    assert report["snapshot"]["end_offset"] == 13
    assert report["records_written"] == len(expected) == 6
    assert report["kraft_next_offset"] == 18
    assert report["aclog_end_offset"] == 10  # 6 records and 4 request contexts
    assert report["skipped"] == {  # the snapshot's; the log after it holds only aclog records
        "FeatureLevelRecord": 1,
        "RegisterBrokerRecord": 1,
        "TopicRecord": 1,
    }
    assert report["records_by_type"]["AccessControlEntryRecord"] == 3


def test_imported_state_equals_the_kraft_state(layout: Layout, tmp_path: Path) -> None:
    target = tmp_path / "aclog"
    assert run("import", "--from-kraft", str(layout.directory), "--data-dir", str(target))[0] == 0
    image = rebuild_image(target).image
    delta = MetadataDelta(MetadataImage.EMPTY)
    for offset, _, _, record in layout.log_records:
        delta.replay(record, offset)
    kraft_state = delta.apply(MetadataProvenance(17, 3, 0))
    assert image.acls.acls == kraft_state.acls.acls
    assert image.scram == kraft_state.scram


def test_import_of_a_full_log_without_snapshot_and_skip_noop(
    layout: Layout, tmp_path: Path
) -> None:
    assert layout.checkpoint is not None
    layout.checkpoint.unlink()
    target = tmp_path / "aclog"
    code, stdout, stderr = run(
        "import",
        "--from-kraft",
        str(layout.directory),
        "--data-dir",
        str(target),
        "--skip-noop",
        "--json",
    )
    assert code == 0, stderr
    records = [e.record for e in _changes(read_decoded(target))]
    assert records == [r[3] for r in layout.log_records if not isinstance(r[3], NoOpRecord)]
    assert json.loads(stdout)["snapshot"] is None


def test_import_of_one_checkpoint_file(layout: Layout, tmp_path: Path) -> None:
    target = tmp_path / "aclog"
    code, _, stderr = run(
        "import", "--from-kraft", str(layout.checkpoint), "--data-dir", str(target)
    )
    assert code == 0, stderr
    (batch,) = read_decoded(target)
    assert [e.record for e in _changes([batch])] == [ACL_B]
    assert (batch.epoch, batch.timestamp_ms) == (2, layout.checkpoint_timestamp)


def test_text_report(layout: Layout, tmp_path: Path) -> None:
    code, stdout, _ = run(
        "import", "--from-kraft", str(layout.directory), "--data-dir", str(tmp_path / "n")
    )
    assert code == 0
    assert "snapshot 00000000000000000013-0000000002.checkpoint: 1 records" in stdout
    assert "wrote 6 records in 4 batches" in stdout


def test_refuses_a_non_empty_target(layout: Layout, tmp_path: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    code, _, stderr = run(
        "import", "--from-kraft", str(layout.directory), "--data-dir", str(target)
    )
    assert code == 2
    assert "not empty" in stderr
    assert os.listdir(target) == ["keep.txt"]


def test_refuses_a_target_inside_the_kraft_directory(layout: Layout) -> None:
    before = sorted(os.listdir(layout.directory))
    code, _, stderr = run(
        "import",
        "--from-kraft",
        str(layout.directory),
        "--data-dir",
        str(layout.directory / "out"),
    )
    assert code == 2
    assert "never writes there" in stderr
    assert sorted(os.listdir(layout.directory)) == before


@pytest.mark.parametrize("target_exists", [False, True])
def test_a_newer_record_version_fails_clearly_and_leaves_no_output(
    tmp_path: Path, target_exists: bool
) -> None:
    source = tmp_path / "__cluster_metadata-0"
    log = LogBuilder(source)
    log.records([ACL_B, BOB], epoch=1, timestamp_ms=5)
    log.data([frame(18, 1) + encode_record(ACL_B)[3:]], epoch=1, timestamp_ms=6)
    segment = log.flush()
    target = tmp_path / "aclog"
    if target_exists:
        target.mkdir()
    code, _, stderr = run("import", "--from-kraft", str(source), "--data-dir", str(target))
    assert code == 1
    message = " ".join(stderr.split())
    assert str(segment) in message
    assert "offset 2" in message and "api key 18" in message and "version 1" in message
    assert (os.listdir(target) == []) if target_exists else not target.exists()


def test_usage_errors(tmp_path: Path) -> None:
    code, _, stderr = run(
        "import", "--from-kraft", str(tmp_path / "nope"), "--data-dir", str(tmp_path / "x")
    )
    assert code == 2 and "no such file" in stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, stderr = run("import", "--from-kraft", str(empty), "--data-dir", str(tmp_path / "x"))
    assert code == 2 and "no KRaft segments" in stderr


def test_decoded_stream_adapters(layout: Layout) -> None:
    batches = list(kraft_decoded_batches(layout.directory))
    assert [(e.offset, e.record) for b in batches for e in b.entries] == [
        (r[0], r[3]) for r in layout.log_records
    ]
    assert batches[0].entries[0].type_name == "LeaderChangeRecord"
    (snapshot,) = kraft_decoded_batches(layout.checkpoint)  # type: ignore[arg-type]
    assert [e.record for e in snapshot.entries] == [ACL_B]
    segment = list(kraft_decoded_batches(layout.segments[1]))
    assert [b.base_offset for b in segment] == [8, 9, 11]
    info, decoded = kraft_replay_decoded(layout.directory, at_offset=14)
    assert info is not None
    assert [e.offset for b in decoded for e in b.entries] == [12, 13, 14]


def test_bootstrap_snapshot_records_come_before_the_log(tmp_path: Path) -> None:
    source = tmp_path / "__cluster_metadata-0"
    source.mkdir()
    write_checkpoint(source, 0, 0, [encode_record(BOB)], 1)
    log = LogBuilder(source)
    log.records([ACL_B], epoch=1, timestamp_ms=5)
    log.flush()
    target = tmp_path / "aclog"
    assert run("import", "--from-kraft", str(source), "--data-dir", str(target))[0] == 0
    assert [e.record for e in _changes(read_decoded(target))] == [BOB, ACL_B]


def test_the_json_report_is_the_library_report_with_skipped_types_by_name(
    layout: Layout, tmp_path: Path
) -> None:
    code, stdout, stderr = run(
        "import", "--from-kraft", str(layout.directory), "--data-dir", str(tmp_path / "cli"),
        "--json",
    )  # fmt: skip
    assert code == 0, stderr
    printed = json.loads(stdout)
    # the snapshot's skipped records are counted by type name, as the report's own are: JSON
    # object keys that say what they count, not api keys turned into strings
    assert (
        printed["snapshot"]["skipped"]
        == printed["skipped"]
        == {
            "FeatureLevelRecord": 1,
            "RegisterBrokerRecord": 1,
            "TopicRecord": 1,
        }
    )
    admission = RecordAdmission(MetadataImage.EMPTY)
    library = import_kraft(layout.directory, tmp_path / "library", admission=admission).to_dict()
    for report in (printed, library):
        report.pop("data_dir")
    assert printed == library
