"""``aclog timeline``: when a principal gained or lost an operation on a resource, with the
batch, time, author and ACL changes behind each flip, between two points of a data directory
(or a KRaft metadata log). Reads only: no lock, no write.

The handler parses its options, calls :func:`aclog.questions.timeline` and renders
the result; ``--json`` prints the result's ``to_dict()``; ``--plot FILE.png`` also draws it.
The library is imported when the command runs, not for its ``--help``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aclog.tools.console import (
    EXIT_IO,
    fail,
    fail_os,
    print_json,
    print_line,
)
from aclog.tools.console import app as cli
from aclog.tools.options import (
    ClusterFlag,
    DelegationTokenName,
    GroupName,
    OperationName,
    TopicName,
    TransactionalIdName,
    UserResourceName,
)
from aclog.tools.params import (
    AllowEveryone,
    Host,
    JsonFlag,
    ReadDataDir,
    SourceFormat,
    SuperUsers,
)

if TYPE_CHECKING:
    from aclog.questions import Timeline

PointOption = "An offset (a bare number) or an ISO-8601 time"


@cli.command("timeline")
def timeline_command(
    data_dir: ReadDataDir,
    principal: Annotated[str, typer.Option(help="The caller, Type:name, e.g. User:alice.")],
    operation: OperationName,
    topic: TopicName = None,
    group: GroupName = None,
    cluster: ClusterFlag = False,
    transactional_id: TransactionalIdName = None,
    user: UserResourceName = None,
    delegation_token: DelegationTokenName = None,
    host: Host = None,
    super_users: SuperUsers = None,
    allow_everyone_if_no_acl_found: AllowEveryone = False,
    start: Annotated[
        str | None, typer.Option("--from", help=f"{PointOption} (default: the log's start).")
    ] = None,
    end: Annotated[
        str | None, typer.Option("--to", help=f"{PointOption} (default: the log's end).")
    ] = None,
    source_format: SourceFormat = "auto",
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Also draw the decisions over time (PNG).", readable=False),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """When PRINCIPAL gained or lost OPERATION on the resource: the answer at --from, then each
    batch up to --to that flipped it, with its offset, time, author and ACL changes."""
    from aclog.questions import BEGINNING  # noqa: PLC0415 - see the module docstring
    from aclog.replay import Point  # noqa: PLC0415
    from aclog.tools.common import is_kraft  # noqa: PLC0415
    from aclog.tools.data_dirs import require_log  # noqa: PLC0415
    from aclog.tools.points import check_range, parse_range_end, show_point_note  # noqa: PLC0415
    from aclog.tools.question_args import caller_checks, one_resource, walk_timeline  # noqa: PLC0415
    from aclog.tools.timeline_text import show_timeline  # noqa: PLC0415

    resource_type, name = one_resource(
        topic, group, cluster, transactional_id, user, delegation_token
    )
    op, supers = caller_checks(principal, host, operation, super_users)
    kraft = is_kraft(data_dir, source_format)
    require_log(data_dir, kraft=kraft)
    first = BEGINNING if start is None else parse_range_end(start, "--from")
    last = Point() if end is None else parse_range_end(end, "--to")
    check_range(first, last, 0, 0)  # only same-kind points here: mixed ones after the walk
    result = walk_timeline(data_dir, principal, op, resource_type, name, host, first, last, supers,
                   allow_everyone_if_no_acl_found, kraft)  # fmt: skip
    check_range(first, last, result.start.last_offset, result.end.last_offset)
    for point, reached in ((first, result.start), (last, result.end)):
        if point is not BEGINNING:
            show_point_note(data_dir, reached.last_offset, at_offset=point.offset,
                            at_time_ms=point.time_ms, kraft=kraft)  # fmt: skip
    if plot is not None:
        _draw(result, plot, data_dir)
    if json_output:
        print_json(result.to_dict())
    else:
        show_timeline(result)
        if plot is not None:
            print_line(f"drew {plot}")


def _draw(result: Timeline, path: Path, data_dir: Path) -> None:
    try:
        from aclog.tools.timeline_plot import plot_timeline  # noqa: PLC0415 - matplotlib is slow
    except ImportError as error:
        fail(
            f"--plot needs matplotlib ({error}); install it with pip install 'aclog[spark]'",
            EXIT_IO,
        )
    try:
        plot_timeline(result, path, str(data_dir))
    except OSError as error:
        fail_os("write", error)
