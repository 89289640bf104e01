"""``aclog acls`` and ``aclog users`` with ``--bootstrap-server`` on a real Kafka 4.0 broker: the
same JSON, exit codes and stderr as on a data directory (ids aside) — the steps
``tests/tools/test_remote_cli.py`` runs against ``aclog serve`` — and the same broker state as
Kafka's own ``kafka-acls.sh`` leaves.

The broker is shared by the session, so every name gets a prefix of this run's own. Named
differences: GLOB (Kafka 4.0 has no pattern type 5: refused, nothing stored), and reads after a
write, which Kafka answers once its authorizer has followed the metadata log (retried here).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.real_kafka import KafkaBroker, unique
from tests.tools.test_remote_cli import STEPS, _ids, _run, _with_target, _without_ids

NAMES = (
    "orders", "pay", "t", "??-accounts-*", "us-accounts-payable", "usa-accounts-payable",
    "payments", "tx", "User:alice", "User:bob", "User:fin", "User:mallory", "alice", "bob",
    "nobody",
)  # fmt: skip


def _renamed(args: tuple[str, ...], prefix: str) -> tuple[str, ...]:
    """``args`` with every name prefixed (a PREFIXED ``pay`` still covers ``payments``), the
    cluster-wide removal narrowed to the run's topics, and every listing of all users narrowed
    to the run's users: the broker holds other tests' ACLs and users."""
    renamed = tuple(
        (f"User:{prefix}{a[5:]}" if a.startswith("User:") else prefix + a) if a in NAMES else a
        for a in args
    )
    renamed = tuple(a for a in renamed if a != "--cluster")
    if renamed[:2] == ("users", "list") and renamed[2:] == ("--json",):
        renamed = ("users", "list", f"{prefix}alice", f"{prefix}bob", "--json")
    return renamed


def _is_read(args: tuple[str, ...]) -> bool:
    return "list" in args or "--dry-run" in args


def _settled(args: list[str], stdin: str | None, expected: Any, any_order: bool) -> Any:
    """Run a read until Kafka's answer equals ``expected`` (ten seconds at most)."""
    deadline = time.monotonic() + 10
    while True:
        result = _run(*args, stdin=stdin)
        if _without_ids(json.loads(result.stdout), any_order=any_order) == expected:
            return result
        if time.monotonic() > deadline:
            return result
        time.sleep(0.1)


def test_remote_json_exit_codes_and_errors_equal_the_data_dir_on_kafka(
    tmp_path: Path, kafka_broker: KafkaBroker
) -> None:
    prefix = unique("cli") + "-"
    local = ("--data-dir", str(tmp_path / "local"))
    remote = ("--bootstrap-server", kafka_broker.bootstrap)
    for original, stdin in STEPS:
        if "glob" in original:
            continue  # the GLOB difference: see test_glob_on_kafka_is_refused_and_stores_nothing
        args = _renamed(original, prefix)
        mine = _run(*_with_target(args, local), stdin=stdin)
        assert mine.exit_code in (0, 1), (args, mine.output)
        # Listings and removals come in commit order from a data directory, Kafka's from Kafka.
        any_order = _is_read(args) or "remove" in args
        expected = _without_ids(json.loads(mine.stdout), any_order=any_order)
        if _is_read(args):
            theirs = _settled(_with_target(args, remote), stdin, expected, any_order)
        else:
            theirs = _run(*_with_target(args, remote), stdin=stdin)
        assert (theirs.exit_code, theirs.stderr) == (mine.exit_code, mine.stderr), args
        assert _without_ids(json.loads(theirs.stdout), any_order=any_order) == expected, args
        assert all(i is None for i in _ids(json.loads(theirs.stdout))), args
    _remove_everything(remote, prefix)


def _remove_everything(remote: tuple[str, ...], prefix: str) -> None:
    for option, name in (("--topic", "orders"), ("--topic", "pay"), ("--topic", "t"),
                         ("--transactional-id", "tx")):  # fmt: skip
        done = _run("acls", "remove", *remote, option, prefix + name,
                    "--resource-pattern-type", "any", "--force")  # fmt: skip
        assert done.exit_code == 0, done.output


