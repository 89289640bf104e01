"""``aclog timeline``: when a principal gained or lost an operation on a resource, with the
batch, time, author and ACL changes behind each flip, between two points of a data directory
(or a KRaft metadata log). Reads only: no lock, no write.

The handler parses its options, calls :func:`aclog.questions.timeline` and renders
the result; ``--json`` prints the result's ``to_dict()``; ``--plot FILE.png`` also draws it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.authorizer import parse_super_users
from aclog.image import ReplayError
from aclog.log import CorruptLogError
from aclog.questions import BEGINNING, Timeline, timeline
from aclog.records import AclOperation, RecordDecodeError, ResourceType
from aclog.replay import Point, RebuildError
from aclog.tools.common import is_kraft, log_bar
from aclog.tools.console import (
    EXIT_FAILURE,
    EXIT_IO,
    EXIT_USAGE,
    fail,
    fail_os,
    print_json,
    print_line,
    print_warning,
)
from aclog.tools.console import app as cli
from aclog.tools.data_dirs import require_log
from aclog.tools.options import (
    ClusterFlag,
    DelegationTokenName,
    GroupName,
    OperationName,
    TopicName,
    TransactionalIdName,
    UserResourceName,
    check_caller_principal,
    check_host,
    parse_operation,
)
from aclog.tools.params import (
    AllowEveryone,
    Host,
    JsonFlag,
    ReadDataDir,
    SourceFormat,
    SuperUsers,
)
from aclog.tools.points import check_range, parse_range_end, show_point_note
from aclog.tools.question_args import one_resource
from aclog.tools.timeline_text import show_timeline

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
    resource_type, name = one_resource(
        topic, group, cluster, transactional_id, user, delegation_token
    )
    op, supers = _checked(principal, host, operation, super_users)
    kraft = is_kraft(data_dir, source_format)
    require_log(data_dir, kraft=kraft)
    first = BEGINNING if start is None else parse_range_end(start, "--from")
    last = Point() if end is None else parse_range_end(end, "--to")
    check_range(first, last, 0, 0)  # only same-kind points here: mixed ones after the walk
    result = _walk(data_dir, principal, op, resource_type, name, host, first, last, supers,
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


def _checked(
    principal: str, host: str | None, operation: str, super_users: str | None
) -> tuple[AclOperation, frozenset[str]]:
    """The operation and super users, with the principal and host checked as ``explain``
    checks them; exit 2 on a usage error."""
    try:
        check_caller_principal(principal, "--principal")
        if host is not None:
            check_host(host, "--host")
        return parse_operation(operation), frozenset(parse_super_users(super_users))
    except ValueError as error:  # OptionError, or super users that are not Type:name
        fail(str(error), EXIT_USAGE)


def _walk(
    data_dir: Path,
    principal: str,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
    host: str | None,
    start: Point,
    end: Point,
    super_users: frozenset[str],
    allow_everyone: bool,
    kraft: bool,
) -> Timeline:
    try:
        with log_bar(data_dir, "replaying", end.offset) as on_offset:
            return timeline(
                data_dir, principal, operation, resource_type, name, host=host, start=start,
                end=end, super_users=super_users, allow_everyone_if_no_acl_found=allow_everyone,
                kraft=kraft, on_warning=print_warning, on_progress=on_offset,
            )  # fmt: skip
    except (CorruptLogError, RecordDecodeError, ReplayError, RebuildError) as error:
        fail(f"cannot replay {data_dir}: {error}", EXIT_FAILURE)
    except OSError as error:
        fail_os("read", error)


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
