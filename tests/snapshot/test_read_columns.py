"""A snapshot read as columns (``read_columns``, ``newest_valid_contents``): the ACL table built
from its chunks holds the ACLs ``read_all`` gives, in order, and every damage is refused with the
error ``read_all`` gives."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.image.acl_table import AclTable
from aclog.records import AccessControlEntryRecord, Record
from aclog.snapshot import (
    SnapshotContents,
    SnapshotCorruptError,
    SnapshotError,
    newest_valid_contents,
    newest_valid_snapshot,
    read_snapshot,
)
from aclog.snapshot import reader as reader_module
from aclog.snapshot import writer as writer_module
from aclog.snapshot.acl_columns import ACL_COLUMNS_SCHEMA, CHUNK_ACLS, encode_chunk
from aclog.snapshot.header import finish_header
from aclog.snapshot.schema import SNAPSHOT_SCHEMA
from tests.snapshot.helpers import (
    NEW,
    OLD,
    SMALL,
    acl,
    acl_records,
    damage,
    scram,
    scram_records,
    write,
)

_ACL = "AccessControlEntryRecord"


def _acls(records: Iterable[Record]) -> list[AccessControlEntryRecord]:
    return [r for r in records if isinstance(r, AccessControlEntryRecord)]


def _others(records: Iterable[Record]) -> list[Record]:
    return [r for r in records if not isinstance(r, AccessControlEntryRecord)]


def _table_acls(contents: SnapshotContents) -> list[AccessControlEntryRecord]:
    """The snapshot's ACLs as a loader gets them: the table of its chunks, then its ACL rows."""
    table = AclTable.from_chunks(contents.chunks)
    assert table is not None
    return [*table.records(), *contents.acl_rows]


def _assert_same_contents(path: Path) -> SnapshotContents:
    records = read_snapshot(path).read_all()
    contents = read_snapshot(path).read_columns()
    assert _table_acls(contents) == _acls(records)
    assert list(contents.others) == _others(records)
    assert contents.acl_count == len(_acls(records))
    return contents


@st.composite
def _loadable(draw: st.DrawFn) -> list[Record]:
    """Snapshot records whose ACLs a table holds: no id and no binding twice (an image never
    holds either twice; the table refuses them)."""
    acls = draw(st.lists(acl_records, max_size=40, unique_by=(lambda a: a.id, lambda a: a.key)))
    scrams = draw(st.lists(scram_records, max_size=6))
    return draw(st.permutations([*acls, *scrams]))


