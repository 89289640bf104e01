"""One rule for exit codes everywhere: 0 ok, 1 a domain failure, 2 usage, 3 I/O.

A path that is missing or of the wrong kind is usage (2), one that exists but cannot be read is
I/O (3), whether it is a file or a directory; a reader that closes stdout early is no failure;
input that is not UTF-8 is usage, with where it is; rich markup in a value is shown, not read.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from aclog.snapshot import list_snapshots
from aclog.tools.main import app
from tests.tools.harness import run_main, tree_digest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("exits") / "data"
    assert run_main("demo", "--data-dir", str(directory), "--no-show").code == 0
    return directory


def _refusing(path: Path, call: Callable[..., Any]) -> Callable[..., Any]:
    """``call``, raising EACCES for ``path`` and anything below it."""

    def refuse(target: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(target, (str, os.PathLike)):
            here = Path(os.fsdecode(target)).absolute()
            if here == path or path in here.parents:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(target))
        return call(target, *args, **kwargs)

    return refuse


@pytest.fixture
def unreadable(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    """Make a path unreadable as ``chmod 000`` does for anyone but root (the tests may run as
    root, which no mode stops): listing it, and opening anything at or below it, is refused."""

    def make(path: Path) -> None:
        path = path.absolute()
        for module, name in ((os, "scandir"), (os, "listdir"), (os, "open"), (builtins, "open"),
                             (io, "open")):  # fmt: skip
            monkeypatch.setattr(module, name, _refusing(path, getattr(module, name)))

    yield make


SEGMENT = "00000000000000000000.log"


@pytest.mark.parametrize(
    ("line", "file"),
    [
        (("dump", "{p}"), SEGMENT),
        (("replay", "--data-dir", "{d}"), SEGMENT),
        (("acls", "list", "--data-dir", "{d}"), SEGMENT),
        (("verify", "--data-dir", "{d}"), SEGMENT),
        (("snapshot", "list", "--data-dir", "{d}"), "*.snapshot.avro"),
        (
            ("acls", "add", "--data-dir", "{d}", "--allow-principal", "User:a", "--topic", "t"),
            SEGMENT,
        ),
    ],
    ids=lambda value: " ".join(value[:2]) if isinstance(value, tuple) else value,
)
@pytest.mark.parametrize("what", ["directory", "file"])
def test_an_unreadable_file_and_an_unreadable_directory_both_exit_3(
    tmp_path: Path,
    unreadable: Callable[[Path], None],
    line: tuple[str, ...],
    file: str,
    what: str,
) -> None:
    data_dir = tmp_path / "data"
    assert run_main("demo", "--data-dir", str(data_dir), "--no-show").code == 0
    assert run_main("snapshot", "create", "--data-dir", str(data_dir)).code == 0
    path = data_dir if what == "directory" else next(data_dir.glob(file))
    unreadable(path)
    filled = [part.replace("{d}", str(data_dir)).replace("{p}", str(path)) for part in line]
    result = run_main(*filled)
    assert result.code == 3, result.stderr
    assert "Permission denied" in result.stderr and "internal error" not in result.stderr


def _unprivileged() -> list[str]:
    """A command prefix under which modes apply: none for a user, for root a ``setpriv`` that
    drops the capabilities that let root read anything (util-linux, in every Debian base)."""
    if os.geteuid() != 0:
        return []
    assert shutil.which("setpriv"), "running as root, this test needs setpriv (util-linux)"
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]


@pytest.mark.parametrize(
    "line",
    [
        ("replay", "--data-dir", "{d}"),
        ("dump", "{d}"),
        ("verify", "--data-dir", "{d}"),
        ("who-can", "--data-dir", "{d}", "--operation", "Read", "--topic", "t"),
        ("acls", "add", "--data-dir", "{d}", "--allow-principal", "User:a", "--topic", "t"),
    ],
    ids=lambda line: " ".join(line[:2]),
)
def test_a_directory_chmod_000_is_an_io_error_in_a_real_process(
    data_dir: Path, tmp_path: Path, line: tuple[str, ...]
) -> None:
    # The option parser checked readability with os.access itself (which the monkeypatched
    # test above does not see) and exited 2 with a usage box: the README says 3.
    locked = tmp_path / "locked"
    shutil.copytree(data_dir, locked)
    command = [*_unprivileged(), sys.executable, "-m", "aclog"]
    locked.chmod(0)
    try:
        filled = [part.replace("{d}", str(locked)) for part in line]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("ACLOG_DATA_DIR", None)
        result = subprocess.run([*command, *filled], capture_output=True, text=True, env=env,
                                timeout=120, check=False)  # fmt: skip
    finally:
        locked.chmod(0o700)
    assert result.returncode == 3, result.stderr
    assert "Permission denied" in result.stderr and "Usage" not in result.stderr


def test_no_path_option_is_checked_by_the_option_parser() -> None:
    """Every path parameter leaves its checks to the command (readable=False), so an
    unreadable path exits 3 with the OS's message like every other read (os_error_code)."""
    checked = []

    def walk(command: Any, words: list[str]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*words, name])
        for param in getattr(command, "params", []):
            descriptor = getattr(param, "type_descriptor", None)
            info = getattr(descriptor, "parameter_info", None)
            if "Path" in repr(getattr(descriptor, "annotation", "")) and info.readable:
                checked.append(" ".join([*words, param.name]))

    walk(typer.main.get_command(app), [])
    assert checked == []


