"""How a ``timeline`` answer reads on a terminal: the request, the answer at the start, one
paragraph per flip (when, where in the log, who, the ACLs it added and removed, the answer
after) and the answer at the end; every name through :func:`~aclog.tools.console.print_line`.
"""

from __future__ import annotations

from collections.abc import Sequence

from aclog.questions import Flip, HostAnswer, Timeline, describe_pattern, short_acl
from aclog.records import PatternType
from aclog.tools.console import print_line
from aclog.tools.points import format_time
from aclog.tools.questions_text import host_label


def show_timeline(result: Timeline) -> None:
    """The whole answer, oldest first."""
    resource = describe_pattern(result.resource_type, PatternType.LITERAL, result.resource_name)
    where = "each host" if result.host is None else f"host {result.host}"
    print_line(
        f"{result.principal} {result.operation.name} on {resource} from {where}, {_span(result)}:"
    )
    print_line("  at the start:")
    _answers(result.initial)
    if not result.flips:
        print_line("  no change in between")
    for flip in result.flips:
        _flip(flip)
    if result.flips:
        print_line("  at the end:")
        _answers(result.final)


def _span(result: Timeline) -> str:
    """The offsets walked; an empty log says so (as a note on an empty log does) rather than
    ``offsets 0..-1``."""
    if result.end.last_offset < 0:
        return "the log is empty"
    return f"offsets {result.start.last_offset + 1}..{result.end.last_offset}"


def _flip(flip: Flip) -> None:
    author = flip.author
    who = (
        "no recorded author"
        if author is None
        else f"{author.principal} from {author.client_address} "
        f"({', '.join(part for part in (author.client_id, author.api) if part)})"
    )
    print_line(
        f"  {format_time(flip.timestamp_ms)}  offsets {flip.base_offset}..{flip.last_offset}  "
        f"{flip.direction} by {who}:"
    )
    for change in flip.changes:
        print_line(f"      {change.change:<7} {short_acl(change.acl)}")
    _answers(flip.after, indent="    now ")


def _answers(answers: Sequence[HostAnswer], indent: str = "    ") -> None:
    for answer in answers:
        beside = len(answers) > 1
        print_line(
            f"{indent}{answer.decision.value} {host_label(answer.host, beside)}: "
            f"{answer.explanation.reason}"
        )
