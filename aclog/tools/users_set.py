"""``aclog users set``: create or replace a user's SCRAM credential for one mechanism."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from aclog.controller import (
    DEFAULT_ITERATIONS,
    ScramAlterResult,
    ScramUpsertion,
    scram_upsertion_error,
    upsertion_for_password,
)
from aclog.tools.console import EXIT_USAGE, fail
from aclog.tools.params import BootstrapServer, CommandConfig, JsonFlag, OptionalDataDir
from aclog.tools.remote import choose_target, open_admin
from aclog.tools.user_params import Mechanism, check_name, parse_mechanism, render_results
from aclog.tools.users import users_app
from aclog.tools.writing import local_caller


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
    secret = check_name(password, "--password") if password is not None else password_from_stdin()
    if not secret:
        fail("the password must not be empty", EXIT_USAGE)
    check_name(user, "USER")
    chosen = parse_mechanism(mechanism)
    target = choose_target(data_dir, bootstrap_server, command_config)
    # The checks that need no hash first: a refused request computes nothing and writes nothing.
    refused = scram_upsertion_error(ScramUpsertion(user, chosen, iterations, b"-", b"-"))
    if refused is not None:
        render_results(
            [ScramAlterResult(user, refused)],
            json_output,
            f"set {{user}}'s {chosen.mechanism_name} credential",
        )
        return
    upsertion = upsertion_for_password(user, chosen, secret, iterations)
    with open_admin(target, create=True) as admin:
        results = admin.alter_scram([upsertion], [], local_caller("aclog users set"))
    render_results(results, json_output, f"set {{user}}'s {chosen.mechanism_name} credential")


def password_from_stdin() -> str:
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