def test_an_unreadable_inventory_is_io_and_a_missing_one_usage(
    data_dir: Path, tmp_path: Path, unreadable: Callable[[Path], None]
) -> None:
    add = ("acls", "add", "--data-dir", str(data_dir), "--allow-principal", "User:a")
    inventory = tmp_path / "inventory.txt"
    inventory.write_text("TOPIC:t\n")
    missing = run_main(*add, "--topic", "t", "--dry-run", "--inventory", str(tmp_path / "no"))
    assert missing.code == 2 and "No such file" in missing.stderr
    unreadable(inventory)
    refused = run_main(*add, "--topic", "t", "--dry-run", "--inventory", str(inventory))
    assert refused.code == 3 and "Permission denied" in refused.stderr


def _aclog(*args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "aclog.tools.main", *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


@pytest.mark.parametrize("json_output", [False, True])
def test_a_reader_that_stops_early_is_no_failure(data_dir: Path, json_output: bool) -> None:
    """``aclog dump DIR | head -1``, with the reader gone before the first write (everything is
    still buffered at exit) and after the first line (the pipe fills and then breaks)."""
    for early in (True, False):
        process = _aclog("dump", str(data_dir), *(["--json"] if json_output else []))
        assert process.stdout is not None and process.stderr is not None
        if not early:
            assert process.stdout.readline()
        process.stdout.close()
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=60) == 0, stderr
        assert stderr == ""


def test_a_big_dump_into_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    topics = [arg for n in range(3000) for arg in ("--topic", f"topic-{n}")]
    data_dir = tmp_path / "big"
    added = run_main("acls", "add", "--data-dir", str(data_dir), "--allow-principal", "User:a",
                     *topics)  # fmt: skip
    assert added.code == 0
    process = _aclog("dump", str(data_dir))
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b"batch 0")
    process.stdout.close()  # far more than a pipe holds is still to come
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0 and stderr == ""


