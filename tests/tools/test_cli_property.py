"""Whatever a command line holds, ``aclog`` answers with an exit code in {0, 1, 2, 3} and never a
traceback; a read leaves every directory byte for byte as it was and creates none; a write that
fails on usage or I/O creates no directory.

Command lines are generated per command from its own options, with values that are valid, or
rich markup, control characters, bytes that are not UTF-8 (as Python passes them: lone
surrogates), huge numbers, odd times, and paths that are missing, files where a directory
belongs, below a file, or another kind of log. Every command is covered except ``serve``,
``quickstart`` and ``pipeline``, which start a listener or Spark.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.kraft.layout import build_layout
from tests.tools.harness import run_main, tree_digest

NASTY = [
    "[/x]",
    "[bold]b[/bold]",
    ":thumbs_up:",
    "\x1b[2J",
    "a\nb\r",
    "\x00",
    "\u202e",
    "\udcff",
    "x\udc80y",
    "",
    " ",
    "-1",
    "99999999999999999999999",
    "1e309",
    "nan",
    "0",
    "*",
    "٣",
    "\uff12\uff10\uff12\uff16",  # digits, but not ASCII ones
    "\u00b2",  # str.isdigit() says yes, int() says no
]
VALID = {
    "principal": ["User:alice", "User:*", "User:ledger", "Group:devs", "User:finance-*", "alice"],
    "host": ["*", "10.0.0.1", "::1", "10.1.?.*", "myhost"],
    "operation": ["Read", "write", "DESCRIBE_CONFIGS", "All", "Any", "unknown", "IdempotentWrite"],
    "name": ["orders", "payments.", "payments.cards", "??-accounts-*", "*", "ledger", "audit"],
    "pattern": ["literal", "prefixed", "glob", "any", "match", "MATCH"],
    "offset": ["0", "3", "8", "17", "99999", "-1"],
    "time": [
        "2020-01-01T00:00:00Z",
        "2026-11-21T10:00:00+05:30",
        "2099-01-01",
        "1795609903621",
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59-14:00",
        "2026-02-30",
        "T",
    ],
    "format": ["auto", "aclog", "kraft"],
    "mechanism": ["SCRAM-SHA-256", "scram-sha-512", "MD5"],
    "int": ["4096", "16384", "4095", "0", "999999999999999999999"],
    "text": ["User:admin;User:ops", "pa55word"],
    "bootstrap": ["nohost", "h:0", "h:99999", ":9092", "h:x"],
    "record": ["AccessControlEntryRecord", "noop", "LeaderChange"],
    "path": [
        "@data",
        "@kraft",
        "@missing",
        "@file",
        "@below-file",
        "@empty",
        "@segment",
        "@snapshot",
        "@checkpoint",
        "@inventory",
        "@bad-inventory",
        "@deep/missing",
    ],
}
VALID["point"] = VALID["offset"] + VALID["time"]


@dataclass(frozen=True)
class Spec:
    """A command: its words, its options (name, kind; kind "flag" takes no value), the options
    most lines carry, its positional arguments, and whether it only reads."""

    words: tuple[str, ...]
    options: tuple[tuple[str, str], ...]
    usual: tuple[tuple[str, str], ...] = ()
    positionals: tuple[str, ...] = ()
    reads: bool = True
    stdin: bool = False


REMOTE = (("--bootstrap-server", "bootstrap"), ("--command-config", "path"))
RESOURCES = (
    ("--topic", "name"),
    ("--group", "name"),
    ("--cluster", "flag"),
    ("--transactional-id", "name"),
    ("--user", "name"),
    ("--delegation-token", "name"),
    ("--resource-pattern-type", "pattern"),
    ("--json", "flag"),
)
ENTRIES = (
    ("--allow-principal", "principal"),
    ("--deny-principal", "principal"),
    ("--allow-host", "host"),
    ("--deny-host", "host"),
    ("--operation", "operation"),
    ("--dry-run", "flag"),
)
POINT = (("--at-offset", "offset"), ("--at-time", "time"))
DATA = (("--data-dir", "path"),)

JSON = (("--json", "flag"),)
ACLS = [
    Spec(
        ("acls", "add"),
        (
            *REMOTE,
            *RESOURCES,
            *ENTRIES,
            ("--producer", "flag"),
            ("--consumer", "flag"),
            ("--idempotent", "flag"),
            ("--inventory", "path"),
        ),
        (*DATA, ("--allow-principal", "principal"), ("--topic", "name")),
        reads=False,
    ),
    Spec(
        ("acls", "remove"), (*REMOTE, *RESOURCES, *ENTRIES, ("--force", "flag")), DATA, reads=False
    ),
    Spec(("acls", "list"), (*REMOTE, *RESOURCES, *POINT, ("--principal", "principal")), DATA),
]
USERS = [
    Spec(
        ("users", "set"),
        (
            *REMOTE,
            ("--iterations", "int"),
            ("--password", "text"),
            ("--password-stdin", "flag"),
            *JSON,
        ),
        (*DATA, ("--mechanism", "mechanism"), ("--password-stdin", "flag")),
        ("name",),
        reads=False,
        stdin=True,
    ),
    Spec(
        ("users", "delete"),
        (*REMOTE, *JSON),
        (*DATA, ("--mechanism", "mechanism")),
        ("name",),
        reads=False,
    ),
    Spec(("users", "list"), (*REMOTE, *JSON), DATA, ("name",)),
]
EXPLAIN = [
    Spec(
        ("explain",),
        (
            *POINT,
            ("--group", "name"),  # a second resource, now and then
            ("--super-users", "text"),
            ("--format", "format"),
            ("--allow-everyone-if-no-acl-found", "flag"),
            *JSON,
        ),
        (
            *DATA,
            ("--principal", "principal"),
            ("--host", "host"),
            ("--operation", "operation"),
            ("--topic", "name"),
        ),
    )
]
HISTORY = [
    Spec(("replay",), (*POINT, ("--format", "format"), *JSON), DATA),
    Spec(("verify",), (("--format", "format"), *JSON), DATA),
    Spec(
        ("diff",), (("--format", "format"), *JSON), (*DATA, ("--from", "point"), ("--to", "point"))
    ),
    Spec(("snapshot", "list"), JSON, DATA),
    Spec(("snapshot", "verify"), JSON, DATA),
]
DUMP = [
    Spec(
        ("dump",),
        (
            ("--from-offset", "offset"),
            ("--to-offset", "offset"),
            ("--type", "record"),
            ("--no-redact", "flag"),
            ("--format", "format"),
            *JSON,
        ),
        (),
        ("path", "path"),
    )
]
OTHER_WRITES = [
    Spec(("snapshot", "create"), (("--rows", "flag"), *JSON), DATA, reads=False),
    Spec(
        ("import",),
        (("--skip-noop", "flag"), *JSON),
        (*DATA, ("--from-kraft", "path")),
        reads=False,
    ),
    Spec(("demo",), (("--no-show", "flag"), ("--show", "flag")), DATA, reads=False),
]


def values(kind: str) -> st.SearchStrategy[str]:
    """Valid values of ``kind`` three times in four, hostile text otherwise; a path is the
    data directory one time in two."""
    valid = st.sampled_from(VALID[kind])
    if kind == "path":
        valid = st.one_of(st.just("@data"), valid)
    hostile = st.one_of(st.sampled_from(NASTY), st.text(max_size=5))
    return st.one_of(valid, valid, valid, hostile)


@st.composite
def command_lines(draw: st.DrawFn, specs: list[Spec]) -> tuple[Spec, list[str], bytes | None]:
    spec = draw(st.sampled_from(specs))
    argv = list(spec.words)
    chosen = [o for o in spec.usual if draw(st.integers(0, 19)) > 0]
    chosen += draw(st.lists(st.sampled_from(spec.options), max_size=5)) if spec.options else []
    for name, kind in draw(st.permutations(chosen)):
        argv.append(name)
        if kind != "flag":
            argv.append(draw(values(kind)))
    for kind in spec.positionals:
        if draw(st.integers(0, 4)) > 0:
            argv.append(draw(values(kind)))
    stdin = draw(st.sampled_from([b"pa55word\n", b"\xff\xfe\n", b"", None])) if spec.stdin else None
    return spec, argv, stdin


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of things a command line may name: an aclog log with a snapshot, a KRaft
    log, an empty directory, plain files, inventories, and an empty working directory."""
    root = tmp_path_factory.mktemp("cli-property")
    (root / "cwd").mkdir()
    assert run_main("demo", "--data-dir", str(root / "data"), "--no-show").code == 0
    assert run_main("snapshot", "create", "--data-dir", str(root / "data")).code == 0
    build_layout(root / "kraft" / "__cluster_metadata-0")
    (root / "empty").mkdir()
    (root / "file").write_text("not a log\n")
    (root / "inventory.txt").write_text("TOPIC:payments.cards\nGROUP:ledger-1\n")
    (root / "bad-inventory.txt").write_bytes(b"TOPIC:\xff\n")
    return root


