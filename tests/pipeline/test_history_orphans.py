"""The ``history`` and ``orphans`` jobs equal straightforward in-process computations."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from typer.testing import CliRunner

import aclog.tools.pipeline  # noqa: F401  (registers the commands)
from aclog.acl.matchers import field_matches, principal_matcher
from aclog.authorizer import pattern_applies
from aclog.pipeline.history import history, timeline
from aclog.pipeline.load import read_records, records_as_of
from aclog.records import (
    AccessControlEntryRecord,
    PatternType,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ResourceType,
    UserScramCredentialRecord,
    kafka_uuid_text,
)
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import read_decoded
from aclog.tools.console import app
from tests.pipeline.conftest import Logs

runner = CliRunner()


def _reference_lifetimes(directory: Path) -> set[tuple[Any, ...]]:
    """(kind, key, created offset and author, rotations, last rotation, removal) per lifetime,
    walking the decoded log once."""
    found: set[tuple[Any, ...]] = set()
    acls: dict[str, list[Any]] = {}
    open_credentials: dict[tuple[str, str], list[Any]] = {}
    for batch in read_decoded(directory):
        for entry in batch.entries:
            record = entry.record
            who = None if entry.author is None else entry.author.principal
            event = (entry.offset, entry.timestamp_ms, who)
            if isinstance(record, AccessControlEntryRecord):
                acls[kafka_uuid_text(record.id)] = [event, None]
            elif isinstance(record, RemoveAccessControlEntryRecord):
                acls[kafka_uuid_text(record.id)][1] = event
            elif isinstance(record, UserScramCredentialRecord | RemoveUserScramCredentialRecord):
                key = (record.name, record.mechanism.mechanism_name)
                current = open_credentials.get(key)
                if isinstance(record, RemoveUserScramCredentialRecord):
                    assert current is not None
                    found.add(("scram_credential", key, current[0], current[1], current[2], event))
                    del open_credentials[key]
                elif current is None:
                    open_credentials[key] = [event, 0, None]
                else:
                    current[1] += 1
                    current[2] = event
    for acl_id, (created, removed) in acls.items():
        found.add(("acl", acl_id, created, 0, None, removed))
    for key, (created, rotations, rotated) in open_credentials.items():
        found.add(("scram_credential", key, created, rotations, rotated, None))
    return found


def _event(row: dict[str, Any], prefix: str) -> tuple[Any, ...] | None:
    if row[f"{prefix}_offset"] is None:
        return None
    return (row[f"{prefix}_offset"], row[f"{prefix}_ms"], row[f"{prefix}_by"])


def _lifetimes(frame: DataFrame) -> set[tuple[Any, ...]]:
    with_ms = frame.select(
        "*",
        *(
            F.unix_millis(f"{p}_time").alias(f"{p}_ms")
            for p in ("created", "last_rotated", "removed")
        ),
    )
    found = set()
    for row in (r.asDict() for r in with_ms.collect()):
        key = row["acl_id"] if row["kind"] == "acl" else (row["user"], row["mechanism"])
        found.add(
            (
                row["kind"],
                key,
                _event(row, "created"),
                row["rotations"],
                _event(row, "last_rotated"),
                _event(row, "removed"),
            )
        )
    return found


def test_history_equals_a_walk_of_the_log_and_draws(
    spark: SparkSession, logs: Logs, tmp_path: Path
) -> None:
    lifetimes = history(read_records(spark, logs.full))
    expected = _reference_lifetimes(logs.full)
    assert _lifetimes(lifetimes) == expected
    assert any(e[0] == "scram_credential" and e[3] > 0 for e in expected)  # a rotation
    assert any(e[0] == "acl" and e[5] is not None for e in expected)  # a removal
    # The timeline ends at what is alive at the end of the log.
    last: dict[str, tuple[int, int]] = {}
    for point in timeline(lifetimes).collect():
        last[point["kind"]] = max(
            last.get(point["kind"], (-1, 0)), (point["offset"], point["count"])
        )
    alive = Counter(e[0] for e in expected if e[5] is None)
    assert {kind: count for kind, (_, count) in last.items()} == dict(alive)
    points = timeline(lifetimes).collect()
    for kind in ("acl", "scram_credential"):  # every start and every end, apart
        ours = [p for p in points if p["kind"] == kind]
        assert sum(p["added"] for p in ours) == sum(1 for e in expected if e[0] == kind)
        removed = sum(1 for e in expected if e[0] == kind and e[5] is not None)
        assert sum(p["removed"] for p in ours) == removed
    picture = tmp_path / "history.png"
    out = tmp_path / "history"
    result = runner.invoke(
        app,
        [
            "pipeline",
            "history",
            "--data-dir",
            str(logs.full),
            "--out",
            str(out),
            "--plot",
            str(picture),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shown = json.loads(result.stdout)["lifetimes"]
    assert len(shown) == len(expected)
    assert spark.read.parquet(str(out)).count() == len(expected)


def test_history_of_a_pruned_log_starts_at_its_snapshot(spark: SparkSession, logs: Logs) -> None:
    chosen = records_as_of(spark, logs.pruned, at_offset=None)
    assert chosen.snapshot is not None
    rows = history(chosen.frame).collect()
    inexact = [r for r in rows if not r["created_exact"]]
    assert inexact and all(r["created_offset"] == chosen.snapshot.last_offset for r in inexact)
    # Whatever lives at the end of the log is a lifetime without a removal.
    image = rebuild_image(logs.pruned).image
    alive = {r["acl_id"] for r in rows if r["kind"] == "acl" and r["removed_offset"] is None}
    assert alive == {kafka_uuid_text(a.id) for a in image.acls}


def _reference_orphans(directory: Path, inventory: list[tuple[ResourceType, str]]) -> set[Any]:
    image = rebuild_image(directory).image
    users = set(image.scram.users)
    found: set[Any] = set()
    naming: set[str] = set()
    for acl in image.acls:
        matcher = principal_matcher(acl.principal, acl.pattern_type == PatternType.GLOB)
        if matcher is None or (isinstance(matcher, str) and not matcher.startswith("User:")):
            continue
        named = {u for u in users if field_matches(matcher, f"User:{u}")}
        naming |= named
        if not named:
            found.add(("acl_without_credential", kafka_uuid_text(acl.id), None))
    for user in users - naming:
        found.add(("credential_without_acl", None, user))
    for acl in image.acls:
        if not any(
            t == acl.resource_type and pattern_applies(acl.pattern_type, acl.resource_name, n)
            for t, n in inventory
        ):
            found.add(("acl_without_resource", kafka_uuid_text(acl.id), None))
    return found


def test_orphans_equal_the_reference_and_the_cli(
    spark: SparkSession, logs: Logs, tmp_path: Path
) -> None:
    inventory = [
        (ResourceType.TOPIC, "orders"),
        (ResourceType.TOPIC, "payments"),
        (ResourceType.GROUP, "x"),
    ]
    inventory_file = tmp_path / "inventory.txt"
    inventory_file.write_text("".join(f"{t.name}:{n}\n" for t, n in inventory))
    result = runner.invoke(
        app,
        [
            "pipeline",
            "orphans",
            "--data-dir",
            str(logs.full),
            "--resources",
            str(inventory_file),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)["orphans"]
    got = {(r["kind"], r["acl_id"], r["user"]) for r in shown}
    expected = _reference_orphans(logs.full, inventory)
    assert got == expected
    assert {kind for kind, _, _ in expected} == {
        "acl_without_credential",
        "credential_without_acl",
        "acl_without_resource",
    }
