"""``aclog quickstart``: what ``make run`` runs — a real walk-through against a real listener.

It starts ``aclog serve`` as its own process on the data directory, then, as a stock Kafka admin
client would (kafka-python's ``KafkaAdminClient``), creates ACLs (one of them a KIP-1042 GLOB)
and a SCRAM user, prints the committed log, explains two decisions from the log, and leaves the
server running for you to connect to until Ctrl-C (``--exit`` stops it instead), with the web view
(``aclog ui``) on the same directory beside it (``--ui-port``; ``--no-ui`` leaves it out).
What the client asks and what is explained is :mod:`aclog.sample.walkthrough`; the library and
kafka-python are imported when the command runs, not for its ``--help``.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.tools.console import EXIT_IO, app, fail, print_json, print_line
from aclog.tools.params import DataDir, JsonFlag
from aclog.tools.quickstart_ui import server_bootstrap, start_server, start_ui, stop, ui_url


@app.command()
def quickstart(
    data_dir: DataDir = Path("aclog-data"),
    listen: Annotated[str, typer.Option(help="HOST:PORT for the listener.")] = "127.0.0.1:9092",
    exit_after: Annotated[
        bool, typer.Option("--exit", help="Stop the server after the walk-through.")
    ] = False,
    ui: Annotated[
        bool, typer.Option(help="Start the web view (aclog ui) beside the server, unless --exit.")
    ] = True,
    ui_port: Annotated[
        int, typer.Option(help="Port of the web view on 127.0.0.1 (0: any free one).", min=0)
    ] = 8080,
    json_output: JsonFlag = False,
) -> None:
    """Start a listener, drive it with kafka-python, show the log and explain decisions.

    --json prints one document after the walk-through: {"bootstrap_servers", "data_dir",
    "created_acls", "failed_acls", "scram_users", "records" (as 'aclog dump --json'),
    "explanations" (each as 'aclog explain --json', with its request)}.
    """
    from aclog.replay import dump_rows, entries_between, read_decoded  # noqa: PLC0415 - on a run
    from aclog.sample import (  # noqa: PLC0415
        WALKTHROUGH_USER,
        admin_walkthrough,
        explain_walkthrough,
    )
    from aclog.tools.data_dirs import require_log_target  # noqa: PLC0415

    require_log_target(data_dir)  # before the server starts: its refusal would read as a crash
    server = start_server(data_dir, listen)
    children = [server]
    # SIGTERM and SIGHUP (make run stopped, its terminal closed) end the walk-through as Ctrl-C
    # does, so the server is stopped: left running it would hold the port and the writer lock.
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _interrupt)
    try:
        bootstrap = server_bootstrap(server)
        if bootstrap is None:
            fail(
                "aclog serve did not start (see its message above; is the port already in use?)",
                EXIT_IO,
            )
        _say(json_output, f"1. aclog serve is listening on {bootstrap} (data in {data_dir})")
        _say(json_output, "")
        created, failed = admin_walkthrough(bootstrap)
        _say(json_output, f"2. kafka-python created {created} ACLs ({failed} failed)")
        _say(json_output, f"   and the SCRAM-SHA-256 user '{WALKTHROUGH_USER}'")
        explanations = explain_walkthrough(data_dir)
        if json_output:
            print_json(
                {
                    "bootstrap_servers": bootstrap,
                    "data_dir": str(data_dir),
                    "created_acls": created,
                    "failed_acls": failed,
                    "scram_users": [WALKTHROUGH_USER],
                    "records": dump_rows(entries_between(read_decoded(data_dir))),
                    "explanations": explanations,
                }
            )
            sys.stdout.flush()
        else:
            _show_log_and_explanations(data_dir, explanations)
        if exit_after:
            return
        if ui:
            children.append(start_ui(data_dir, "127.0.0.1", ui_port))
            _say_ui(json_output, children[-1], ui_port)
        _say(json_output, "")
        _say(
            json_output,
            f"The server keeps running: bootstrap_servers='{bootstrap}', principal "
            "User:ANONYMOUS (a super user in this walk-through). Ctrl-C stops it.",
        )
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        for child in reversed(children):
            stop(child)


def _say_ui(json_output: bool, process: subprocess.Popen[str], port: int) -> None:
    """Where the web view serves, or that it did not start (the walk-through stands either way)."""
    url = ui_url(process)
    _say(json_output, "")
    if url is not None:
        _say(json_output, f"5. the web view (aclog ui) of the same log: {url}")
    else:
        _say(
            json_output,
            f"5. the web view (aclog ui) did not start (its message is above; if port {port} "
            "is taken, give --ui-port PORT, or --no-ui)",
        )


def _interrupt(signum: int, frame: Any) -> None:
    del signum, frame
    raise KeyboardInterrupt


def _say(json_output: bool, text: str) -> None:
    """A step of the walk-through, for a person: on stdout, or on stderr with --json."""
    print_line(text, stderr=json_output)


def _show_log_and_explanations(data_dir: Path, explanations: list[dict[str, Any]]) -> None:
    from aclog.tools.dump import dump  # noqa: PLC0415 - see quickstart

    print_line("")
    print_line("3. the committed log (aclog dump):")
    dump([data_dir], 0, None, None, False, False)
    print_line("")
    print_line("4. why (aclog explain):")
    for result in explanations:
        print_line(
            f"   {result['principal']} {result['operation']} {result['topic']}: "
            f"{result['decision']} — {result['reason']}"
        )
