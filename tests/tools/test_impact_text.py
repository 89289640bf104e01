"""The impact rows of ``acls add --dry-run --inventory`` and ``plan --inventory`` say where the
client stands in words: the address examined for "a client no host-specific ACL names" is
0.0.0.0, which the text showed as if a real client there had been asked."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tools.harness import run_main


def test_an_impact_on_any_host_reads_as_any_other_host(tmp_path: Path) -> None:
    data, inventory = tmp_path / "data", tmp_path / "topics.txt"
    inventory.write_text("TOPIC:12-accounts-x\nTOPIC:orders\n")
    add = ("acls", "add", "--data-dir", str(data), "--allow-principal", "User:audit",
           "--operation", "Read", "--topic", "??-accounts-*", "--resource-pattern-type", "glob",
           "--dry-run", "--inventory", str(inventory))  # fmt: skip
    text = run_main(*add)
    assert text.code == 0, text.stderr
    assert "User:audit from any other host READ: DENIED -> ALLOWED" in text.stdout
    assert "0.0.0.0" not in text.stdout
    shown = json.loads(run_main(*add, "--json").stdout)
    [impact] = shown["impact"]
    assert {c["host"] for c in impact["changes"]} == {"0.0.0.0"}  # the library's result
    hosted = run_main(*add[:-5], "--allow-host", "10.0.0.7", *add[-5:])
    assert "User:audit from 10.0.0.7 READ: DENIED -> ALLOWED" in hosted.stdout
