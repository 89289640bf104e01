"""Shell completion as a shell asks for it: ``aclog`` run with ``_ACLOG_COMPLETE=complete_bash``
and the words typed so far (what the script ``aclog --install-completion`` installs does),
printing one completion a line. And, as a property, that every value offered is one the option
accepts, meaning what was being typed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from aclog.records import AclOperation, ScramMechanism
from aclog.tools.completion import (
    ACL_OPERATIONS,
    camel_case,
    complete_operation,
    pattern_type_names,
    starting_with,
)
from aclog.tools.options import parse_operation
from aclog.tools.user_params import MECHANISMS

ROOT = Path(__file__).resolve().parents[2]
AS_ACLOG = "import sys; sys.argv[0] = 'aclog'; from aclog.tools.main import main; main()"
"""``aclog`` under its own name (the completion variable is named after the program)."""


def complete(*words: str) -> list[str]:
    """What bash is offered for the last of ``words`` (``""``: after a space)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "_ACLOG_COMPLETE": "complete_bash",
        "COMP_WORDS": " ".join(["aclog", *words]),
        "COMP_CWORD": str(len(words)),
    }
    done = subprocess.run(
        [sys.executable, "-c", AS_ACLOG],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout.split()


def test_operation_values_complete_in_kafka_acls_spelling() -> None:
    assert complete("acls", "add", "--operation", "") == [
        "All",
        "Read",
        "Write",
        "Create",
        "Delete",
        "Alter",
        "Describe",
        "ClusterAction",
        "DescribeConfigs",
        "AlterConfigs",
        "IdempotentWrite",
        "CreateTokens",
        "DescribeTokens",
    ]
    assert complete("who-can", "--operation", "desc") == [
        "describe",
        "describe-configs",
        "describe-tokens",
    ]


def test_pattern_types_complete_with_what_the_command_takes() -> None:
    assert complete("acls", "add", "--resource-pattern-type", "") == [
        "literal",
        "prefixed",
        "glob",
    ]
    assert complete("acls", "list", "--resource-pattern-type", "") == [
        "literal",
        "prefixed",
        "glob",
        "any",
        "match",
    ]


def test_mechanisms_and_command_names_complete() -> None:
    assert complete("users", "set", "alice", "--mechanism", "") == [
        "SCRAM-SHA-256",
        "SCRAM-SHA-512",
    ]
    assert complete("acls", "") == ["add", "list", "remove"]
    assert complete("re") == ["replay", "reach"]


@given(st.sampled_from(ACL_OPERATIONS), st.data())
def test_an_offered_operation_parses_to_the_one_being_typed(
    operation: AclOperation, data: st.DataObject
) -> None:
    # the spellings a user may type (DESCRIBE_CONFIGS, describe_configs, describe-configs,
    # DescribeConfigs), cut anywhere
    name = data.draw(
        st.sampled_from(
            [
                operation.name,
                operation.name.lower(),
                operation.name.replace("_", "-").lower(),
                camel_case(operation.name),
            ]
        )
    )
    typed = name[: data.draw(st.integers(0, len(name)))]
    offered = complete_operation(typed)
    assert all(value.startswith(typed) for value in offered)
    assert operation in [parse_operation(value) for value in offered]


@given(st.sampled_from(MECHANISMS + tuple(pattern_type_names(filter_ok=True))), st.data())
def test_an_offered_value_starts_with_what_was_typed(name: str, data: st.DataObject) -> None:
    typed = name.lower()[: data.draw(st.integers(0, len(name)))]
    offered = starting_with(typed, [name])
    assert len(offered) == 1 and offered[0].startswith(typed)
    assert offered[0].lower() == name.lower()


def test_the_mechanisms_are_kafkas() -> None:
    assert [ScramMechanism.parse(name) for name in MECHANISMS] == [
        ScramMechanism.SCRAM_SHA_256,
        ScramMechanism.SCRAM_SHA_512,
    ]