def _resolve(argv: list[str], root: Path) -> list[str]:
    data = root / "data"
    places = {
        "@data": data,
        "@kraft": root / "kraft" / "__cluster_metadata-0",
        "@missing": root / "missing",
        "@deep/missing": root / "deep" / "missing",
        "@file": root / "file",
        "@below-file": root / "file" / "below",
        "@empty": root / "empty",
        "@segment": data / "00000000000000000000.log",
        "@snapshot": next(data.glob("*.snapshot"), data),
        "@checkpoint": next((root / "kraft" / "__cluster_metadata-0").glob("*.checkpoint")),
        "@inventory": root / "inventory.txt",
        "@bad-inventory": root / "bad-inventory.txt",
    }
    return [str(places[a]) if a in places else a for a in argv]


def _fresh_copy(template: Path) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "root"
        shutil.copytree(template, root, symlinks=True)
        yield root


def _check(spec: Spec, argv: list[str], stdin: bytes | None, root: Path) -> None:
    """Run one line in ``root``; check its exit, its output, and what it left."""
    before = tree_digest(root)
    line = _resolve(argv, root)
    result = run_main(*line, stdin=stdin, cwd=root / "cwd")
    shown = f"aclog {line!r} -> {result.code}\n{result.stderr}"
    event(f"{' '.join(spec.words)} exits {result.code}")
    assert result.code in {0, 1, 2, 3}, shown
    assert "Traceback" not in result.stdout + result.stderr, shown
    assert "internal error" not in result.stderr, shown
    after = tree_digest(root)
    if spec.reads or "--dry-run" in argv:
        assert after == before, shown
    elif result.code in (2, 3):  # refused, or could not read or write: nothing new anywhere
        new = {path for path in after if path not in before}
        assert not {path for path in new if "/" not in path or path.startswith("cwd/")}, shown


