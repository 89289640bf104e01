"""A read that fails (EIO) under a command (issue 35): every read of the log's files goes
through the file seam, so each one can fail on purpose; the command then either does without
it (an offset index is only a shortcut) and answers as it would have, or exits 3 with a
message naming the file that failed, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.log.files import Faults, injected
from tests.tools.harness import Run, run_main

_reads = lambda operation, path: operation == "read"  # noqa: E731


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    for topic in ("orders", "payments"):
        add = ["acls", "add", "--data-dir", str(tmp_path), "--allow-principal", "User:a"]
        assert run_main(*add, "--operation", "Read", "--topic", topic).code == 0
    assert run_main("snapshot", "create", "--data-dir", str(tmp_path)).code == 0
    add = ["acls", "add", "--data-dir", str(tmp_path), "--allow-principal", "User:b"]
    assert run_main(*add, "--operation", "Write", "--topic", "orders").code == 0
    return tmp_path


def _walk(argv: list[str]) -> tuple[int, int]:
    """Run ``argv`` once clean, then once with each of its reads failing; the (tolerated,
    refused) counts. Asserts what each run must look like."""
    with injected(Faults(reads=True, where=_reads)) as counting:
        clean = run_main(*argv)
    assert clean.code == 0, clean
    assert counting.calls, "the command read nothing through the seam"
    tolerated = refused = 0
    for n, (_, path) in enumerate(counting.calls, start=1):
        with injected(Faults(n, "EIO", reads=True, where=_reads)) as faults:
            run = run_main(*argv)
        context = f"EIO at read {n} ({path}): {run}"
        assert faults.failed == 1, context
        assert "Traceback" not in run.stderr + run.stdout, context
        if run.code == 0:
            assert run.stdout == clean.stdout, context  # did without it, same answer
            tolerated += 1
        else:
            assert run.code == 3, context
            assert f"{path}: Input/output error" in run.stderr, context
            assert run.stderr.count("\n") == 1, context  # one line
            refused += 1
    return tolerated, refused


def test_acls_list_names_the_file_a_failed_read_was_on(data_dir: Path) -> None:
    _, refused = _walk(["acls", "list", "--data-dir", str(data_dir)])
    assert refused


def test_verify_names_the_file_a_failed_read_was_on(data_dir: Path) -> None:
    _, refused = _walk(["verify", "--data-dir", str(data_dir)])
    assert refused


def test_dump_names_the_file_a_failed_read_was_on(data_dir: Path) -> None:
    _, refused = _walk(["dump", str(data_dir)])
    assert refused
    segment = next(data_dir.glob("*.log"))
    _, refused = _walk(["dump", str(segment)])
    assert refused


@pytest.mark.timeout(60)  # a serve that started anyway would run until stopped
def test_serve_refuses_to_start_on_a_failed_read_naming_the_file(data_dir: Path) -> None:
    segments = lambda operation, path: operation == "read" and path.endswith(".log")  # noqa: E731
    with injected(Faults(1, "EIO", persist=True, reads=True, where=segments)):
        run: Run = run_main("serve", "--data-dir", str(data_dir), "--listen", "127.0.0.1:0")
    assert run.code == 3, run
    assert "Traceback" not in run.stderr
    assert f"{next(data_dir.glob('*.log'))}: Input/output error" in run.stderr


@pytest.fixture
def indexed_dir(tmp_path: Path) -> Path:
    """A log of several segments, each with index entries, and a snapshot partway: so a read
    after the snapshot looks the offset up in an index."""
    from aclog.controller.caller import Caller
    from aclog.controller.controller import Controller, LocalOperator
    from aclog.log import SegmentedLog
    from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType

    def acl(i: int) -> AclBinding:
        return AclBinding(
            ResourceType.TOPIC,
            f"topic-{i}",
            PatternType.LITERAL,
            f"User:u{i}",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        )

    for first in (0, 150):
        log = SegmentedLog(tmp_path, segment_bytes=16 << 10, fsync=False)
        with Controller(log, authorizer=LocalOperator()) as controller:
            for i in range(first, first + 150):
                controller.create_acls([acl(i)], Caller())
        if first == 0:
            assert run_main("snapshot", "create", "--data-dir", str(tmp_path)).code == 0
    assert len(list(tmp_path.glob("*.log"))) > 2
    return tmp_path


_index_reads = lambda operation, path: operation == "read" and path.endswith(".index")  # noqa: E731


@pytest.mark.parametrize("command", ["acls list", "verify", "dump"])
def test_an_unreadable_index_is_done_without_by_every_reader(
    indexed_dir: Path, command: str
) -> None:
    """The one damage policy for an index (derived data): every reader reads the segment from
    its start instead, with a warning naming the index, and answers as it would have."""
    where = ["--from-offset", "200", str(indexed_dir)] if command == "dump" else []
    argv = command.split() + (where or ["--data-dir", str(indexed_dir)])
    clean = run_main(*argv)
    assert clean.code == 0, clean
    with injected(Faults(1, "EIO", persist=True, reads=True, where=_index_reads)) as faults:
        run = run_main(*argv)
    assert faults.failed, "the command read no index"
    assert (run.code, run.stdout) == (0, clean.stdout), run
    assert "Traceback" not in run.stderr
    warned = [line for line in run.stderr.splitlines() if "Input/output error" in line]
    named = {path for _, path in faults.calls}
    assert len(warned) == len(named), run.stderr  # once per index file
    assert all(any(path in line for line in warned) for path in named), run.stderr


def test_the_writer_opens_past_unreadable_indexes_and_rebuilds_them(indexed_dir: Path) -> None:
    """``aclog serve`` (the writer opening the log) does the same, and rewrites each index it
    could not read, so the next reader has its shortcut back."""
    from aclog.log import SegmentedLog
    from aclog.log.index import OffsetIndex, index_path
    from aclog.log.segment import list_segments

    segments = list_segments(indexed_dir)
    before = {path: index_path(path).read_bytes() for _, path in segments}
    for _, path in segments[:-1]:
        index_path(path).write_bytes(b"")  # valid but empty: rebuilt only if found unreadable
    with injected(Faults(1, "EIO", persist=True, reads=True, where=_index_reads)) as faults:
        SegmentedLog(indexed_dir).close()
    assert faults.failed
    assert {path: index_path(path).read_bytes() for _, path in segments} == before
    assert all(OffsetIndex.load(path, base).offsets for base, path in segments[:-1])
