"""``aclog pipeline who-can|reach|timeline|diff|lint``: each job's ``--json`` equals the
in-process command's answer row for row, on a tenancy log where principals, users and topics
overlap (team PREFIXED grants, tenant GLOBs, DENYs over ALLOWs, ``User:*`` and LITERAL ``*``,
orphans, several authors, a snapshot). Kept few and small: Spark is slow on two cores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from aclog.sample import Tenancy, tenancy, write_tenancy
from tests.tools.harness import run_main

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@pytest.fixture(scope="module")
def world() -> Tenancy:
    return tenancy(seed=4, tenants=2, teams=2, accounts=2, topics=3)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, world: Tenancy) -> Path:
    directory = tmp_path_factory.mktemp("tenancy")
    write_tenancy(directory, world, changes=30, seed=4, snapshot_every=25)
    return directory


def _json(*args: str) -> Any:
    run = run_main(*args, "--json")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def test_who_can_and_reach_jobs_equal_the_commands(
    spark: SparkSession, data_dir: Path, world: Tenancy, tmp_path: Path
) -> None:
    del spark  # the CLI reuses the session
    topics = [world.topics[0], world.topics[2], "public.status-0", "unknown.topic"]
    inventory = tmp_path / "resources.txt"
    inventory.write_text("".join(f"TOPIC:{t}\n" for t in topics) + "GROUP:x\n")
    job = _json(
        "pipeline", "who-can", "--data-dir", str(data_dir), "--resources", str(inventory),
        "--operation", "Read", "--operation", "Write", "--out", str(tmp_path / "who"),
    )  # fmt: skip
    expected = [
        _json("who-can", "--data-dir", str(data_dir), "--operation", op, f"--{kind}", name)
        for kind, name in sorted([("group", "x")] + [("topic", t) for t in topics], key=_by_type)
        for op in ("Read", "Write")
    ]
    assert job["answers"] == expected
    assert any(answer["allowed"] for answer in expected), "the tenancy allows something"
    people = [*world.principals[:3], "User:intruder"]
    job = _json(
        "pipeline", "reach", "--data-dir", str(data_dir), *_each("--principal", people),
        "--host", "10.0.0.1",
    )  # fmt: skip
    expected = [
        _json("reach", "--data-dir", str(data_dir), "--principal", p, "--host", "10.0.0.1")
        for p in sorted(people)
    ]
    assert job["answers"] == expected
    assert all(answer["resources"] for answer in expected)


def _by_type(resource: tuple[str, str]) -> tuple[str, str]:
    return resource[0].upper(), resource[1]


def _each(option: str, values: list[str]) -> list[str]:
    return [part for value in values for part in (option, value)]


def test_timeline_job_equals_the_command(data_dir: Path, world: Tenancy) -> None:
    people = [f"User:{world.people[0]}", f"User:{world.teams[0].accounts[0]}"]
    topics = list(world.topics[:3])
    job = _json(
        "pipeline", "timeline", "--data-dir", str(data_dir), *_each("--principal", people),
        *_each("--topic", topics), "--operation", "Read", "--operation", "Write",
        "--from", "3",
    )  # fmt: skip
    expected = [
        _json(
            "timeline",
            "--data-dir",
            str(data_dir),
            "--principal",
            p,
            "--topic",
            t,
            "--operation",
            op,
            "--from",
            "3",
        )
        for p in people
        for t in topics
        for op in ("Read", "Write")
    ]
    assert job["timelines"] == expected
    assert any(answer["flips"] for answer in expected), "something flips in the tenancy log"


def test_diff_and_lint_jobs_equal_the_commands(data_dir: Path) -> None:
    for start, end in (("0", "40"), ("12", "2030-01-01T00:00:00Z")):
        job = _json("pipeline", "diff", "--data-dir", str(data_dir), "--from", start, "--to", end)
        expected = _json("diff", "--data-dir", str(data_dir), "--from", start, "--to", end)
        assert job == expected
        assert expected["acls"]
    assert expected["credentials"], "credentials changed between offset 12 and the end"
    job = _json("pipeline", "lint", "--data-dir", str(data_dir), "--at-time", "2030-01-01")
    expected = _json("lint", "--data-dir", str(data_dir), "--at-time", "2030-01-01")
    assert job == expected
    kinds = {finding["kind"] for finding in expected["findings"]}
    assert {"redundant_acl", "weak_iterations", "any_principal"} <= kinds
    backwards = run_main(
        "pipeline", "diff", "--data-dir", str(data_dir), "--from", "40", "--to", "3"
    )
    assert backwards.code == 2 and "--from comes after --to" in backwards.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("who-can", "--operation", "Read"), "name the resources"),
        (("who-can", "--operation", "Reed", "--topic", "t"), "Reed"),
        (("reach", "--resource-type", "topic"), "name the principals"),
        (("reach", "--principal", "User:a", "--resource-type", "nothing"), "nothing"),
        (("timeline", "--operation", "Read", "--topic", "t"), "name the principals"),
        (
            (
                "timeline",
                "--operation",
                "Read",
                "--topic",
                "t",
                "--principal",
                "User:a",
                "--from",
                "-3",
            ),
            "offsets start at 0",
        ),
        (("lint", "--fail-on", "never"), "never"),
    ],
)
def test_usage_errors_exit_2_before_spark(
    data_dir: Path, args: tuple[str, ...], message: str
) -> None:
    run = run_main("pipeline", *args, "--data-dir", str(data_dir))
    assert run.code == 2, run.stderr
    assert message in run.stderr and "Traceback" not in run.stderr
