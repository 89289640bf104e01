"""``aclog users set|delete|list``: SCRAM credentials on a data directory (kafka-configs style),
or on any Kafka cluster with ``--bootstrap-server`` (see :mod:`aclog.tools.remote`).

The password never reaches the log or the network: the CLI salts and hashes it (RFC 5802
``Hi``) the way a Kafka admin client does, and the controller stores only StoredKey and
ServerKey.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Annotated

import typer

from aclog.acl import ApiError
from aclog.controller import (
    DEFAULT_ITERATIONS,
    MAX_ITERATIONS,
    MIN_ITERATIONS,
    ScramAlterResult,
    ScramDeletion,
    ScramUpsertion,
    scram_upsertion_error,
    upsertion_for_password,
)
from aclog.image import ScramDescribeResult, user_to_dict
from aclog.kraft import is_kraft_path
from aclog.records import ScramMechanism
from aclog.tools.commands import COMMANDS
from aclog.tools.common import JsonFlag, OptionalDataDir, load_state
from aclog.tools.completion import completer
from aclog.tools.console import EXIT_USAGE, app, counted, fail, print_json, print_line
from aclog.tools.options import OptionError, check_text
from aclog.tools.remote import (
    BootstrapServer,
    CommandConfig,
    RemoteTarget,
    Target,
    choose_target,
    open_admin,
)
from aclog.tools.writing import local_caller, report_failures

users_app = typer.Typer(help=COMMANDS["users"].help, no_args_is_help=True)
app.add_typer(users_app, name="users")

MECHANISMS = tuple(m.name.replace("_", "-") for m in ScramMechanism if m != ScramMechanism.UNKNOWN)
"""``SCRAM-SHA-256``, ``SCRAM-SHA-512``: the mechanisms as Kafka names them."""

Mechanism = Annotated[
    str,
    typer.Option(
        "--mechanism", help=" or ".join(MECHANISMS) + ".", autocompletion=completer(MECHANISMS)
    ),
]


def _mechanism(text: str) -> ScramMechanism:
    _text(text, "--mechanism")
    try:
        mechanism = ScramMechanism.parse(text)
    except ValueError:
        mechanism = ScramMechanism.UNKNOWN
    if mechanism == ScramMechanism.UNKNOWN:
        fail(f"unknown SCRAM mechanism {text!r}; use {' or '.join(MECHANISMS)}", EXIT_USAGE)
    return mechanism


@users_app.command("set")
def set_user(
    user: Annotated[str, typer.Argument(help="The user name (principal User:<name>).")],
    mechanism: Mechanism,
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    iterations: Annotated[int, typer.Option(help="PBKDF2 iterations, 4096 to 16384.")] = (
        DEFAULT_ITERATIONS
    ),
    password: Annotated[
        str | None, typer.Option("--password", help="The password (visible in `ps`).")
    ] = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from stdin.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Create or replace USER's credential for one mechanism (a missing data directory is
    created)."""
    if (password is None) == (not password_stdin):
        fail("give exactly one of --password or --password-stdin", EXIT_USAGE)
    secret = _text(password, "--password") if password is not None else _password_from_stdin()
    if not secret:
        fail("the password must not be empty", EXIT_USAGE)
    _text(user, "USER")
    chosen = _mechanism(mechanism)
    target = choose_target(data_dir, bootstrap_server, command_config)
    # The checks that need no hash first: a refused request computes nothing and writes nothing.
    refused = scram_upsertion_error(ScramUpsertion(user, chosen, iterations, b"-", b"-"))
    if refused is not None:
        _render(
            [ScramAlterResult(user, refused)],
            json_output,
            f"set {{user}}'s {chosen.mechanism_name} credential",
        )
        return
    upsertion = upsertion_for_password(user, chosen, secret, iterations)
    with open_admin(target, create=True) as admin:
        results = admin.alter_scram([upsertion], [], local_caller("aclog users set"))
    _render(results, json_output, f"set {{user}}'s {chosen.mechanism_name} credential")


