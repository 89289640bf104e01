"""Reading never creates, locks or changes anything, and a write that fails leaves no trace.

Read commands (``acls list``, ``users list``, ``explain``, ``replay``, ``diff``, ``dump``,
``verify``, ``snapshot list/verify``, ``export``) leave a data directory byte for byte as it was,
work while a writer holds the lock, and refuse a missing directory with exit 2 naming it instead
of making one. A write that fails validation writes nothing and creates no directory; commands that
cannot create a log (``acls remove``, ``users delete``, ``snapshot create``) refuse a missing
one; no command writes into Kafka's own KRaft metadata directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aclog.controller.controller import Controller
from tests.kraft.layout import build_layout
from tests.tools.harness import run_main, tree_digest

READS = [
    ("acls", "list", "--data-dir", "{d}"),
    (
        "acls",
        "list",
        "--data-dir",
        "{d}",
        "--topic",
        "payments.cards",
        "--resource-pattern-type",
        "match",
        "--at-offset",
        "9",
    ),
    (
        "acls",
        "add",
        "--data-dir",
        "{d}",
        "--allow-principal",
        "User:x",
        "--topic",
        "t",
        "--dry-run",
    ),
    ("acls", "remove", "--data-dir", "{d}", "--topic", "audit", "--dry-run"),
    ("users", "list", "--data-dir", "{d}"),
    (
        "explain",
        "--data-dir",
        "{d}",
        "--principal",
        "User:ledger",
        "--host",
        "10.0.0.1",
        "--operation",
        "Read",
        "--topic",
        "payments.cards",
    ),
    ("replay", "--data-dir", "{d}", "--at-time", "2000-01-01T00:00:00Z"),
    ("diff", "--data-dir", "{d}", "--from", "0", "--to", "17"),
    ("dump", "{d}"),
    ("verify", "--data-dir", "{d}"),
    ("snapshot", "list", "--data-dir", "{d}"),
    ("snapshot", "verify", "--data-dir", "{d}"),
    ("export", "--format", "yaml", "--data-dir", "{d}", "--at-time", "2000-01-01T00:00:00Z"),
]


def _line(template: tuple[str, ...], data_dir: Path) -> list[str]:
    return [part.replace("{d}", str(data_dir)) for part in template]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "data"
    assert run_main("demo", "--data-dir", str(directory), "--no-show").code == 0
    assert run_main("snapshot", "create", "--data-dir", str(directory)).code == 0
    return directory


@pytest.mark.parametrize("template", READS, ids=lambda t: " ".join(t[:2]))
def test_a_read_leaves_the_data_directory_as_it_was_even_while_a_writer_holds_it(
    data_dir: Path, template: tuple[str, ...]
) -> None:
    before = tree_digest(data_dir.parent)
    with Controller.open(data_dir):  # the writer lock is taken: a read must not need it
        held = tree_digest(data_dir.parent)
        result = run_main(*_line(template, data_dir))
        assert result.code == 0, result.stderr
        assert tree_digest(data_dir.parent) == held
    assert tree_digest(data_dir.parent) == before


@pytest.mark.parametrize(
    "template",
    [t for t in READS if "--dry-run" not in t or t[1] != "add"],
    ids=lambda t: " ".join(t[:2]),
)
def test_a_read_of_a_missing_directory_exits_2_naming_it_and_creates_nothing(
    tmp_path: Path, template: tuple[str, ...]
) -> None:
    missing = tmp_path / "typo" / "data"
    result = run_main(*_line(template, missing))
    assert result.code == 2, result.stderr
    assert str(missing) in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "template",
    [t for t in READS if "--dry-run" not in t or t[1] != "add"],
    ids=lambda t: " ".join(t[:2]),
)
def test_a_read_of_a_directory_of_other_files_exits_2_instead_of_answering_for_an_empty_log(
    tmp_path: Path, template: tuple[str, ...]
) -> None:
    # A mistyped --data-dir that exists ('.', a home directory) read as an empty log said
    # "0 ACLs" and verify said "ok"; dump alone refused it, with exit 1.
    (tmp_path / "notes.txt").write_text("mine\n")
    before = tree_digest(tmp_path)
    result = run_main(*_line(template, tmp_path))
    assert result.code == 2, (result.stdout, result.stderr)
    assert f"{tmp_path} holds no log segments" in result.stderr
    assert "not an aclog data directory" in result.stderr
    assert tree_digest(tmp_path) == before


@pytest.mark.parametrize(
    "line",
    [
        ("acls", "add", "--allow-principal", "User:a", "--topic", "t"),
        ("users", "set", "bob", "--mechanism", "SCRAM-SHA-256", "--password", "pw"),
        ("snapshot", "create"),
    ],
    ids=lambda line: " ".join(line[:2]),
)
def test_a_writer_starts_no_log_among_other_files(tmp_path: Path, line: tuple[str, ...]) -> None:
    # 'aclog acls add --data-dir .' in a project wrote segments beside its files.
    (tmp_path / "notes.txt").write_text("mine\n")
    before = tree_digest(tmp_path)
    result = run_main(*line, "--data-dir", str(tmp_path))
    assert result.code == 2, result.stderr
    assert f"{tmp_path} holds no log segments" in result.stderr
    assert tree_digest(tmp_path) == before


@pytest.mark.parametrize("side", [".lock", "login-secret"])
def test_a_directory_of_only_aclogs_side_files_is_an_empty_log(tmp_path: Path, side: str) -> None:
    # serve finds its login secret put there before the first start; a writer that failed
    # may leave its lock file. Neither makes the directory one of other files.
    (tmp_path / side).write_bytes(b"")
    listed = run_main("acls", "list", "--data-dir", str(tmp_path))
    assert listed.code == 0, listed.stderr
    added = run_main("acls", "add", "--data-dir", str(tmp_path), "--allow-principal", "User:a",
                     "--topic", "t")  # fmt: skip
    assert added.code == 0, added.stderr


def test_a_dry_run_add_to_an_empty_directory_shows_the_adds(tmp_path: Path) -> None:
    result = run_main("acls", "add", "--data-dir", str(tmp_path), "--allow-principal", "User:x",
                      "--topic", "t", "--dry-run")  # fmt: skip
    assert result.code == 0, result.stderr
    assert "User:x" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_snapshot_list_and_verify_say_when_there_is_no_snapshot(tmp_path: Path) -> None:
    assert run_main("demo", "--data-dir", str(tmp_path / "d"), "--no-show").code == 0
    listed = run_main("snapshot", "list", "--data-dir", str(tmp_path / "d"))
    assert listed.code == 0 and "no snapshots in" in listed.stdout
    verified = run_main("snapshot", "verify", "--data-dir", str(tmp_path / "d"))
    assert verified.code == 0 and "nothing to verify" in verified.stdout
    assert run_main("snapshot", "list", "--data-dir", str(tmp_path / "d"), "--json").stdout == (
        '{\n  "snapshots": []\n}\n'
    )


def test_users_list_of_a_typo_writes_no_leader_change(tmp_path: Path) -> None:
    result = run_main("users", "list", "--data-dir", str(tmp_path / "typo"))
    assert result.code == 2
    assert "no data directory at" in result.stderr and "typo" in result.stderr
    assert not (tmp_path / "typo").exists()


def test_an_add_that_fails_validation_creates_no_directory(tmp_path: Path) -> None:
    target = tmp_path / "new" / "data"
    result = run_main(
        "acls", "add", "--data-dir", str(target), "--allow-principal", "alice", "--topic", "t"
    )
    assert result.code == 1
    assert "INVALID_REQUEST (42): Invalid principal 'alice'" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_add_that_fails_validation_leaves_an_existing_directory_alone(data_dir: Path) -> None:
    before = tree_digest(data_dir)
    result = run_main(
        "acls",
        "add",
        "--data-dir",
        str(data_dir),
        "--allow-principal",
        "User:a",
        "--allow-host",
        "myhost",
        "--topic",
        "t",
    )
    assert result.code == 1 and "Invalid host 'myhost'" in result.stderr
    assert tree_digest(data_dir) == before


def test_a_refused_credential_creates_no_directory(tmp_path: Path) -> None:
    target = tmp_path / "new"
    result = run_main(
        "users",
        "set",
        "bob",
        "--mechanism",
        "SCRAM-SHA-256",
        "--password",
        "pw",
        "--iterations",
        "99999999999999999999",
        "--data-dir",
        str(target),
        "--json",
    )
    assert result.code == 1
    assert "UNACCEPTABLE_CREDENTIAL (93): Too many iterations" in result.stderr
    assert not target.exists()


def test_a_successful_add_creates_the_directory(tmp_path: Path) -> None:
    target = tmp_path / "new" / "data"
    result = run_main(
        "acls", "add", "--data-dir", str(target), "--allow-principal", "User:a", "--topic", "t"
    )
    assert result.code == 0, result.stderr
    assert run_main("acls", "list", "--data-dir", str(target)).stdout.endswith("1 ACL\n")


def test_a_dry_run_on_a_missing_directory_shows_the_adds_and_creates_nothing(
    tmp_path: Path,
) -> None:
    target = tmp_path / "new"
    result = run_main(
        "acls",
        "add",
        "--data-dir",
        str(target),
        "--allow-principal",
        "User:a",
        "--topic",
        "t",
        "--dry-run",
    )
    assert result.code == 0 and result.stdout.startswith("would add ")
    assert not target.exists()


@pytest.mark.parametrize(
    "line",
    [
        ("acls", "remove", "--topic", "t", "--force"),
        ("users", "delete", "bob", "--mechanism", "SCRAM-SHA-256"),
        ("snapshot", "create"),
    ],
)
def test_commands_that_cannot_start_a_log_refuse_a_missing_directory(
    tmp_path: Path, line: tuple[str, ...]
) -> None:
    result = run_main(*line, "--data-dir", str(tmp_path / "typo"))
    assert result.code == 2 and str(tmp_path / "typo") in result.stderr
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize(
    "line",
    [
        ("acls", "add", "--allow-principal", "User:a", "--topic", "t"),
        ("acls", "remove", "--topic", "t", "--force"),
        ("users", "set", "bob", "--mechanism", "SCRAM-SHA-256", "--password", "pw"),
        ("snapshot", "create"),
        ("demo", "--no-show"),
    ],
)
def test_no_command_writes_into_a_kraft_metadata_directory(
    tmp_path: Path, line: tuple[str, ...]
) -> None:
    kraft = tmp_path / "__cluster_metadata-0"
    build_layout(kraft)
    before = tree_digest(tmp_path)
    result = run_main(*line, "--data-dir", str(kraft))
    assert result.code == 2 and "KRaft metadata directory" in result.stderr
    assert tree_digest(tmp_path) == before


def test_a_file_given_as_the_data_directory_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_text("x")
    for line in (
        ("acls", "add", "--allow-principal", "User:a", "--topic", "t", "--data-dir", str(path)),
        ("acls", "list", "--data-dir", str(path)),
        (
            "acls",
            "add",
            "--allow-principal",
            "User:a",
            "--topic",
            "t",
            "--data-dir",
            str(path / "below"),
        ),
    ):
        result = run_main(*line)
        assert result.code == 2, (line, result.stderr)
        assert str(path) in result.stderr
    # serve said "cannot serve ... : File exists"
    served = run_main("serve", "--data-dir", str(path), "--listen", "127.0.0.1:0")
    assert served.code == 2 and f"no data directory at {path}: it is not a directory" in (
        served.stderr
    )
    assert path.read_text() == "x"
