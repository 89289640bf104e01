"""``aclog import --from-kraft`` and ``--follow`` on a real Kafka 4.0 broker's live metadata
directory (``kafka_snapshot_broker``: a snapshot every 5 s, a segment every 10 s, old segments
deleted after 20 s) while ACLs and SCRAM users change through Kafka's own tools: the imported
state equals what the broker answers, and aclog changes nothing in the broker's directory."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.kafka_real.kraft_live import (
    Follower,
    acl_tool,
    active_segment,
    caught_up,
    eventually,
    expected_exit,
    listing,
    scram_tool,
    untouched_by_aclog,
)
from tests.real_kafka import KafkaBroker, unique
from tests.tools.harness import run_main


def _listed(*args: str) -> dict[str, Any]:
    """``aclog acls list`` and ``users list`` as comparable sets (Kafka exposes no ACL ids)."""
    acls = run_main("acls", "list", "--json", *args)
    users = run_main("users", "list", "--json", *args)
    assert acls.code == 0 and users.code == 0, acls.stderr + users.stderr
    return {
        "acls": sorted(
            json.dumps({**a, "id": None}, sort_keys=True) for a in json.loads(acls.stdout)["acls"]
        ),
        "users": sorted(json.dumps(u, sort_keys=True) for u in json.loads(users.stdout)["users"]),
    }


def _broker_state(broker: KafkaBroker) -> dict[str, Any]:
    return _listed("--bootstrap-server", broker.bootstrap)


def _imported_state(target: Path) -> dict[str, Any]:
    return _listed("--data-dir", str(target))


class Changes:
    """ACLs and SCRAM users one test makes on the shared broker, removed again at the end."""

    def __init__(self, broker: KafkaBroker) -> None:
        self.broker = broker
        self.topic, self.group = unique("kraft-live"), unique("kraft-live-group")
        self.principal, self.user = f"User:{unique('reader')}", unique("scram")

    def grant(self, *operations: str) -> None:
        ops = [arg for op in operations for arg in ("--operation", op)]
        acl_tool(self.broker, "--add", "--allow-principal", self.principal, *ops,
                 "--topic", self.topic)  # fmt: skip

    def revoke(self, operation: str) -> None:
        acl_tool(self.broker, "--remove", "--force", "--allow-principal", self.principal,
                 "--operation", operation, "--topic", self.topic)  # fmt: skip

    def deny_group(self) -> None:
        acl_tool(self.broker, "--add", "--deny-principal", self.principal, "--operation", "Read",
                 "--group", self.group, "--resource-pattern-type", "prefixed")  # fmt: skip

    def set_user(self, mechanism: str) -> None:
        config = f"{mechanism}=[iterations=4096,password=pw-{mechanism}]"
        scram_tool(self.broker, "--alter", "--entity-name", self.user, "--add-config", config)

    def delete_user(self, mechanism: str) -> None:
        scram_tool(self.broker, "--alter", "--entity-name", self.user,
                   "--delete-config", mechanism)  # fmt: skip

    def clean(self) -> None:
        acl_tool(self.broker, "--remove", "--force", "--topic", self.topic)
        acl_tool(self.broker, "--remove", "--force", "--group", self.group,
                 "--resource-pattern-type", "prefixed")  # fmt: skip
        for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            self.broker.tool("kafka-configs.sh", "--bootstrap-server", self.broker.bootstrap,
                             "--entity-type", "users", "--alter", "--entity-name", self.user,
                             "--delete-config", mechanism)  # fmt: skip


def test_import_of_the_live_directory_equals_the_broker_and_changes_nothing(
    kafka_snapshot_broker: KafkaBroker, tmp_path: Path
) -> None:
    broker, source = kafka_snapshot_broker, kafka_snapshot_broker.metadata_dir
    changes = Changes(broker)
    try:
        changes.grant("Read", "Describe", "Write")
        changes.set_user("SCRAM-SHA-256")
        changes.revoke("Write")  # an addition and a removal the next snapshot folds in
        changes.deny_group()
        before, active = listing(source), active_segment(source)
        target = tmp_path / "aclog"
        imported = run_main("import", "--from-kraft", str(source), "--data-dir", str(target),
                            "--json")  # fmt: skip
        after = listing(source)
        report = json.loads(imported.stdout)
        assert imported.code == expected_exit(report), imported.stderr
        assert report["snapshot"] is not None  # the broker's snapshots are in use
        assert _imported_state(target) == _broker_state(broker)
        assert untouched_by_aclog(before, after, active) == []
        assert run_main("verify", "--data-dir", str(target)).code == 0
    finally:
        changes.clean()


def _rolled_and_deleted(source: Path, first: dict[str, Any]) -> bool:
    """Whether Kafka has, since ``first`` was listed, written a new snapshot and deleted a
    segment that was there then (so the follow went across both)."""
    now = listing(source)
    new_checkpoint = any(n.endswith(".checkpoint") and n not in first for n in now)
    deleted = any(n.endswith(".log") and n not in now for n in first)
    return new_checkpoint and deleted


def test_follow_across_snapshots_and_segment_deletion_keeps_the_broker_state(
    kafka_snapshot_broker: KafkaBroker, tmp_path: Path
) -> None:
    broker, source = kafka_snapshot_broker, kafka_snapshot_broker.metadata_dir
    changes, target = Changes(broker), tmp_path / "aclog"
    follower = Follower(tmp_path, source, target, "--interval", "0.2s", "--skip-noop")
    try:
        assert eventually(caught_up(follower)), follower.stderr()
        before, active = listing(source), active_segment(source)
        steps = [
            lambda: changes.grant("Read", "Describe"),
            lambda: changes.set_user("SCRAM-SHA-256"),
            lambda: changes.set_user("SCRAM-SHA-512"),
            lambda: changes.revoke("Describe"),
            changes.deny_group,
            lambda: changes.delete_user("SCRAM-SHA-256"),
        ]
        deadline = time.monotonic() + 90
        for step in steps:  # spread over the broker's rolls: a snapshot every 5 s
            step()
        # Kafka snapshots (and then deletes old segments) only after new records: keep making
        # some, an ALTER granted and revoked, until it has (a young broker may take a minute).
        toggles = 0
        while not _rolled_and_deleted(source, before) and time.monotonic() < deadline:
            if toggles % 2 == 0:
                changes.grant("Alter")
            else:
                changes.revoke("Alter")
            toggles += 1
            time.sleep(1.0)
        if toggles % 2:
            changes.revoke("Alter")
        assert _rolled_and_deleted(source, before), sorted(listing(source))
        expected = _broker_state(broker)
        assert eventually(lambda: _imported_state(target) == expected, 20)
        assert follower.process.poll() is None, follower.stderr()
    finally:
        code = follower.stop()
        changes.clean()
    assert code == expected_exit(follower.lines()[-1]), follower.stderr()
    assert untouched_by_aclog(before, listing(source), active) == []
    assert follower.lines()[-1]["records_written"] > 0
    assert run_main("verify", "--data-dir", str(target)).code == 0


def test_the_listing_check_sees_what_aclog_could_do_to_the_directory(tmp_path: Path) -> None:
    (tmp_path / "00000000000000000000.log").write_bytes(b"old")
    (tmp_path / "00000000000000000100.log").write_bytes(b"active")
    (tmp_path / "00000000000000000050-0000000001.checkpoint").write_bytes(b"snap")
    before = listing(tmp_path)
    (tmp_path / "00000000000000000100.log").write_bytes(b"active, grown by Kafka")
    assert untouched_by_aclog(before, listing(tmp_path), "00000000000000000100.log") == []
    (tmp_path / ".lock").write_bytes(b"")
    (tmp_path / "00000000000000000000.log").write_bytes(b"old!")
    found = untouched_by_aclog(before, listing(tmp_path), "00000000000000000100.log")
    assert [line.split(":")[0] for line in sorted(found)] == [
        ".lock",
        "00000000000000000000.log",
    ]
