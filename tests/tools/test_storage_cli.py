"""What the CLI says when the disk fails under it (issue 35): the OS error and the file, exit 3,
never an empty UNKNOWN_SERVER_ERROR; a change reported as failed never reappears."""

from __future__ import annotations

from pathlib import Path

from aclog.log.files import Faults, injected
from tests.tools.harness import run_main


def _add(data_dir: Path, topic: str) -> list[str]:
    target = ["--operation", "Read", "--topic", topic]
    return ["acls", "add", "--data-dir", str(data_dir), "--allow-principal", "User:a", *target]


def test_a_full_disk_fails_acls_add_with_the_error_and_the_file(tmp_path: Path) -> None:
    assert run_main(*_add(tmp_path, "kept")).code == 0
    # The first write of the next commit (to the segment) meets a full disk.
    with injected(Faults(1, "ENOSPC", where=lambda op, path: op == "write")):
        failed = run_main(*_add(tmp_path, "lost"))
    assert failed.code == 3, failed
    assert "KAFKA_STORAGE_ERROR (56)" in failed.stderr
    assert f"No space left on device (ENOSPC) on {tmp_path}/" in failed.stderr
    listed = run_main("acls", "list", "--data-dir", str(tmp_path))
    assert "kept" in listed.stdout and "lost" not in listed.stdout
    assert run_main("verify", "--data-dir", str(tmp_path)).code == 0


def test_snapshot_create_names_the_file_it_could_not_write(tmp_path: Path) -> None:
    assert run_main(*_add(tmp_path, "kept")).code == 0
    snapshot_writes = lambda op, path: op == "write" and ".snapshot" in path  # noqa: E731
    with injected(Faults(1, "ENOSPC", where=snapshot_writes)):
        failed = run_main("snapshot", "create", "--data-dir", str(tmp_path))
    assert failed.code == 3, failed
    assert ".snapshot.avro.tmp: No space left on device" in failed.stderr
    assert not list(tmp_path.glob("*.tmp"))
