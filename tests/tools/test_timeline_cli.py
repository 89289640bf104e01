"""``aclog timeline`` against a real data directory: ``--json`` equals the library's result,
every flip equals ``aclog explain --at-offset`` there and just before it, ``--from/--to`` take
offsets and times, ``--plot`` draws a PNG, usage errors exit 2, and nothing is written to the
data directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aclog.questions.timeline import timeline
from aclog.records import AclOperation, ResourceType
from aclog.replay import Point
from aclog.tools.points import format_time
from tests.pipeline.logs import write_log
from tests.tools.harness import Run, run_main, tree_digest

REQUEST = ("--principal", "User:alice", "--operation", "Read", "--topic", "orders")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("timeline")
    write_log(directory, seed=11, steps=70, snapshot_at=(24, 47))
    return directory


def _ok(*args: str) -> Run:
    run = run_main(*args)
    assert run.code == 0, run.stderr
    return run


def _json(*args: str) -> Any:
    return json.loads(_ok(*args, "--json").stdout)


def test_json_equals_the_library(data_dir: Path) -> None:
    shown = _json("timeline", "--data-dir", str(data_dir), *REQUEST)
    library = timeline(data_dir, "User:alice", AclOperation.READ, ResourceType.TOPIC, "orders")
    assert shown == library.to_dict()
    assert shown["flips"], "the fixture log flips this request"
    text = _ok("timeline", "--data-dir", str(data_dir), *REQUEST).stdout
    assert text.count(" by User:") == len(shown["flips"])


def test_every_flip_equals_explain_at_offset(data_dir: Path) -> None:
    for host in ("::1", "10.0.0.1", "10.0.0.7"):
        shown = _json("timeline", "--data-dir", str(data_dir), *REQUEST, "--host", host)
        for flip in shown["flips"]:
            for offset, answers in ((flip["base_offset"] - 1, "before"), (flip["offset"], "after")):
                explained = _json(
                    "explain", "--data-dir", str(data_dir), *REQUEST, "--host", host,
                    "--at-offset", str(offset),
                )  # fmt: skip
                (answer,) = flip[answers]
                assert explained["decision"] == answer["decision"], (host, offset)
                assert explained["deciding_acl"] == answer["deciding_acl"]


def test_from_and_to_take_offsets_and_times(data_dir: Path) -> None:
    whole = _json("timeline", "--data-dir", str(data_dir), *REQUEST, "--host", "::1")
    first = whole["flips"][0]
    later = _json(
        "timeline", "--data-dir", str(data_dir), *REQUEST, "--host", "::1",
        "--from", str(first["offset"]),
    )  # fmt: skip
    assert later["initial"] == first["after"]
    assert later["flips"] == whole["flips"][1:]
    library = timeline(
        data_dir, "User:alice", AclOperation.READ, ResourceType.TOPIC, "orders", host="::1",
        end=Point(time_ms=first["timestamp"]),
    )  # fmt: skip
    until = _json(
        "timeline", "--data-dir", str(data_dir), *REQUEST, "--host", "::1",
        "--to", format_time(first["timestamp"]),
    )  # fmt: skip
    assert until == library.to_dict()
    backwards = run_main(
        "timeline", "--data-dir", str(data_dir), *REQUEST, "--from", "9", "--to", "3"
    )
    assert backwards.code == 2 and "--from comes after --to" in backwards.stderr


def test_plot_draws_a_png_and_nothing_is_written_to_the_data(
    data_dir: Path, tmp_path: Path
) -> None:
    before = tree_digest(data_dir)
    picture = tmp_path / "out" / "timeline.png"
    run = _ok("timeline", "--data-dir", str(data_dir), *REQUEST, "--plot", str(picture))
    assert f"drew {picture}" in run.stdout
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert tree_digest(data_dir) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--principal", "alice", "--operation", "Read", "--topic", "t"), "--principal"),
        (("--principal", "User:a", "--operation", "Reed", "--topic", "t"), "Reed"),
        (("--principal", "User:a", "--operation", "Any", "--topic", "t"), "is not an operation"),
        (("--principal", "User:a", "--operation", "Read"), "exactly one resource"),
        (("--principal", "User:a", "--operation", "Read", "--topic", "t", "--host", "h"), "--host"),
        (("--principal", "User:a", "--operation", "Read", "--topic", "t", "--from", "x"), "x"),
    ],
)
def test_usage_errors_exit_2(data_dir: Path, args: tuple[str, ...], message: str) -> None:
    run = run_main("timeline", "--data-dir", str(data_dir), *args)
    assert run.code == 2, run.stderr
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_a_missing_directory_exits_2(tmp_path: Path) -> None:
    run = run_main("timeline", "--data-dir", str(tmp_path / "nope"), *REQUEST)
    assert run.code == 2 and "does not exist" in run.stderr


def test_a_kraft_metadata_log(tmp_path: Path) -> None:
    """A KRaft directory (``--format kraft``, a checkpoint, control batches) gives the flips
    that ``explain --format kraft --at-offset`` shows; KRaft records no author."""
    from tests.kraft.layout import build_layout

    directory = build_layout(tmp_path).directory
    for name, flipped in (("a", [6, 10]), ("b", [10, 17]), ("c", [14])):
        args = ("--data-dir", str(directory), "--format", "kraft", "--principal", "User:alice")
        shown = _json("timeline", *args, "--operation", "Read", "--topic", name)
        library = timeline(
            directory, "User:alice", AclOperation.READ, ResourceType.TOPIC, name, kraft=True
        )
        assert shown == library.to_dict()
        assert [flip["offset"] for flip in shown["flips"]] == flipped
        for flip in shown["flips"]:
            assert flip["author"] is None
            explained = _json(
                "explain", *args, "--host", "10.0.0.1", "--operation", "Read", "--topic", name,
                "--at-offset", str(flip["offset"]),
            )  # fmt: skip
            assert explained["decision"] == flip["after"][-1]["decision"]


def test_an_empty_log_says_it_is_empty(tmp_path: Path) -> None:
    # it printed 'offsets 0..-1'
    question = ("--principal", "User:alice", "--operation", "Read", "--topic", "t")
    result = _ok("timeline", "--data-dir", str(tmp_path), *question)
    lines = result.stdout.splitlines()
    assert lines[0] == "User:alice READ on topic 't' from each host, the log is empty:"
    assert "-1" not in result.stdout and "no change in between" in result.stdout
