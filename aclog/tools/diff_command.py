"""``aclog diff``: the net change between two points of a log, each change with who made it,
from where and when. The library is imported when the command runs, not for its ``--help``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from aclog.tools.console import app, print_json, print_line, print_warning
from aclog.tools.params import DataDir, JsonFlag, SourceFormat


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
    from aclog.records import call_paused  # noqa: PLC0415 - see the module docstring
    from aclog.replay import diff, point_note  # noqa: PLC0415
    from aclog.snapshot import SnapshotError  # noqa: PLC0415
    from aclog.tools.common import is_kraft, replay_errors  # noqa: PLC0415
    from aclog.tools.data_dirs import require_log  # noqa: PLC0415
    from aclog.tools.exit_codes import fail_for  # noqa: PLC0415
    from aclog.tools.points import check_range, parse_range_end  # noqa: PLC0415

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
    from aclog.tools.points import format_time  # noqa: PLC0415 - see the module docstring

    at = "" if change["offset"] is None else f" at offset {change['offset']}"
    when = "" if change.get("timestamp") is None else f", {format_time(change['timestamp'])}"
    return f"{change['change']:<7} {what}{who}{at}{when}"
