"""``aclog snapshot create|list|verify``: write a snapshot of the committed state, and list or
verify the snapshots of a data directory. The library is imported when a command runs, not for
its ``--help``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aclog.tools.console import EXIT_FAILURE, EXIT_USAGE, fail, fail_os, print_json, print_line
from aclog.tools.params import DataDir, JsonFlag
from aclog.tools.progress import waiting
from aclog.tools.snapshots import snapshot_app

if TYPE_CHECKING:
    from aclog.snapshot import SnapshotCheck


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
    from aclog.tools.writing import open_controller  # noqa: PLC0415 - see the module docstring

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
    from aclog.kraft import is_kraft_path  # noqa: PLC0415 - see the module docstring
    from aclog.snapshot import check_snapshots  # noqa: PLC0415
    from aclog.tools.data_dirs import require_log  # noqa: PLC0415

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
