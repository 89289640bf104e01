"""The ``users:`` entries of a desired-state file (:mod:`aclog.desired.load`): a name, a
mechanism, iterations, and where to read the password (``password_env`` or ``password_file``,
never the password itself). A user is refused as ``AlterUserScramCredentials`` would refuse it.

Pure functions over a :class:`~aclog.desired.fields.FieldReader`, which collects the problems;
not thread-safe (the reader is not). Cost: O(fields).
"""

from __future__ import annotations

from pathlib import Path

from yaml.nodes import Node

from aclog.controller import DEFAULT_ITERATIONS
from aclog.controller.requests import ScramUpsertion
from aclog.controller.validation import scram_upsertion_error
from aclog.desired.fields import FieldReader
from aclog.desired.nodes import line_of
from aclog.desired.state import DesiredUser, PasswordSource
from aclog.records import ScramMechanism

USER_KEYS = ("name", "mechanism", "iterations", "password_env", "password_file", "password")
UserKey = tuple[str, ScramMechanism]


def read_user(read: FieldReader, base: Path, node: Node, users: dict[UserKey, DesiredUser]) -> None:
    """Add the user entry at ``node`` to ``users``, or record its problems in ``read``."""
    values = read.mapping(node, "a user", USER_KEYS, required=("name", "mechanism"))
    if values is None:
        return
    if "password" in values:
        read.error(
            values["password"],
            "a password never goes in the file; name where to read it with password_env "
            "(an environment variable) or password_file (a file)",
        )
    if "name" not in values or "mechanism" not in values:
        return
    name = read.text(values["name"], "name")
    mechanism = read.mechanism(values["mechanism"])
    iterations = (
        read.integer(values["iterations"], "iterations")
        if "iterations" in values
        else DEFAULT_ITERATIONS
    )
    source = _password_source(read, base, node, values)
    if name is None or mechanism is None or iterations is None:
        return
    refused = scram_upsertion_error(ScramUpsertion(name, mechanism, iterations, b"-", b"-"))
    if refused is not None:
        read.error(node, f"user {name!r}: {refused.message}")
        return
    user = DesiredUser(name, mechanism, iterations, source, line_of(node))
    if user.key in users:
        read.error(
            node,
            f"user {name!r} with {mechanism.mechanism_name} is already declared at line "
            f"{users[user.key].line}",
        )
    else:
        users[user.key] = user


def _password_source(
    read: FieldReader, base: Path, node: Node, values: dict[str, Node]
) -> PasswordSource | None:
    if "password_env" in values and "password_file" in values:
        read.error(node, "give password_env or password_file, not both")
        return None
    if "password_env" in values:
        env = read.text(values["password_env"], "password_env")
        return None if env is None else PasswordSource(env=env)
    if "password_file" in values:
        file = read.text(values["password_file"], "password_file")
        return None if file is None else PasswordSource(file=base / file)
    return None
