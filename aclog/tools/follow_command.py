"""``aclog follow``: history for a cluster aclog does not run. Polls it through the admin API
every ``--interval`` and appends each observed difference to a data directory as one batch
(see :mod:`aclog.desired.follow`), until SIGTERM or Ctrl-C.

Thin: parse, open the data directory's controller (it holds the writer lock while following),
run :class:`~aclog.desired.follow.FollowLoop`, log each recorded poll and each failure on
stderr. An unreachable cluster is logged and retried with backoff; a follower stopped before
any poll reached the cluster exits 3 (it observed nothing, which a 0 would hide).
"""

from __future__ import annotations

import re
import signal
from pathlib import Path
from threading import Event
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer

from aclog.tools.console import EXIT_FAILURE, EXIT_IO, EXIT_USAGE, app, fail, print_json, print_line
from aclog.tools.params import CommandConfig, DataDir, JsonFlag

if TYPE_CHECKING:
    from aclog.desired import FollowReport

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}

# Not the shared BootstrapServer option: there --bootstrap-server replaces --data-dir, here the
# cluster is read and --data-dir is where its history goes, so the help must say both are given.
FollowedCluster = Annotated[
    str | None,
    typer.Option(
        "--bootstrap-server",
        metavar="HOST:PORT",
        help="The cluster to follow, read through its admin API (default "
        "$ACLOG_BOOTSTRAP_SERVER); every change observed there is recorded in --data-dir, which "
        "is required too.",
    ),
]


def parse_interval(text: str) -> float:
    """``30s``, ``500ms``, ``2m``, ``1h`` or plain seconds, as seconds (over 0)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*", text)
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(f"--interval {text!r} is not a duration such as 30s, 500ms or 2m")
    return float(match.group(1)) * _UNITS[match.group(2) or "s"]


@app.command("follow")
def follow_command(
    data_dir: DataDir,
    bootstrap_server: FollowedCluster = None,
    command_config: CommandConfig = None,
    interval: Annotated[
        str, typer.Option("--interval", help="Time between polls: 30s, 500ms, 2m...")
    ] = "30s",
    json_output: JsonFlag = False,
) -> None:
    """Poll a cluster's ACLs and SCRAM users and record every observed change in DIR."""
    import kafka.errors as kafka_errors  # noqa: PLC0415 - the library on a run, not for --help

    from aclog.desired import FollowLoop, ReadError  # noqa: PLC0415
    from aclog.remote import RemoteAdmin, RemoteError  # noqa: PLC0415
    from aclog.tools.remote import RemoteTarget, choose_target  # noqa: PLC0415
    from aclog.tools.writing import open_controller  # noqa: PLC0415

    try:
        seconds = parse_interval(interval)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    target = choose_target(None, bootstrap_server, command_config)
    if not isinstance(target, RemoteTarget):
        fail("give --bootstrap-server HOST:PORT: the cluster to follow", EXIT_USAGE)
    with open_controller(data_dir, create=True) as controller:
        loop = FollowLoop(
            target.bootstrap,
            lambda: RemoteAdmin.connect(target.bootstrap, target.settings),
            controller,
            seconds,
            (RemoteError, ReadError, OSError, kafka_errors.KafkaError),
            lambda message: print_line(f"aclog: {message}", stderr=True),
        )
        with stopping_on_signals(loop.stop):
            print_line(f"aclog: following {target.bootstrap} every {seconds:g} s", stderr=True)
            report = loop.run()
        end = controller.log.end_offset
    # A directory this command created and then recorded nothing in is removed on the way
    # out (open_controller): it has no end to report.
    _show_stop(target.bootstrap, data_dir, report, end, json_output)
    _fail_for_rejected(report, data_dir)
    if report.polls == 0:
        fail(
            f"stopped without ever reaching {target.bootstrap}: nothing was observed or "
            "recorded; check the address and --command-config (see the errors above)",
            EXIT_IO,
        )


def _fail_for_rejected(report: FollowReport, data_dir: Path) -> None:
    """Exit 1 (a rejected item) when an observed change was kept out."""
    if report.polls and report.rejected:
        fail(
            f"{len(report.rejected)} observed ACLs or credentials broke aclog's rules and were "
            f"kept out of {data_dir} (see above); everything else was recorded",
            EXIT_FAILURE,
        )


def _show_stop(
    source: str, data_dir: Path, report: FollowReport, end: int, json_output: bool
) -> None:
    """What a stopped follower says on stdout: the polls and the log end (none when the data
    directory it created for nothing was removed)."""
    kept = data_dir.is_dir()
    if json_output:
        rejected = [r.to_dict() for r in report.rejected]
        print_json({
            "source": source, "polls": report.polls, "polls_recorded": report.recorded,
            "log_end": end if kept else None, "rejected": rejected,
        })  # fmt: skip
    elif kept:
        print_line(
            f"stopped: {report.polls} polls, {report.recorded} recorded changes; log end {end}"
        )
    else:
        print_line(f"stopped: nothing was recorded, so {data_dir} was not created")


class stopping_on_signals:
    """SIGTERM and SIGINT set ``stop`` (the poll or batch in progress finishes first)."""

    def __init__(self, stop: Event) -> None:
        self.stop = stop
        self.saved: dict[int, object] = {}

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        del signum, frame
        self.stop.set()

    def __enter__(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            self.saved[sig] = signal.signal(sig, self._stop)

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
