"""``aclog replay`` and ``verify``: the state as of any point, and the checks of a whole log
(``diff`` is :mod:`aclog.tools.diff_command`, ``snapshot`` :mod:`aclog.tools.snapshots`). The
library is imported when a command runs, not for its ``--help``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from aclog.tools.console import EXIT_FAILURE, app, fail_os, print_json, print_line
from aclog.tools.params import AtOffset, AtTime, DataDir, JsonFlag, SourceFormat
from aclog.tools.progress import offsets_bar

if TYPE_CHECKING:
    from aclog.image import MetadataImage


def state_to_dict(image: MetadataImage) -> dict[str, Any]:
    """``aclog replay --json``: ``{"offset", "epoch", "timestamp", "acls", "users"}``."""
    return {
        "offset": image.provenance.last_offset,
        "epoch": image.provenance.epoch,
        "timestamp": image.provenance.timestamp_ms,
        "acls": image.acls.to_dict(),
        "users": image.scram.to_dict(),
    }


@app.command()
def replay(
    data_dir: DataDir,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    source_format: SourceFormat = "auto",
    json_output: JsonFlag = False,
) -> None:
    """Print the ACLs and SCRAM users as of a point (default: the end of the log)."""
    from aclog.tools.common import is_kraft, load_state  # noqa: PLC0415 - see the docstring
    from aclog.tools.points import state_header  # noqa: PLC0415

    rebuilt = load_state(data_dir, at_offset, at_time, kraft=is_kraft(data_dir, source_format))
    state = state_to_dict(rebuilt.image)
    if json_output:
        print_json(state)
        return
    snapshot = rebuilt.snapshot or rebuilt.kraft_checkpoint
    source = (
        "the full log"
        if snapshot is None
        else (f"snapshot {snapshot.path.name} + {rebuilt.records_replayed} records")
    )
    header = state_header(state["offset"], state["epoch"], state["timestamp"])
    print_line(f"{header}, from {source}")
    for acl in state["acls"]:
        print_line(
            f"  {acl['permission_type']} {acl['principal']} {acl['operation']} from "
            f"{acl['host']} on {acl['resource_type']}:{acl['pattern_type']}:"
            f"{acl['resource_name']}"
        )
    for user in state["users"]:
        mechanisms = ", ".join(c["mechanism"] for c in user["credentials"])
        print_line(f"  user {user['name']}: {mechanisms}")


@app.command()
def verify(
    data_dir: DataDir, source_format: SourceFormat = "auto", json_output: JsonFlag = False
) -> None:
    """Check every batch and snapshot, and that snapshot + tail equals a full replay."""
    from aclog.log import estimated_end_offset  # noqa: PLC0415 - see the module docstring
    from aclog.records import gc_paused  # noqa: PLC0415
    from aclog.replay import verify_directory, verify_kraft_directory  # noqa: PLC0415
    from aclog.tools.common import is_kraft  # noqa: PLC0415
    from aclog.tools.data_dirs import require_log  # noqa: PLC0415

    kraft = is_kraft(data_dir, source_format)
    require_log(data_dir, kraft=kraft)
    check = verify_kraft_directory if kraft else verify_directory
    try:
        bar = offsets_bar("checking batches", estimated_end_offset(data_dir))
        with bar as on_offset, gc_paused():  # a process edge: see load_state
            report = check(data_dir, on_offset)
    except OSError as error:
        fail_os("read", error)
    if json_output:
        print_json(report.to_dict())
    else:
        print_line(
            f"{report.batches} batches, {report.records} records, {report.snapshots} "
            "snapshots checked"
        )
        for line in report.problems + report.differences:
            print_line(f"aclog: {line}", stderr=True)
        for line in report.warnings:
            print_line(f"aclog: warning: {line}", stderr=True)
        if report.ok:
            print_line("ok: every CRC matches and snapshot + tail equals the full replay")
    if not report.ok:
        raise typer.Exit(EXIT_FAILURE)
