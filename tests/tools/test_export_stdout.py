"""``aclog export`` to stdout is the same file as ``--out``: a desired-state file that loads back
to the ACLs it came from, whatever the names hold.

Stdout went through the escaping every text output uses, which rewrote what the YAML said:
``aclog export > acls.yaml`` turned a tab in a name into ``\\\\t`` and a bidi override into the
six characters ``\\u202e``, and applying the file then removed the real ACLs and added others.
The export now writes only printable characters itself (YAML escapes for the rest), so stdout
is safe for a terminal and exact in a file.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from aclog.controller import Controller, LocalOperator
from aclog.desired import CurrentState, export_yaml, load_desired
from aclog.records import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from tests.tools.harness import run_main

_NAME = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda name: name != "*"
)


def _acl(name: str, user: str) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC, name, PatternType.LITERAL, f"User:{user}", "*",
        AclOperation.READ, AclPermissionType.ALLOW,
    )  # fmt: skip


@given(st.lists(st.tuples(_NAME, _NAME), min_size=1, max_size=6))
@settings(deadline=None, max_examples=60)
def test_the_export_shows_only_printable_characters_and_loads_back(
    names: list[tuple[str, str]],
) -> None:
    acls = [_acl(name, user) for name, user in names]
    current = CurrentState(CurrentState.from_described(acls, []).acls, {})
    text = export_yaml(current)
    assert all(line.isprintable() for line in text.splitlines()), text

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch, "exported.yaml")
        path.write_text(text, encoding="utf-8")
        assert set(load_desired(path).acls) == set(current.acls)


@settings(deadline=None, max_examples=15)
@given(st.lists(st.tuples(_NAME, _NAME), min_size=1, max_size=4))
def test_export_to_stdout_is_the_file_out_writes_and_plans_to_no_changes(
    names: list[tuple[str, str]],
) -> None:

    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch, "data")
        with Controller.open(data, authorizer=LocalOperator()) as controller:
            result = controller.create_acls([_acl(n, u) for n, u in names])
            assert all(r.error.is_success for r in result), result
        shown = run_main("export", "--data-dir", str(data))
        assert shown.code == 0, shown.stderr
        written = Path(scratch, "out.yaml")
        assert run_main("export", "--data-dir", str(data), "--out", str(written)).code == 0
        assert shown.stdout == written.read_text(encoding="utf-8")
        piped = Path(scratch, "piped.yaml")
        piped.write_text(shown.stdout, encoding="utf-8")
        plan = run_main("plan", str(piped), "--data-dir", str(data))
        assert plan.code == 0 and plan.stdout.rstrip().endswith("no changes"), plan.stdout


def test_a_tab_and_a_bidi_override_survive_export_to_stdout(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for topic in ("tab\there", "pay\u202ements", "back\\slash", "a\\nb"):
        added = run_main("acls", "add", "--data-dir", str(data), "--allow-principal",
                         "User:a", "--operation", "Read", "--topic", topic)  # fmt: skip
        assert added.code == 0, added.stderr
    shown = run_main("export", "--data-dir", str(data))
    assert '"tab\\there"' in shown.stdout and '"pay\\u202ements"' in shown.stdout
    assert "back\\slash" in shown.stdout and "a\\nb" in shown.stdout
    piped = tmp_path / "piped.yaml"
    piped.write_text(shown.stdout, encoding="utf-8")
    plan = run_main("plan", str(piped), "--data-dir", str(data))
    assert plan.stdout.rstrip().endswith("no changes"), plan.stdout
