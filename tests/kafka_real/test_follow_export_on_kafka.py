"""``aclog follow`` and ``aclog export`` against a real Kafka 4.0 broker changed by Kafka's own
tools: what follow records equals what the broker holds, and exporting the followed history
equals exporting the cluster."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.real_kafka import KafkaBroker, unique
from tests.tools.harness import run_main
from tests.tools.test_follow_cli import Follower, _eventually, _recorded


def _mine(state: dict[str, Any], principal: str, user: str) -> tuple[set[str], list[Any]]:
    """(the resource names of ``principal`` 's ACLs, ``user`` 's credentials) in a replay."""
    names = {a["resource_name"] for a in state["acls"] if a["principal"] == principal}
    users = [u["credentials"] for u in state["users"] if u["name"] == user]
    return names, users


def _export(*target: str) -> dict[str, Any]:
    done = run_main("export", "--format", "yaml", *target)
    assert done.code == 0, done.stderr
    loaded: dict[str, Any] = yaml.safe_load(done.stdout)
    return loaded


def _only(exported: dict[str, Any], principal: str, user: str) -> dict[str, Any]:
    """The parts of an export that name this test's principal and user."""
    text = json.dumps(exported)
    assert principal in text and user in text, text[:2000]
    # in any order: a data directory exports in commit order, a cluster in its DescribeAcls order
    acls = sorted(
        (a for a in exported.get("acls", []) if principal in json.dumps(a)), key=json.dumps
    )
    users = sorted((u for u in exported.get("users", []) if user in json.dumps(u)), key=json.dumps)
    return {"acls": acls, "users": users}


def test_follow_records_what_kafka_tools_change(tmp_path: Path, kafka_broker: KafkaBroker) -> None:
    principal, user, topic = f"User:{unique('fol')}", unique("folu"), unique("folt")
    bootstrap = ("--bootstrap-server", kafka_broker.bootstrap)
    acl = ("--add", "--allow-principal", principal, "--operation", "Read")
    made = kafka_broker.tool("kafka-acls.sh", *bootstrap, *acl, "--topic", topic)
    assert made.returncode == 0, made.stderr
    follower = Follower(tmp_path, kafka_broker.bootstrap)
    try:
        assert _eventually(lambda: _mine(_recorded(tmp_path), principal, user)[0] == {topic}, 30)
        made = kafka_broker.tool("kafka-acls.sh", *bootstrap, *acl, "--topic", f"{topic}-2",
                                 "--resource-pattern-type", "prefixed")  # fmt: skip
        assert made.returncode == 0, made.stderr
        config = kafka_broker.tool("kafka-configs.sh", *bootstrap, "--alter", "--entity-type",
                                   "users", "--entity-name", user, "--add-config",
                                   "SCRAM-SHA-512=[iterations=8192,password=pw]")  # fmt: skip
        assert config.returncode == 0, config.stderr
        expected = ({topic, f"{topic}-2"}, [[{"mechanism": "SCRAM-SHA-512", "iterations": 8192}]])
        assert _eventually(lambda: _mine(_recorded(tmp_path), principal, user) == expected, 30)
    finally:
        code, summary = follower.stop()
    assert code == 0, follower.stderr()
    assert summary["source"] == kafka_broker.bootstrap
    followed = _only(_export("--data-dir", str(tmp_path / "fol")), principal, user)
    live = _only(_export(*bootstrap), principal, user)
    assert followed == live and len(followed["acls"]) >= 1 and len(followed["users"]) == 1
    for pattern, name in (("literal", topic), ("prefixed", f"{topic}-2")):
        acl = ("--allow-principal", principal, "--operation", "Read", "--topic", name)
        removed = kafka_broker.tool("kafka-acls.sh", *bootstrap, "--remove", "--force", *acl,
                                    "--resource-pattern-type", pattern)  # fmt: skip
        assert removed.returncode == 0, removed.stderr
