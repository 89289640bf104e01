"""What the ``aclog users`` commands share: the ``--mechanism`` option, checks of the text
given, and how the results of a change are shown.

Declarations and pure functions; thread-safe. Cost: nothing at run time.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated

import typer

from aclog.acl import ApiError
from aclog.controller import MAX_ITERATIONS, MIN_ITERATIONS, ScramAlterResult
from aclog.records import ScramMechanism
from aclog.tools.completion import completer
from aclog.tools.console import EXIT_USAGE, fail, print_json, print_line
from aclog.tools.options import OptionError, check_text
from aclog.tools.writing import report_failures

MECHANISMS = tuple(m.name.replace("_", "-") for m in ScramMechanism if m != ScramMechanism.UNKNOWN)
"""``SCRAM-SHA-256``, ``SCRAM-SHA-512``: the mechanisms as Kafka names them."""

Mechanism = Annotated[
    str,
    typer.Option(
        "--mechanism", help=" or ".join(MECHANISMS) + ".", autocompletion=completer(MECHANISMS)
    ),
]


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
