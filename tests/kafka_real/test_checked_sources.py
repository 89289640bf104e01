"""Records from a real Kafka 4.0 cluster pass aclog's rules before they enter a log, whichever
way they come: ``import --from-kraft --follow`` (from the broker's metadata directory) and
``aclog follow --bootstrap-server`` (through the admin API). Kafka stores an ACL whose host is
a host name; aclog's rules refuse one (hosts are compared as IP addresses, so it could never
match): it is kept out and reported, its later removal too, and everything else is recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.kafka_real.kraft_live import Follower, acl_tool, caught_up, eventually
from tests.real_kafka import KafkaBroker, unique
from tests.tools.harness import run_main
from tests.wire.harness import REPO


def _acls(target: Path) -> set[tuple[str, str]]:
    listed = run_main("acls", "list", "--data-dir", str(target), "--json")
    assert listed.code == 0, listed.stderr
    return {(a["resource_name"], a["host"]) for a in json.loads(listed.stdout)["acls"]}


def test_import_follow_keeps_out_a_host_name_acl_and_its_removal(
    kafka_broker: KafkaBroker, tmp_path: Path
) -> None:
    good, bad, principal = unique("checked-good"), unique("checked-bad"), f"User:{unique('u')}"
    target = tmp_path / "aclog"
    follower = Follower(tmp_path, kafka_broker.metadata_dir, target, "--interval", "0.2s",
                        "--skip-noop")  # fmt: skip
    try:
        assert eventually(caught_up(follower)), follower.stderr()
        acl_tool(kafka_broker, "--add", "--allow-principal", principal, "--allow-host",
                 "localhost", "--operation", "Read", "--topic", bad)  # fmt: skip
        acl_tool(kafka_broker, "--add", "--allow-principal", principal, "--operation", "Read",
                 "--topic", good)  # fmt: skip
        assert eventually(lambda: (good, "*") in _acls(target), 20), follower.stderr()
        assert "Invalid host 'localhost'" in follower.stderr()
        acl_tool(kafka_broker, "--remove", "--force", "--topic", bad)
        assert eventually(lambda: "removes the ACL kept out at KRaft offset" in follower.stderr())
    finally:
        code = follower.stop()
        acl_tool(kafka_broker, "--remove", "--force", "--topic", good)
    assert code == 1, follower.stderr()  # a rejected item, reported at the stop too
    report = follower.lines()[-1]
    kinds = [(r["type"], r["record"].get("resource_name")) for r in report["rejected"]]
    assert kinds[-2:] == [
        ("AccessControlEntryRecord", bad),
        ("RemoveAccessControlEntryRecord", None),
    ]
    assert all(isinstance(r["offset"], int) for r in report["rejected"])
    assert (bad, "localhost") not in _acls(target)
    assert run_main("verify", "--data-dir", str(target)).code == 0


def test_follow_through_the_admin_api_keeps_out_a_host_name_acl(
    kafka_broker: KafkaBroker, tmp_path: Path
) -> None:
    good, bad, principal = unique("observed-good"), unique("observed-bad"), f"User:{unique('u')}"
    acl_tool(kafka_broker, "--add", "--allow-principal", principal, "--allow-host", "localhost",
             "--operation", "Read", "--topic", bad)  # fmt: skip
    acl_tool(kafka_broker, "--add", "--allow-principal", principal, "--operation", "Read",
             "--topic", good)  # fmt: skip
    target, err = tmp_path / "followed", tmp_path / "follow.err"
    command = [sys.executable, "-m", "aclog", "follow", "--bootstrap-server",
               kafka_broker.bootstrap, "--data-dir", str(target), "--interval", "0.3s",
               "--json"]  # fmt: skip
    with err.open("wb") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr,
                                   stdin=subprocess.DEVNULL,
                                   env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    try:
        assert eventually(lambda: "kept out an observed" in err.read_text()), err.read_text()
        time.sleep(1.0)  # more polls: the kept-out ACL is said once, not at every poll
    finally:
        os.kill(process.pid, signal.SIGTERM)
        out, _ = process.communicate(timeout=20)
        acl_tool(kafka_broker, "--remove", "--force", "--topic", bad)
        acl_tool(kafka_broker, "--remove", "--force", "--topic", good)
    text = err.read_text()
    assert process.returncode == 1, text
    assert text.count(f"'resource_name': '{bad}'") == 1
    report = json.loads(out)
    assert [r["record"]["resource_name"] for r in report["rejected"]] == [bad]
    assert (good, "*") in _acls(target) and not any(name == bad for name, _ in _acls(target))
