"""How ``who-can``, ``reach`` and ``lint`` answers read on a terminal: aligned listings, one row
per line, every name through :func:`~aclog.tools.console.print_line` (control characters
escaped).

A host column reads ``any host`` for ``*`` alone, ``any other host`` for ``*`` beside rows for
named hosts, and ``from H`` for a named host.
"""

from __future__ import annotations

from aclog.questions import (
    Finding,
    HostAnswer,
    LintReport,
    PrincipalAccess,
    Reach,
    Reachable,
    Severity,
    WhoCan,
    describe_pattern,
    short_acl,
)
from aclog.records import PatternType
from aclog.tools.console import print_line


def host_label(host: str, named_beside: bool) -> str:
    """``any host``, ``any other host`` or ``from H``."""
    if host != "*":
        return f"from {host}"
    return "any other host" if named_beside else "any host"


def _why(answer: HostAnswer) -> str:
    return answer.explanation.reason


def show_who_can(result: WhoCan) -> None:
    """The allowed rows, then the rows a DENY decides."""
    resource = describe_pattern(result.resource_type, PatternType.LITERAL, result.resource_name)
    where = "any host" if result.host is None else f"host {result.host}"
    print_line(f"who can {result.operation.name} on {resource} (from {where}):")
    rows = result.allowed + result.denied
    print_line("  allowed:" if result.allowed else "  allowed: nobody")
    _who_rows(result.allowed, rows)
    if result.denied:
        but = " although any principal is allowed" if result.any_principal_allowed else ""
        print_line(f"  denied by a DENY{but}:")
        _who_rows(result.denied, rows)


def _who_rows(rows: list[PrincipalAccess], every: list[PrincipalAccess]) -> None:
    width = max((len(_who(r)) for r in rows), default=0)
    for row in rows:
        beside = any(o.principal == row.principal and o.host != "*" for o in every)
        host = host_label(row.host, beside)
        print_line(f"    {_who(row):<{width}}  {host:<16}  {_why(row.answer)}")


def _who(row: PrincipalAccess) -> str:
    if row.kind == "any":
        return "any principal"
    if row.kind == "super_user":
        return f"{row.principal} (super user)"
    return f"{row.principal} (pattern)" if row.kind == "glob" else row.principal


def show_reach(result: Reach) -> None:
    """Each resource or pattern with its operations and exclusions."""
    where = "any host" if result.host is None else f"host {result.host}"
    print_line(f"what {result.principal} can reach (from {where}):")
    if result.super_user:
        print_line(f"  {result.principal} is a super user: every operation on every resource")
    elif not result.resources:
        print_line("  nothing")
    for entry in result.resources:
        _reachable(entry)
    if result.allow_everyone_if_no_acl_found:
        print_line("  and every resource with no ACL at all (allow.everyone.if.no.acl.found)")


def _reachable(entry: Reachable) -> None:
    print_line(f"  {entry.description}")
    width = max(len(o.operation.name) for o in entry.operations)
    for row in entry.operations:
        beside = any(
            o.operation == row.operation and o.answer.host != "*" for o in entry.operations
        )
        host = host_label(row.answer.host, beside)
        print_line(f"    {row.operation.name:<{width}}  {host:<16}  {_why(row.answer)}")
    for exclusion in entry.exclusions:
        acl = exclusion.acl
        where = describe_pattern(acl.resource_type, acl.pattern_type, acl.resource_name)
        taken = ", ".join(op.name for op in exclusion.operations)
        print_line(f"    except {where}: {taken} denied by {short_acl(acl)}")


GROUP_SHOWN = 5
"""Of a kind with more than :data:`GROUP_LIMIT` findings, the text lists this many, then a count
(role shortcuts alone can make tens of thousands of alike INFO findings)."""
GROUP_LIMIT = 20


def show_lint(report: LintReport, least: Severity = Severity.INFO, every: bool = False) -> None:
    """One line per finding of ``least`` severity or worse, most severe first, a large group of
    one kind cut to its first lines and a count unless ``every``; then the counts of all."""
    shown = report.at_least(least)
    width = max((len(f.kind) for f in shown), default=0)
    groups: dict[tuple[Severity, str], list[Finding]] = {}
    for finding in shown:
        groups.setdefault((finding.severity, finding.kind), []).append(finding)
    for (severity, kind), findings in groups.items():
        cut = not every and len(findings) > GROUP_LIMIT
        for finding in findings[:GROUP_SHOWN] if cut else findings:
            print_line(f"{severity.value.upper():<7}  {kind:<{width}}  {finding.message}")
        if cut:
            more = len(findings) - GROUP_SHOWN
            print_line(f"{'':<7}  {'':<{width}}  … and {more:,} more {kind} ({severity.value}); "
                       "--all lists every one")  # fmt: skip
    counts = report.counts()
    summary = ", ".join(
        _plural(counts[s], s) if s != "info" else f"{counts[s]} info"
        for s in ("error", "warning", "info")
    )
    checked = (
        f"{_plural(report.acls_checked, 'ACL')} and "
        f"{_plural(report.credentials_checked, 'SCRAM credential')} checked"
    )
    print_line(f"{checked}: {summary}" if report.findings else f"{checked}: no findings")
    hidden = len(report.findings) - len(shown)
    if hidden:
        print_line(f"({hidden:,} below {least.value} not listed: --show info lists them)")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
