"""What ``aclog users set`` and ``users delete`` do once :mod:`aclog.tools.users_set` and
:mod:`aclog.tools.users_delete` have their options, and how the results of a change are shown.

The password never reaches the log or the network: it is salted and hashed here (RFC 5802
``Hi``) the way a Kafka admin client does, and the controller stores only StoredKey and
ServerKey.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from aclog.acl import ApiError
from aclog.controller import (
    MAX_ITERATIONS,
    MIN_ITERATIONS,
    ScramAlterResult,
    ScramDeletion,
    ScramUpsertion,
    scram_upsertion_error,
    upsertion_for_password,
)
from aclog.records import ScramMechanism
from aclog.tools.console import EXIT_USAGE, fail, print_json, print_line
from aclog.tools.options import OptionError, check_text
from aclog.tools.remote import choose_target, open_admin
from aclog.tools.user_params import MECHANISMS
from aclog.tools.writing import local_caller, report_failures

Where = tuple[Path | None, str | None, Path | None]
"""``--data-dir``, ``--bootstrap-server`` and ``--command-config`` as given."""


def set_credential(
    user: str,
    mechanism: str,
    where: Where,
    iterations: int,
    password: str | None,
    password_stdin: bool,
    json_output: bool,
) -> None:
    """``aclog users set``: create or replace ``user``'s credential for one mechanism."""
    if (password is None) == (not password_stdin):
        fail("give exactly one of --password or --password-stdin", EXIT_USAGE)
    secret = check_name(password, "--password") if password is not None else password_from_stdin()
    if not secret:
        fail("the password must not be empty", EXIT_USAGE)
    check_name(user, "USER")
    chosen = parse_mechanism(mechanism)
    target = choose_target(*where)
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


def delete_credential(user: str, mechanism: str, where: Where, json_output: bool) -> None:
    """``aclog users delete``: delete ``user``'s credential for one mechanism."""
    deletion = ScramDeletion(check_name(user, "USER"), parse_mechanism(mechanism))
    target = choose_target(*where)
    with open_admin(target) as admin:
        results = admin.alter_scram([], [deletion], local_caller("aclog users delete"))
    name = deletion.mechanism.mechanism_name
    render_results(results, json_output, f"deleted {{user}}'s {name} credential")


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


def parse_mechanism(text: str) -> ScramMechanism:
    """The mechanism ``--mechanism`` names; an unknown one exits 2 naming the two there are."""
    check_name(text, "--mechanism")
    try:
        mechanism = ScramMechanism.parse(text)
    except ValueError:
        mechanism = ScramMechanism.UNKNOWN
    if mechanism == ScramMechanism.UNKNOWN:
        fail(f"unknown SCRAM mechanism {text!r}; use {' or '.join(MECHANISMS)}", EXIT_USAGE)
    return mechanism


def check_name(value: str, option: str) -> str:
    """``value``, if a name can hold it (UTF-8 text); else exit 2 saying why."""
    try:
        return check_text(value, option)
    except OptionError as error:
        fail(str(error), EXIT_USAGE)


def render_results(results: list[ScramAlterResult], json_output: bool, done: str) -> None:
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
