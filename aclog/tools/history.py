"""``aclog replay``, ``verify``, ``diff`` and ``snapshot``: state as of any point, and checks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.image import MetadataImage
from aclog.kraft import is_kraft_path
from aclog.log import estimated_end_offset
from aclog.records import call_paused, gc_paused
from aclog.replay import diff, verify_directory, verify_kraft_directory
from aclog.snapshot import SnapshotCheck, SnapshotError, check_snapshots
from aclog.tools.commands import COMMANDS
from aclog.tools.common import (
    AtOffset,
    AtTime,
    DataDir,
    JsonFlag,
    SourceFormat,
    is_kraft,
    load_state,
    replay_errors,
)
from aclog.tools.console import (
    EXIT_FAILURE,
    EXIT_USAGE,
    app,
    fail,
    fail_os,
    print_json,
    print_line,
    print_warning,
)
from aclog.tools.data_dirs import require_log
from aclog.tools.exit_codes import fail_for
from aclog.tools.points import (
    check_range,
    format_time,
    parse_range_end,
    point_note,
    state_header,
)
from aclog.tools.progress import offsets_bar, waiting
from aclog.tools.writing import open_controller

snapshot_app = typer.Typer(help=COMMANDS["snapshot"].help, no_args_is_help=True)
app.add_typer(snapshot_app, name="snapshot")


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


@app.command("diff")
def diff_command(
    data_dir: DataDir,
    start: Annotated[
        str, typer.Option("--from", help="An offset (a bare number) or an ISO-8601 time.")
    ],
    end: Annotated[
        str, typer.Option("--to", help="An offset (a bare number) or an ISO-8601 time.")
    ],
    source_format: SourceFormat = "auto",
    json_output: JsonFlag = False,
) -> None:
    """ACLs and SCRAM credentials added, removed and changed between two points, with who
    changed them and when. --from must not come after --to.

    A bare number is an offset; write a time in ISO-8601 (2026-11-21T10:00:00Z). The diff is
    net: a grant made and revoked inside the range does not appear (aclog dump and aclog
    timeline show every step)."""
    kraft = is_kraft(data_dir, source_format)
    require_log(data_dir, kraft=kraft)
    first, last = parse_range_end(start, "--from"), parse_range_end(end, "--to")
    try:
        result = call_paused(
            diff, data_dir, first, last, kraft=kraft, on_warning=print_warning
        ).to_dict()
    except replay_errors() as error:
        fail_for(error, f"compare the points of {data_dir}")
    except (SnapshotError, ValueError) as error:
        fail_for(error, f"compare the points of {data_dir}")
    check_range(first, last, result["from"]["last_offset"], result["to"]["last_offset"])
    notes = [
        point_note(
            data_dir,
            reached["last_offset"],
            at_offset=point.offset,
            at_time_ms=point.time_ms,
            kraft=kraft,
        )
        for point, reached in ((first, result["from"]), (last, result["to"]))
    ]
    for note in dict.fromkeys(note for note in notes if note is not None):  # once each
        print_line(f"aclog: note: {note}", stderr=True)
    if json_output:
        print_json(result)
        return
    print_line(f"from offset {result['from']['last_offset']} to {result['to']['last_offset']}")
    for change in result["acls"] + result["credentials"]:
        print_line(f"  {_describe_change(change)}")


def _describe_change(change: dict[str, Any]) -> str:
    """One change as a line with everything its JSON says: the ACL with its host (a DENY from
    one address is not a DENY from everywhere), who asked, from where, with which client, when,
    and at which offset."""
    if "resource_name" in change:
        what = (
            f"{change['permission_type']} {change['principal']} {change['operation']} from "
            f"{change['host']} on "
            f"{change['resource_type']}:{change['pattern_type']}:{change['resource_name']}"
        )
    else:
        what = f"SCRAM {change['name']} {change['mechanism']}"
    author = change.get("author")
    who = ""
    if author is not None:
        client = ", ".join(v for v in (author.get("client_id"), author.get("api")) if v)
        who = f" by {author['principal']} from {author['client_address']}"
        who += f" ({client})" if client else ""
    at = "" if change["offset"] is None else f" at offset {change['offset']}"
    when = "" if change.get("timestamp") is None else f", {format_time(change['timestamp'])}"
    return f"{change['change']:<7} {what}{who}{at}{when}"


@snapshot_app.command("create")
def snapshot_create(
    data_dir: DataDir,
    rows: Annotated[
        bool,
        typer.Option(
            "--rows",
            help="Write format 1: one Avro row of named fields per record, for tools that read "
            "rows (DuckDB, avro-tools); it loads slower than the default ACL columns.",
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Write a snapshot of the committed state now (takes the writer lock)."""
    with (
        waiting(f"replaying the log of {data_dir}") as say,
        open_controller(data_dir) as controller,
    ):
        image = controller.image
        say(f"writing a snapshot of {len(image.acls)} ACLs and {len(image.scram.users)} users")
        info = controller.snapshot(rows=rows)
    if json_output:
        print_json(info.to_dict())
    else:
        print_line(f"wrote {info.path.name}: {info.record_count} records, {info.size} bytes")


@snapshot_app.command("list")
def snapshot_list(data_dir: DataDir, json_output: JsonFlag = False) -> None:
    """List snapshots, oldest first, with whether each one verifies; exit 1 if any is corrupt."""
    rows = [check.to_dict() for check in _snapshots(data_dir)]
    if json_output:
        print_json({"snapshots": rows})
    elif not rows:
        print_line(f"no snapshots in {data_dir} ('aclog snapshot create' writes one)")
    else:
        for row in rows:
            state = "ok" if row["valid"] else f"CORRUPT: {row['error']}"
            print_line(
                f"{Path(row['path']).name}  offset {row['last_offset']}  epoch {row['epoch']}  "
                f"{state}"
            )
    if not all(row["valid"] for row in rows):
        raise typer.Exit(EXIT_FAILURE)


def _snapshots(data_dir: Path) -> list[SnapshotCheck]:
    """Every snapshot of ``data_dir``, verified; exit 2 for a KRaft directory or no log."""
    if is_kraft_path(data_dir):  # listing none there would read as "no snapshot, all fine"
        fail(
            f"{data_dir} is a KRaft metadata directory: its snapshots are Kafka's .checkpoint "
            f"files, not aclog snapshots; aclog verify --data-dir {data_dir} checks them, and "
            "aclog dump FILE.checkpoint prints one",
            EXIT_USAGE,
        )
    require_log(data_dir)
    try:
        return check_snapshots(data_dir)
    except OSError as error:
        fail_os("read", error)


@snapshot_app.command("verify")
def snapshot_verify(data_dir: DataDir, json_output: JsonFlag = False) -> None:
    """Verify every snapshot; exit 1 if any is corrupt.

    --json prints {"ok", "checked", "corrupt", "problems"}: each problem names its snapshot,
    as 'aclog verify --json' lists its problems."""
    snapshots = _snapshots(data_dir)
    problems = [str(check.error) for check in snapshots if check.error is not None]
    for problem in problems:
        print_line(f"aclog: {problem}", stderr=True)
    bad = len(problems)
    if json_output:
        print_json(
            {"ok": bad == 0, "checked": len(snapshots), "corrupt": bad, "problems": problems}
        )
    elif not snapshots:
        print_line(f"no snapshots in {data_dir}: nothing to verify")
    elif bad == 0:
        print_line("every snapshot verifies")
    if bad:
        raise typer.Exit(EXIT_FAILURE)