PROPERTY = settings(max_examples=150, deadline=None)


@PROPERTY
@given(st.data())
def test_reading_acls_and_users(template: Path, data: st.DataObject) -> None:
    specs = [s for s in ACLS + USERS if s.reads]
    _check(*data.draw(command_lines(specs)), template)


@PROPERTY
@given(st.data())
def test_explaining(template: Path, data: st.DataObject) -> None:
    _check(*data.draw(command_lines(EXPLAIN)), template)


@PROPERTY
@given(st.data())
def test_replay_verify_diff_and_snapshot_listing(template: Path, data: st.DataObject) -> None:
    _check(*data.draw(command_lines(HISTORY)), template)


@PROPERTY
@given(st.data())
def test_dumping(template: Path, data: st.DataObject) -> None:
    _check(*data.draw(command_lines(DUMP)), template)


@PROPERTY
@given(st.data())
def test_writing_acls(template: Path, data: st.DataObject) -> None:
    spec, argv, stdin = data.draw(command_lines([s for s in ACLS if not s.reads]))
    for root in _fresh_copy(template):
        _check(spec, argv, stdin, root)


@PROPERTY
@given(st.data())
def test_writing_users(template: Path, data: st.DataObject) -> None:
    spec, argv, stdin = data.draw(command_lines([s for s in USERS if not s.reads]))
    for root in _fresh_copy(template):
        _check(spec, argv, stdin, root)


@PROPERTY
@given(st.data())
def test_snapshots_imports_and_demos(template: Path, data: st.DataObject) -> None:
    spec, argv, stdin = data.draw(command_lines(OTHER_WRITES))
    for root in _fresh_copy(template):
        _check(spec, argv, stdin, root)
