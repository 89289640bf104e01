"""``aclog demo``: commit a small, realistic history to a data directory and show it back.

What ``make run`` runs: a platform team grants producer and consumer roles, a GLOB rule
(KIP-1042) for regional accounting topics, a DENY, two SCRAM users, then revokes a grant, all
through the controller that every other writer uses; then it prints the log and the state.
The library is imported when the command runs, not for its ``--help``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aclog.tools.console import app, fail_os, print_json, print_line
from aclog.tools.params import DataDir, JsonFlag

if TYPE_CHECKING:
    from aclog.image import MetadataImage
    from aclog.sample import Tenancy


@app.command()
def demo(
    data_dir: DataDir = Path("aclog-data"),
    show: Annotated[bool, typer.Option(help="Print the log and the state afterwards.")] = True,
    with_tenancy: Annotated[
        bool,
        typer.Option(
            "--tenancy",
            help="Write a seeded multi-tenant history instead (3 tenants of 3 teams: PREFIXED "
            "team grants, tenant GLOBs, DENYs, User:* and '*' grants, weak and missing "
            "credentials, 40 later changes by several authors, a minute apart from "
            "2026-01-01): data to try who-can, reach, lint and timeline on.",
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Write a short example history to an empty data directory, then print it.

    --json prints {"data_dir", "wrote", "last_offset"} and, with --show, "records" (as
    'aclog dump --json' prints them) and "state" (as 'aclog replay --json').
    """
    from aclog.sample import tenancy, write_example_history  # noqa: PLC0415 - see the docstring
    from aclog.tools.data_dirs import require_log_target  # noqa: PLC0415
    from aclog.tools.dump import dump  # noqa: PLC0415
    from aclog.tools.writing import open_controller  # noqa: PLC0415

    world = tenancy() if with_tenancy else None
    require_log_target(data_dir)  # a demo never writes among someone else's files
    if world is None:
        with open_controller(data_dir, create=True) as controller:
            fresh = controller.log.end_offset <= 1
            if fresh:
                write_example_history(controller)
            image = controller.image
    else:
        fresh, image = _write_tenancy(data_dir, world)
    if json_output:
        print_json(_result(data_dir, fresh, image, show))
        return
    state = "wrote an example history to" if fresh else "kept the existing log in"
    print_line(f"aclog demo: {state} {data_dir} (offsets 0..{image.provenance.last_offset})")
    if world is not None:
        _try_questions(data_dir, world, image)
        return
    if not show:
        return
    print_line("")
    dump([data_dir], 0, None, None, False, False)
    print_line("")
    print_line(
        f"state at offset {image.provenance.last_offset}: {len(image.acls)} ACLs, "
        f"{len(image.scram.users)} SCRAM users"
    )
    print_line(
        f"try: aclog acls list --data-dir {data_dir} --topic payments.cards "
        "--resource-pattern-type match"
    )


def _write_tenancy(directory: Path, world: Tenancy) -> tuple[bool, MetadataImage]:
    """Write the tenancy to a new or empty ``directory`` (whether it did) and read it back; a
    directory holding an aclog log is kept as it is; anything else is refused."""
    from aclog.sample import write_tenancy  # noqa: PLC0415 - see the module docstring
    from aclog.tools.common import load_state  # noqa: PLC0415

    empty = _is_new_or_empty(directory)
    if empty:
        try:
            write_tenancy(directory, world, fsync=True)
        except OSError as error:
            fail_os(f"write the sample history to {directory}", error)
    return empty, load_state(directory, None, None).image


def _is_new_or_empty(directory: Path) -> bool:
    return not directory.exists() or (directory.is_dir() and not any(directory.iterdir()))


def _try_questions(directory: Path, world: Tenancy, image: MetadataImage) -> None:
    """What a person can ask of the tenancy next (its log is too long to print)."""
    print_line(f"{len(image.acls)} ACLs, {len(image.scram.users)} SCRAM users; try:")
    topic, principal = world.topics[0], world.principals[0]
    for command in (
        f"who-can --data-dir {directory} --operation Read --topic {topic}",
        f"reach --data-dir {directory} --principal {principal}",
        f"lint --data-dir {directory}",
        f"timeline --data-dir {directory} --principal {principal} --operation Read --topic {topic}",
    ):
        print_line(f"  aclog {command}")


def _result(data_dir: Path, fresh: bool, image: MetadataImage, show: bool) -> dict[str, Any]:
    result: dict[str, Any] = {
        "data_dir": str(data_dir),
        "wrote": fresh,
        "last_offset": image.provenance.last_offset,
    }
    if show:
        from aclog.replay import dump_rows, entries_between, read_decoded  # noqa: PLC0415
        from aclog.tools.history import state_to_dict  # noqa: PLC0415

        entries = entries_between(read_decoded(data_dir), 0, None)
        result["records"] = dump_rows(entries)
        result["state"] = state_to_dict(image)
    return result