def test_glob_on_kafka_is_refused_and_stores_nothing(kafka_broker: KafkaBroker) -> None:
    remote = ("--bootstrap-server", kafka_broker.bootstrap)
    principal = f"User:{unique('glob')}"
    added = _run("acls", "add", *remote, "--allow-principal", principal, "--operation", "Read",
                 "--topic", "ledger-*", "--resource-pattern-type", "glob", "--json")  # fmt: skip
    assert added.exit_code == 1
    [row] = json.loads(added.stdout)["results"]
    # Refused before it is sent, saying why (Kafka itself says "Invalid patternType UNKNOWN").
    assert row["error_code"] == 42 and "does not store GLOB ACLs" in row["error_message"]
    listed = _run("acls", "list", *remote, "--principal", principal, "--json")
    assert json.loads(listed.stdout) == {"acls": []}


def test_malformed_principals_and_hosts_never_reach_kafka(kafka_broker: KafkaBroker) -> None:
    """Kafka's CreateAcls stores ``alice``, ``User:`` and host ``example.com`` (which then fail
    or never match every authorization); aclog refuses them before sending, as its own
    controller does and as kafka-acls.sh does for ``alice``."""
    topic = unique("poison")
    remote = ("--bootstrap-server", kafka_broker.bootstrap)
    for principal, host in (("alice", "*"), ("User:", "*"), ("User:x", "example.com")):
        added = _run("acls", "add", *remote, "--allow-principal", principal, "--allow-host",
                     host, "--operation", "Read", "--topic", topic)  # fmt: skip
        assert added.exit_code == 1 and "INVALID_REQUEST (42)" in added.stderr, added.output
    listed = kafka_broker.tool("kafka-acls.sh", *remote, "--list", "--topic", topic)
    assert listed.returncode == 0 and topic not in listed.stdout, listed.stdout


def _kafka_acls_rows(broker: KafkaBroker, topic: str) -> set[str]:
    """The ACL lines kafka-acls.sh --list prints for one topic."""
    listed = broker.tool("kafka-acls.sh", "--bootstrap-server", broker.bootstrap, "--list",
                         "--topic", topic)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    return {line.strip() for line in listed.stdout.splitlines() if "principal=" in line}


def _aclog_rows(broker: KafkaBroker, topic: str) -> set[tuple[str, ...]]:
    listed = _run("acls", "list", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                  "--json")  # fmt: skip
    assert listed.exit_code == 0, listed.output
    return {
        (a["principal"], a["host"], a["operation"], a["permission_type"], a["pattern_type"])
        for a in json.loads(listed.stdout)["acls"]
    }


CHANGE = ("--allow-principal", "User:{p}", "--allow-host", "10.0.0.1", "--operation", "Read",
          "--operation", "Describe", "--deny-principal", "User:{p}-x", "--operation", "Read",
          "--topic", "{t}")  # fmt: skip


def test_aclog_and_kafka_acls_sh_make_and_list_the_same_acls(kafka_broker: KafkaBroker) -> None:
    """The same change made with kafka-acls.sh and with aclog leaves the broker in the same
    state, and both tools list it alike."""
    states = []
    for maker in ("kafka", "aclog"):
        topic, principal = unique(f"diff-{maker}"), unique("p")
        args = [a.format(p=principal, t=topic) for a in CHANGE]
        if maker == "kafka":
            made = kafka_broker.tool("kafka-acls.sh", "--bootstrap-server",
                                     kafka_broker.bootstrap, "--add", *args)  # fmt: skip
            assert made.returncode == 0, made.stderr
        else:
            done = _run("acls", "add", "--bootstrap-server", kafka_broker.bootstrap, *args)
            assert done.exit_code == 0, done.output
        rows = _settled_rows(kafka_broker, topic, 4)
        seen_by_kafka = {r.replace(principal, "P").replace(topic, "T") for r in
                         _kafka_acls_rows(kafka_broker, topic)}  # fmt: skip
        assert len(seen_by_kafka) == 4
        states.append(({tuple(v.replace(principal, "P") for v in r) for r in rows}, seen_by_kafka))
        _run("acls", "remove", "--bootstrap-server", kafka_broker.bootstrap, "--topic", topic,
             "--force")  # fmt: skip
    assert states[0] == states[1]
    assert ("User:P", "10.0.0.1", "READ", "ALLOW", "LITERAL") in states[0][0]


def _settled_rows(broker: KafkaBroker, topic: str, count: int) -> set[tuple[str, ...]]:
    deadline = time.monotonic() + 10
    rows = _aclog_rows(broker, topic)
    while len(rows) != count and time.monotonic() < deadline:
        time.sleep(0.1)
        rows = _aclog_rows(broker, topic)
    return rows