def test_snapshot_list_exits_1_when_a_snapshot_is_corrupt(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert run_main("demo", "--data-dir", str(data_dir), "--no-show").code == 0
    assert run_main("snapshot", "create", "--data-dir", str(data_dir)).code == 0
    listed = run_main("snapshot", "list", "--data-dir", str(data_dir))
    assert listed.code == 0 and listed.stdout.rstrip().endswith("ok")
    snapshot = list_snapshots(data_dir)[0].path
    damaged = bytearray(snapshot.read_bytes())
    damaged[-5] ^= 0x01
    snapshot.write_bytes(bytes(damaged))
    text = run_main("snapshot", "list", "--data-dir", str(data_dir))
    assert text.code == 1 and "CORRUPT" in text.stdout
    as_json = run_main("snapshot", "list", "--data-dir", str(data_dir), "--json")
    assert as_json.code == 1
    assert [s["valid"] for s in json.loads(as_json.stdout)["snapshots"]] == [False]


def test_an_inventory_that_is_not_utf8_names_the_file_and_line(
    data_dir: Path, tmp_path: Path
) -> None:
    inventory = tmp_path / "inventory.txt"
    inventory.write_bytes(b"# resources\nTOPIC:ok\nTOPIC:caf\xe9\n")
    result = run_main(
        "acls", "add", "--data-dir", str(data_dir), "--allow-principal", "User:a", "--topic",
        "t", "--dry-run", "--inventory", str(inventory),
    )  # fmt: skip
    assert result.code == 2
    assert f"{inventory}:3: not UTF-8 text (byte 0xe9 at column 10)" in result.stderr


def test_a_password_on_stdin_that_is_not_utf8_is_refused_and_nothing_is_written(
    data_dir: Path,
) -> None:
    before = tree_digest(data_dir)
    result = run_main(
        "users", "set", "bob", "--mechanism", "SCRAM-SHA-256", "--password-stdin",
        "--data-dir", str(data_dir), stdin=b"caf\xe9\n",
    )  # fmt: skip
    assert result.code == 2
    assert "--password-stdin: line 1 of stdin is not UTF-8 text (byte 0xe9" in result.stderr
    assert tree_digest(data_dir) == before


@pytest.mark.parametrize(
    "line",
    [
        ("acls", "add", "--allow-principal", "User:a", "--topic", "caf\udce9"),
        ("acls", "add", "--allow-principal", "User:\udce9", "--topic", "t"),
        ("users", "set", "b\udce9", "--mechanism", "SCRAM-SHA-256", "--password", "pw"),
        ("users", "set", "bob", "--mechanism", "SCRAM-SHA-256", "--password", "p\udce9"),
        ("acls", "list", "--principal", "User:\udce9"),
    ],
)
def test_command_line_bytes_that_are_not_utf8_are_refused_in_names(
    data_dir: Path, line: tuple[str, ...]
) -> None:
    """Python hands such bytes over as lone surrogates (``\\udce9``); no name can hold them."""
    before = tree_digest(data_dir)
    result = run_main(*line, "--data-dir", str(data_dir))
    assert result.code == 2, result.stderr
    assert "not UTF-8" in result.stderr
    assert tree_digest(data_dir) == before


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (("replay", "--data-dir", "[/x]"), "no data directory at [/x]"),
        (("replay", "--data-dir", "{d}", "--at-time", "[/bold]"), "'[/bold]'"),
        (("acls", "list", "--data-dir", "{d}", "--resource-pattern-type", "[/foo]"), "'[/foo]'"),
    ],
)
def test_markup_in_a_value_is_shown_literally(
    data_dir: Path, line: tuple[str, ...], shown: str
) -> None:
    result = run_main(*(part.replace("{d}", str(data_dir)) for part in line))
    assert result.code == 2
    assert shown in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("listen", ["nonsense", "no-such-host.invalid:9092"])
def test_serve_on_an_unresolvable_host_is_a_usage_error_and_creates_nothing(
    tmp_path: Path, listen: str
) -> None:
    # it was exit 3 and left a data directory with a log, a lock and a login secret
    data = tmp_path / "new" / "data"
    result = run_main("serve", "--data-dir", str(data), "--listen", listen)
    assert result.code == 2, result.stderr
    line = result.stderr.strip()
    assert "does not resolve" in line and "127.0.0.1:9092" in line and "\n" not in line
    assert not (tmp_path / "new").exists()


def test_serve_that_cannot_bind_removes_the_data_directory_it_created(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        data = tmp_path / "data"
        result = run_main("serve", "--data-dir", str(data), "--listen", f"127.0.0.1:{port}")
        assert result.code == 3, result.stderr
        assert "in use" in result.stderr
        assert not data.exists()
        kept = tmp_path / "kept"
        kept.mkdir()
        (kept / "mine").write_text("x")
        assert run_main("serve", "--data-dir", str(kept), "--listen", f"127.0.0.1:{port}").code
        assert (kept / "mine").read_text() == "x"


def test_removed_on_failure_removes_only_what_a_failed_command_created(tmp_path: Path) -> None:
    import typer

    from aclog.tools.writing import removed_on_failure

    def run(path: Path, error: BaseException | None, *, keep: bool = False) -> None:
        with contextlib.suppress(type(error) if error else ()), removed_on_failure(path) as k:
            path.mkdir(parents=True, exist_ok=True)
            (path / "file").write_text("x")
            if keep:
                k()
            if error is not None:
                raise error

    for error in (RuntimeError("boom"), typer.Exit(1), KeyboardInterrupt()):
        run(tmp_path / "a" / "b", error)
        assert not (tmp_path / "a").exists()
    run(tmp_path / "ok", typer.Exit(0))  # an exit 0 is a success
    run(tmp_path / "kept", RuntimeError("late"), keep=True)
    run(tmp_path / "fine", None)
    assert all((tmp_path / name / "file").exists() for name in ("ok", "kept", "fine"))
    run(tmp_path / "fine", RuntimeError("theirs"))  # existed before: never removed
    assert (tmp_path / "fine" / "file").exists()