@settings(max_examples=40, deadline=None)
@given(records=_loadable())
def test_the_table_of_the_chunks_holds_the_acls_read_all_gives(records: list[Record]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rows = _assert_same_contents(write(Path(tmp), records, last_offset=1, rows=True).path)
        columns = _assert_same_contents(write(Path(tmp), records, last_offset=2).path)
    assert rows.chunks == () and list(rows.acl_rows) == _acls(records)
    assert columns.acl_rows == () and columns.acl_count == len(_acls(records))
    assert list(rows.others) == list(columns.others) == _others(records)


@pytest.mark.parametrize("rows", [False, True])
def test_long_runs_of_acls_keep_their_order_across_chunks(rows: bool, tmp_path: Path) -> None:
    records: list[Record] = [
        *(acl(n) for n in range(2 * CHUNK_ACLS + 5)),
        scram("alice"),
        *(acl(n, "late") for n in range(2 * CHUNK_ACLS + 5, 2 * CHUNK_ACLS + 8)),
        scram("bob"),
    ]
    contents = _assert_same_contents(write(tmp_path, records, last_offset=9, rows=rows).path)
    assert len(contents.chunks) == (0 if rows else 4)
    assert contents.others == (scram("alice"), scram("bob"))


@pytest.mark.parametrize("rows", [False, True])
def test_an_empty_snapshot_has_no_contents(rows: bool, tmp_path: Path) -> None:
    info = write(tmp_path, [], last_offset=3, rows=rows)
    assert read_snapshot(info.path).read_columns() == SnapshotContents((), (), ())
    assert AclTable.from_chunks(()) is not None


def test_acls_only_and_scram_only_snapshots(tmp_path: Path) -> None:
    assert _assert_same_contents(write(tmp_path, SMALL[:9], last_offset=1).path).others == ()
    contents = _assert_same_contents(write(tmp_path, SMALL[9:], last_offset=2).path)
    assert (contents.chunks, contents.acl_rows) == ((), ())


@pytest.mark.parametrize("format_version", ["1", "2"])
def test_golden_snapshots_read_as_columns(format_version: str, tmp_path: Path) -> None:
    golden = Path(__file__).parent / "golden" / f"format-{format_version}-small.snapshot.avro"
    path = tmp_path / "00000000000000000041-0000000003.snapshot.avro"
    path.write_bytes(golden.read_bytes())
    contents = _assert_same_contents(path)
    assert [*_table_acls(contents), *contents.others] == SMALL


@pytest.mark.parametrize("rows", [False, True])
def test_older_schema_versions_are_resolved(
    rows: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records: list[Record] = [acl(i) if i % 3 else scram(f"user-{i}") for i in range(600)]
    info = write(tmp_path, records, last_offset=5, rows=rows)
    monkeypatch.setattr(reader_module, "current_schema_versions", lambda: {"older": 0})
    _assert_same_contents(info.path)


def _write_mixed(write_item: Callable[[Any], None], records: Iterable[Record], counts: Any) -> None:
    """A writer that aclog never had: runs of three ACLs, alternately rows and a chunk."""
    acls: list[AccessControlEntryRecord] = []
    for record in records:
        if isinstance(record, AccessControlEntryRecord):
            acls.append(record)
            continue
        writer_module._write_row(write_item, record, counts)
    for start in range(0, len(acls), 3):
        run = acls[start : start + 3]
        if start // 3 % 2:
            write_item((writer_module.COLUMNS_NAME, encode_chunk(run)))
            counts[_ACL] += len(run)
        else:
            for row in run:
                writer_module._write_row(write_item, row, counts)


def test_acl_rows_beside_chunks_become_chunks_in_file_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "COLUMN_SCHEMA", [ACL_COLUMNS_SCHEMA, *SNAPSHOT_SCHEMA])
    monkeypatch.setattr(writer_module, "_write_columns", _write_mixed)
    records: list[Record] = [scram("alice"), *(acl(n) for n in range(14))]
    info = write(tmp_path, records, last_offset=4)
    monkeypatch.undo()
    contents = _assert_same_contents(info.path)
    assert contents.acl_rows == ()
    assert [c.count for c in contents.chunks] == [3, 3, 3, 3, 2]
    assert _table_acls(contents) == _acls(records)


# -- damage: read_columns refuses exactly what read_all refuses, with the same error ------------


def _error(read: Callable[[], object]) -> tuple[type[SnapshotError], Path, str]:
    with pytest.raises(SnapshotCorruptError) as caught:
        read()
    return type(caught.value), caught.value.path, caught.value.reason


def _same_error(path: Path) -> str:
    """The reason both reads give for the file at ``path`` (each verifying it anew)."""
    by_records = _error(lambda: read_snapshot(path).read_all())
    by_columns = _error(lambda: read_snapshot(path).read_columns())
    assert by_columns == by_records
    assert by_columns[1] == path
    return by_columns[2]


@pytest.fixture(scope="module")
def small_snapshot(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return write(tmp_path_factory.mktemp("small"), SMALL, last_offset=41).path.read_bytes()


def test_truncation_anywhere_gives_the_same_error(small_snapshot: bytes, tmp_path: Path) -> None:
    # Every fifth length (test_integrity cuts at every one, for the shared verification).
    path = tmp_path / "cut.avro"
    for length in range(0, len(small_snapshot), 5):
        path.write_bytes(small_snapshot[:length])
        _same_error(path)


def test_a_flipped_byte_anywhere_gives_the_same_error(
    small_snapshot: bytes, tmp_path: Path
) -> None:
    rng = random.Random(24)
    path = tmp_path / "flipped.avro"
    for position in range(rng.randrange(5), len(small_snapshot), 5):
        damaged = bytearray(small_snapshot)
        damaged[position] ^= rng.randrange(1, 0x100)
        path.write_bytes(damaged)
        _same_error(path)


@pytest.mark.parametrize(
    ("name", "more"), [(_ACL, 1), (_ACL, -1), ("UserScramCredentialRecord", 1)]
)
def test_a_header_whose_counts_lie_gives_the_same_error(
    name: str, more: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def lying(
        header: bytes, counts: Mapping[str, int], data_bytes: int, data_crc: int
    ) -> tuple[bytes, int]:
        return finish_header(header, {**counts, name: counts[name] + more}, data_bytes, data_crc)

    monkeypatch.setattr(writer_module, "finish_header", lying)
    info = write(tmp_path, SMALL, last_offset=7)
    held = info.record_counts[name]  # what the writer counted, not what it wrote down
    said = held + more
    assert _same_error(info.path) == f"it holds {held} {name} records, its header says {said}"


def test_a_file_replaced_after_verification_gives_the_same_error(tmp_path: Path) -> None:
    info = write(tmp_path, SMALL, last_offset=7)
    reader = read_snapshot(info.path)
    write(tmp_path, SMALL[:3], last_offset=7)  # same name, new file (rename over it)
    by_records = _error(reader.read_all)
    assert _error(reader.read_columns) == by_records
    assert by_records[2] == "the file changed after it was verified"


def _utf8_broken(fields: dict[str, Any]) -> dict[str, Any]:
    return {**fields, "strings": b"\xff" + fields["strings"][1:]}


# A writer bug the checksum cannot see: chunks whose columns do not fit together.
_BAD_CHUNKS: list[tuple[Callable[[dict[str, Any]], dict[str, Any]], str]] = [
    (lambda f: {**f, "count": f["count"] + 1}, "column id holds"),
    (lambda f: {**f, "id": f["id"][:-1]}, "column id holds"),
    (lambda f: {**f, "operation": f["operation"][1:]}, "column operation holds"),
    (lambda f: {**f, "principal": f["principal"][:-1]}, "column principal holds"),
    (lambda f: {**f, "host": b"\xff\xff\xff\xff" * f["count"]}, "column host indexes past"),
    (lambda f: {**f, "string_count": f["string_count"] + 1}, "strings, its header says"),
    (lambda f: {**f, "strings": b"x"}, "holds 1 strings, its header says"),
    (lambda f: {**f, "separator": ""}, "separator is '', not one character"),
    (lambda f: {**f, "separator": "ab"}, "separator is 'ab', not one character"),
    (_utf8_broken, ""),  # the two decoders word it differently
]


def _write_bad_chunk(
    directory: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[dict[str, Any]], dict[str, Any]],
    last_offset: int = 7,
) -> Path:
    """SMALL written with its chunk changed by ``change``; the checksum is right."""
    monkeypatch.setattr(writer_module, "encode_chunk", lambda acls: change(encode_chunk(acls)))
    info = write(directory, SMALL, last_offset=last_offset)
    monkeypatch.undo()
    return info.path


@pytest.mark.parametrize(("change", "error"), _BAD_CHUNKS)
def test_a_chunk_that_does_not_decode_gives_the_same_error(
    change: Callable[[dict[str, Any]], dict[str, Any]],
    error: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _write_bad_chunk(tmp_path, monkeypatch, change)
    by_records = _error(lambda: read_snapshot(path).read_all())
    by_columns = _error(lambda: read_snapshot(path).read_columns())
    assert by_columns[:2] == by_records[:2] == (SnapshotCorruptError, path)
    for reason in (by_records[2], by_columns[2]):
        assert reason.startswith("a record cannot be decoded")
        assert error in reason


# -- selection: newest_valid_contents chooses exactly as newest_valid_snapshot --------------------


def _both_choose(directory: Path, **options: Any) -> SnapshotContents | None:
    """Both selections over ``directory``: the same snapshot, warnings and errors; the
    contents chosen (checked equal to the records chosen)."""
    outcomes = []
    for choose in (newest_valid_snapshot, newest_valid_contents):
        warnings: list[str] = []
        try:
            found: Any = choose(directory, on_warning=warnings.append, **options)
        except SnapshotError as error:
            found = (type(error), str(error))
        outcomes.append((found, warnings))
    (by_records, records_warnings), (by_columns, columns_warnings) = outcomes
    assert columns_warnings == records_warnings
    if by_records is None or not isinstance(by_records[1], list):
        assert by_columns == by_records
        return None
    assert by_columns[0] == by_records[0]
    assert _table_acls(by_columns[1]) == _acls(by_records[1])
    assert list(by_columns[1].others) == _others(by_records[1])
    return by_columns[1]  # type: ignore[no-any-return]


def test_both_choose_the_newest_snapshot(tmp_path: Path) -> None:
    write(tmp_path, OLD, last_offset=10)
    write(tmp_path, NEW, last_offset=20, epoch=2)
    contents = _both_choose(tmp_path)
    assert contents is not None and contents.others == (scram("alice"), scram("bob"))
    assert _both_choose(tmp_path, at_or_below=19) is not None
    assert _both_choose(tmp_path, at_or_below=9) is None
    assert _both_choose(tmp_path, at_time_ms=1_700_000_000_015) is not None


def test_both_fall_back_past_a_damaged_snapshot(tmp_path: Path) -> None:
    write(tmp_path, OLD, last_offset=10)
    damage(write(tmp_path, NEW, last_offset=20, epoch=2).path)
    contents = _both_choose(tmp_path)
    assert contents is not None and contents.others == (scram("alice"),)


@pytest.mark.parametrize("change", [change for change, _ in _BAD_CHUNKS])
def test_a_snapshot_whose_chunk_does_not_decode_is_skipped(
    change: Callable[[dict[str, Any]], dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    older = write(tmp_path, OLD, last_offset=5)
    bad = _write_bad_chunk(tmp_path, monkeypatch, change, last_offset=20)
    warnings: list[str] = []
    found = newest_valid_contents(tmp_path, on_warning=warnings.append)
    assert found is not None and found[0] == older
    assert len(warnings) == 1 and str(bad) in warnings[0]
    assert "a record cannot be decoded" in warnings[0]
    assert f"loading snapshot {older.path.name} instead" in warnings[0]
    if change is not _utf8_broken:  # the one error the two decoders word differently
        assert _both_choose(tmp_path) is not None


def test_both_refuse_when_no_snapshot_serves_the_log_start(tmp_path: Path) -> None:
    write(tmp_path, OLD, last_offset=10)
    newest = write(tmp_path, NEW, last_offset=20)
    damage(newest.path)
    assert _both_choose(tmp_path, log_start_offset=21) is None  # both raise the same error
    with pytest.raises(SnapshotError, match="its log starts at offset 21"):
        newest_valid_contents(tmp_path, on_warning=pytest.fail, log_start_offset=21)
    damage(write(tmp_path, OLD, last_offset=10).path)
    assert _both_choose(tmp_path) is None  # both: replay the full log, two warnings
