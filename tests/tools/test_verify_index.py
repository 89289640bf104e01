"""``aclog verify`` warns about an offset index Kafka's ``kafka-dump-log.sh --verify-index-only``
would find mismatches in (one an earlier aclog wrote with first offsets), without touching it,
and the next writer's rebuild makes the warning go."""

from __future__ import annotations

import json
from pathlib import Path

from tests.log.kafka_index import rewrite_as_first_offsets
from tests.tools.harness import run_main, tree_stamps


def test_verify_warns_about_a_first_offset_index_until_a_writer_rebuilds_it(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    assert run_main("demo", "--tenancy", "--data-dir", str(data), "--no-show").code == 0
    fresh = run_main("verify", "--data-dir", str(data), "--json")
    assert fresh.code == 0 and json.loads(fresh.stdout)["warnings"] == []
    assert rewrite_as_first_offsets(data) > 0
    stamps = tree_stamps(data)
    old = run_main("verify", "--data-dir", str(data))
    assert old.code == 0, old.stderr
    assert "00000000000000000000.index:" in old.stderr
    assert "--verify-index-only" in old.stderr
    assert tree_stamps(data) == stamps  # verify reads only
    add = ("acls", "add", "--data-dir", str(data), "--allow-principal", "User:new")
    assert run_main(*add, "--operation", "Read", "--topic", "fresh").code == 0
    repaired = run_main("verify", "--data-dir", str(data), "--json")
    assert repaired.code == 0 and json.loads(repaired.stdout)["warnings"] == []
