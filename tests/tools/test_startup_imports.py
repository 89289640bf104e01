"""A command's start imports what it uses: pandas (about 0.2 s) only where a job needs it, and
nothing of the library (numpy, pyarrow, kafka-python) for ``--help``, ``--version`` or completing
a command name; the table that lists the commands without importing them says what they say."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer import _click as click
from typer.core import TyperGroup

from aclog.tools.acls import ACLS_COMMANDS
from aclog.tools.commands import COMMANDS
from aclog.tools.console import app
from aclog.tools.help import reflow
from aclog.tools.pipeline.app import PIPELINE_COMMANDS
from aclog.tools.snapshots import SNAPSHOT_COMMANDS
from aclog.tools.users import USERS_COMMANDS
from benchmarks.bench_startup import make_small_log

ROOT = Path(__file__).resolve().parents[2]


def test_the_cli_starts_without_importing_pandas() -> None:
    # pyarrow imports pandas on the first pa.array() call; a module-level one in the KRaft
    # decoder made every command, even a usage error, 0.2 s slower.
    probe = (
        "import sys, aclog.tools.main; "
        "print(sorted(m for m in sys.modules if m.startswith('pandas')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


HEAVY = ("numpy", "pyarrow", "pandas", "kafka", "fastavro", "cryptography", "yaml")
"""What the library needs and a command that only answers from the CLI's own table must not
load: together about 1.5 s and 100 MB before anything is printed."""

RUN_AND_LIST_MODULES = """
import atexit, os, sys
def report():
    with open(os.environ["MODULES_OUT"], "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
atexit.register(report)
sys.argv = ["aclog", *sys.argv[1:]]
from aclog.tools.main import main
main()
"""
"""``aclog ARGV`` run as the console script runs it, writing the modules loaded at exit."""


def loaded_by(tmp_path: Path, *argv: str, env: dict[str, str] | None = None) -> set[str]:
    """The top-level packages ``aclog ARGV`` loaded (``aclog`` itself by submodule)."""
    listing = tmp_path / "modules"
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_MODULES, *argv],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MODULES_OUT": str(listing), **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    modules = listing.read_text().split("\n")
    return {m if m.startswith("aclog.") else m.split(".")[0] for m in modules}


def test_help_version_and_completing_a_command_import_no_library(tmp_path: Path) -> None:
    for argv, env in [
        (["--help"], None),
        (["--version"], None),
        ([], {"_ACLOG_COMPLETE": "complete_bash", "COMP_WORDS": "aclog re", "COMP_CWORD": "1"}),
    ]:
        loaded = loaded_by(tmp_path, *argv, env=env)
        assert loaded.isdisjoint(HEAVY), (argv, sorted(loaded & set(HEAVY)))
        # aclog.text (how names are shown) imports nothing of aclog; the console prints with it.
        light = ("aclog.tools", "aclog.text")
        commands = {m for m in loaded if m.startswith("aclog.") and not m.startswith(light)}
        assert commands == set(), (argv, sorted(commands))
    assert "rich" not in loaded_by(tmp_path, "--version")


GROUPS = {
    "acls": ACLS_COMMANDS,
    "users": USERS_COMMANDS,
    "snapshot": SNAPSHOT_COMMANDS,
    "pipeline": PIPELINE_COMMANDS,
}
"""Each command group and the table its ``--help`` lists."""


def test_a_group_help_imports_none_of_its_commands(tmp_path: Path) -> None:
    # `aclog acls --help` took 0.4 s (0.9 s on a busy machine) against 0.2 s for `aclog --help`:
    # the group's module also held what its commands share, and that imported the library
    for group in GROUPS:
        loaded = loaded_by(tmp_path, group, "--help")
        assert loaded.isdisjoint(HEAVY), (group, sorted(loaded & set(HEAVY)))
        light = ("aclog.tools", "aclog.text")
        library = {m for m in loaded if m.startswith("aclog.") and not m.startswith(light)}
        assert library == set(), (group, sorted(library))
        commands = {e.module for t in GROUPS.values() for e in t.values()}
        assert loaded.isdisjoint(commands), (group, sorted(loaded & commands))
        # typer converted its own unset flags (--help of the root) through pydantic on the way
        assert "pydantic" not in loaded, group


HELP_NEEDS = {"aclog.faces", "aclog.records", "aclog.records.enums"}
"""What a command's help may load of the library: the record enums its completion choices name
(which import nothing)."""


IMPLEMENTATION = {
    "aclog.tools.common",
    "aclog.tools.remote",
    "aclog.tools.acl_options",
    "aclog.tools.user_changes",
    "aclog.log",
    "aclog.remote",
    "aclog.replay",
    "pydantic",  # typer's conversion of the root's and the group's unset flags
}
"""What no command's help needs: the readers, the writers, the remote client and the tools
modules that drive them."""


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["acls", "add"], "aclog.tools.acls_add"),
        (["acls", "list"], "aclog.tools.acls_list"),
        (["acls", "remove"], "aclog.tools.acls_remove"),
        (["users", "set"], "aclog.tools.users_set"),
        (["users", "delete"], "aclog.tools.users_delete"),
        (["users", "list"], "aclog.tools.users_list"),
    ],
)
def test_a_subcommand_help_imports_only_its_options(
    tmp_path: Path, argv: list[str], module: str
) -> None:
    # `aclog acls add --help` loaded the controller, the log, the records' codec and the
    # remote client (about 50 modules) to print its options
    loaded = loaded_by(tmp_path, *argv, "--help")
    assert module in loaded  # it did read the command's options
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
    assert loaded.isdisjoint(IMPLEMENTATION), sorted(loaded & IMPLEMENTATION)
    if argv[0] == "acls":  # (users set shows the controller's default iteration count)
        light = ("aclog.tools", "aclog.text")
        library = {m for m in loaded if m.startswith("aclog.") and not m.startswith(light)}
        assert library <= HELP_NEEDS, sorted(library - HELP_NEEDS)


def test_the_command_table_is_every_command_with_its_own_help() -> None:
    # --help lists the table without importing the commands: it must say what they say
    for entry in [*COMMANDS.values(), *(e for t in GROUPS.values() for e in t.values())]:
        importlib.import_module(entry.module)
    root = typer.main.get_command(app)  # built after every command registered: none lazy
    ctx = click.Context(root)
    pairs: list[tuple[TyperGroup, dict[str, Any]]] = [(root, COMMANDS)]
    for name, table in GROUPS.items():
        group = root.get_command(ctx, name)
        assert isinstance(group, TyperGroup), name
        pairs.append((group, table))
    for group, table in pairs:
        assert list(group.commands) == list(table)  # each registered command, in table order
        for name, entry in table.items():
            command = group.commands[name]
            assert command.callback is not None or isinstance(command, TyperGroup), name
            assert reflow((command.help or "").split("\n\n")[0]) == entry.help, name


SMALL_LISTING_SKIPS = (
    "cryptography",  # key stores: only a --command-config file needs them
    "javaproperties",
    "yaml",  # desired-state files
    "aclog.controller.controller",  # the writer: acls list only reads
    "aclog.controller.quorum",
    "aclog.desired.apply",
    "aclog.questions",  # and with it the authorizer
    "aclog.authorizer",
    "aclog.remote.admin",  # kafka-python's admin client: only --bootstrap-server needs it
    "kafka",  # kafka-python: only compressed batches, KRaft files and remote clusters need it
    "aclog.kraft.reader",
    "numpy",  # the columnar decoder and the ACL table: a small log is decoded record by
    "pyarrow",  # record and replayed into a mapping (MetadataImage.SMALL)
    "aclog.image.acl_table",
    "pydantic",  # typer's conversion of option values: aclog.tools.plain_values converts them
    "rich",  # progress and styled text: a listing on a pipe draws neither
)
"""What ``aclog acls list`` of a small data directory has no use for (about 0.2 s of CPU and
15 MB together, kafka-python about 0.2 s and 18 MB more, numpy and pyarrow about 0.25 s and
55 MB more): it parses options, replays the log and prints."""


@pytest.mark.parametrize("one_batch", [True, False])
def test_listing_a_small_data_dir_loads_no_writer_questions_key_stores_or_numpy(
    tmp_path: Path, one_batch: bool
) -> None:
    data_dir = tmp_path / "data"
    if one_batch:
        make_small_log(data_dir)
    else:  # ten `acls add` runs: ten batches of a request context and an ACL
        for n in range(10):
            argv = ["acls", "add", "--data-dir", str(data_dir), "--topic", f"t{n}"]
            loaded_by(tmp_path, *argv, "--allow-principal", f"User:u{n}", "--operation", "Read")
    loaded = loaded_by(tmp_path, "acls", "list", "--data-dir", str(data_dir))
    assert "aclog.replay.rebuild" in loaded  # it did replay the log
    assert loaded.isdisjoint(SMALL_LISTING_SKIPS), sorted(loaded & set(SMALL_LISTING_SKIPS))


@pytest.mark.parametrize(
    ("words", "module"),
    [
        ("aclog acls add --operation ", "aclog.tools.acls_add"),
        ("aclog acls list --resource-pattern-type ", "aclog.tools.acls_list"),
        ("aclog acls remove --resource-pattern-type ", "aclog.tools.acls_remove"),
        ("aclog users set --mechanism ", "aclog.tools.users_set"),
    ],
)
def test_completing_an_option_value_loads_no_replay_or_kafka(
    tmp_path: Path, words: str, module: str
) -> None:
    # a shell runs the command on every TAB: completing a value needs the command's options,
    # not the readers and the image its run uses (about 0.8 s and 80 MB together)
    completing = {"_ACLOG_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": "4"}
    loaded = loaded_by(tmp_path, env=completing)
    assert module in loaded  # it did read the command's options
    heavy = {"numpy", "pyarrow", "kafka", "cryptography", "yaml", "aclog.replay.rebuild"}
    assert loaded.isdisjoint(heavy), sorted(loaded & heavy)


def _every_command() -> list[tuple[str, ...]]:
    """Each command's words: the top-level commands and each group's."""
    top = [(name,) for name in COMMANDS if name not in GROUPS]
    return [*top, *((group, name) for group, table in GROUPS.items() for name in table)]


HELP_HEAVY = {
    *HEAVY,
    "pydantic",
    "pyspark",
    "aclog.controller.controller",
    "aclog.controller.scram_manager",
    "aclog.log.segment",
    "aclog.replay.rebuild",
    "aclog.authorizer.authorizer",
    "aclog.questions",
}
"""What no command's ``--help`` needs: the library its run uses."""


@pytest.mark.parametrize("words", _every_command(), ids=" ".join)
def test_a_command_help_imports_only_its_options(tmp_path: Path, words: tuple[str, ...]) -> None:
    # `aclog pipeline who-can --help` loaded numpy and pyarrow, `users set --help` 19 modules of
    # the controller for one default, `snapshot list --help` the snapshot reader
    loaded = loaded_by(tmp_path, *words, "--help")
    assert sorted(loaded & HELP_HEAVY) == [], words