def _text(value: str, option: str) -> str:
    try:
        return check_text(value, option)
    except OptionError as error:
        fail(str(error), EXIT_USAGE)


def _password_from_stdin() -> str:
    """The first line of stdin, which must be UTF-8 (the password is hashed as UTF-8)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        fail("--password-stdin: there is no stdin to read", EXIT_USAGE)
    line: bytes = stream.readline().rstrip(b"\r\n")
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as error:
        fail(
            f"--password-stdin: line 1 of stdin is not UTF-8 text (byte {line[error.start]:#04x} "
            f"at column {error.start + 1})",
            EXIT_USAGE,
        )


@users_app.command("delete")
def delete_user(
    user: Annotated[str, typer.Argument(help="The user name.")],
    mechanism: Mechanism,
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    json_output: JsonFlag = False,
) -> None:
    """Delete USER's credential for one mechanism."""
    deletion = ScramDeletion(_text(user, "USER"), _mechanism(mechanism))
    target = choose_target(data_dir, bootstrap_server, command_config)
    with open_admin(target) as admin:
        results = admin.alter_scram([], [deletion], local_caller("aclog users delete"))
    name = deletion.mechanism.mechanism_name
    _render(results, json_output, f"deleted {{user}}'s {name} credential")


def _describe(
    target: Target, users: list[str] | None
) -> tuple[ApiError, list[ScramDescribeResult]]:
    """DescribeUserScramCredentials on a cluster, or over a data directory's committed state."""
    if not isinstance(target, RemoteTarget):
        state = load_state(target, None, None, kraft=is_kraft_path(target))  # KRaft: read-only
        return ApiError.NONE, state.image.scram.describe(users)
    with open_admin(target) as admin:
        return admin.describe_scram(users, local_caller("aclog users list"))


def _render(results: list[ScramAlterResult], json_output: bool, done: str) -> None:
    """The results as JSON, or a line per success from the ``done`` template (``{user}`` is
    replaced): the line names the mechanism, because a user may keep a credential for the
    other one."""
    if json_output:
        print_json(
            {
                "results": [
                    {"user": r.user, "error_code": r.error.code, "error_message": r.error.message}
                    for r in results
                ]
            }
        )
    else:
        for r in results:
            if r.error.is_success:
                print_line(done.format(user=r.user))
    report_failures(
        [(f"user {r.user}", _with_range(r.error)) for r in results if not r.error.is_success]
    )


def _with_range(error: ApiError) -> ApiError:
    """Kafka's "Too few iterations" with the range it does not name (stderr only: ``--json``
    keeps the message the cluster or the controller sent)."""
    if error.message in ("Too few iterations", "Too many iterations"):
        wanted = f"{error.message}: use --iterations {MIN_ITERATIONS} to {MAX_ITERATIONS}"
        return dataclasses.replace(error, message=wanted)
    return error


@users_app.command("list")
def list_users(
    users: Annotated[list[str] | None, typer.Argument(help="Only these users.")] = None,
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    json_output: JsonFlag = False,
) -> None:
    """List users with their mechanisms and iteration counts (reads without locking)."""
    for name in users or []:
        _text(name, "USERS")
    target = choose_target(data_dir, bootstrap_server, command_config)
    error, described = _describe(target, users or None)
    report_failures([] if error.is_success else [("users", error)])  # no listing, no "0 users"
    found = [
        user_to_dict(d.user, {c.mechanism: c for c in d.credentials})
        for d in described
        if d.error.is_success
    ]
    if json_output:
        print_json({"users": found})
    else:
        for d in described:
            mechanisms = ", ".join(
                f"{c.mechanism.mechanism_name} ({c.iterations} iterations)" for c in d.credentials
            )
            print_line(f"{d.user}: {mechanisms}")
        print_line(counted(len(found), "SCRAM user"))  # as 'acls list' ends: an empty log says so
    report_failures([(f"user {d.user}", d.error) for d in described if not d.error.is_success])
