"""What a target cannot take, said by a plan before anything is applied.

- GLOB: a cluster that does not store GLOB ACLs (Kafka rejects pattern type 5 at CreateAcls) makes
  every GLOB entry of the file an error naming its line (:func:`glob_errors`), so ``apply``
  refuses before it changes anything instead of applying the rest and failing those.
- Kafka's cap of 10,000 records per request: a data-directory apply is ONE atomic batch, so a
  plan that adds or removes more than the cap cannot be applied there at all
  (:func:`directory_cap_problem`, a warning in the plan and a refusal by ``apply``); through the
  admin API ``apply`` sends the additions and the removals in requests under the cap
  (:data:`CREATE_PART`, :data:`DELETE_PART`), each all-or-nothing, and the plan says so when
  there is more than one (:func:`plan_warnings`).

Pure; thread-safe. Cost: O(ACLs of the plan).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from aclog.controller import MAX_RECORDS_PER_USER_OP
from aclog.controller.record_cap import cap_exceeded
from aclog.desired.current import CurrentState
from aclog.desired.state import DesiredState, describe_binding
from aclog.records import AclBinding, PatternType

T = TypeVar("T")

CREATE_PART = MAX_RECORDS_PER_USER_OP
"""The most creations one CreateAcls of an apply carries: Kafka's cap (a Kafka 4.0 broker took
10,000 in one request; 10,001 failed whole)."""
DELETE_PART = 1_000
"""The most exact filters one DeleteAcls of an apply carries, far under the cap: Kafka matches
every filter against every stored ACL, so a request costs filters x ACLs: a large one against
a broker holding many ACLs can outlast the client's request timeout (a DeleteAcls that waits
out the broker's timeout is answered -1 and still applied later)."""


def glob_errors(desired: DesiredState, current: CurrentState) -> list[str]:
    """One ``file:line: message`` per GLOB ACL of ``desired`` when ``current``'s target does
    not store GLOB ACLs; empty otherwise."""
    if current.holds_glob:
        return []
    return [
        f"{desired.path}:{desired.acl_lines.get(acl, 0)}: the cluster does not store GLOB ACLs "
        f"(pattern type 5, KIP-1042: aclog serve does, Kafka rejects it), so "
        f"{describe_binding(acl)} cannot be applied; declare it as literal or prefixed ACLs, or "
        "plan against aclog"
        for acl in desired.acls
        if acl.pattern_type == PatternType.GLOB
    ]


def directory_cap_problem(
    add: Sequence[AclBinding], remove: Sequence[AclBinding], current: CurrentState
) -> str | None:
    """Why a data-directory apply of these changes would fail whole (over the cap), or
    ``None``."""
    if not current.one_batch:
        return None
    for count, verb in ((len(add), "adds"), (len(remove), "removes")):
        if count > MAX_RECORDS_PER_USER_OP:
            return (
                f"{cap_exceeded(count, f'the plan {verb}')}, and a data-directory apply is ONE "
                "atomic batch: apply it in parts (several files, or owned scopes widened step "
                "by step)"
            )
    return None


def plan_warnings(
    add: Sequence[AclBinding], remove: Sequence[AclBinding], current: CurrentState
) -> tuple[str, ...]:
    """What a person should know before applying: a data-directory apply that would fail
    whole, or an apply through the admin API that goes in several requests per kind."""
    problem = directory_cap_problem(add, remove, current)
    if problem is not None:
        return (f"apply would fail and change nothing: {problem}",)
    warnings = []
    for changes, api, size in (
        (add, "CreateAcls", CREATE_PART),
        (remove, "DeleteAcls", DELETE_PART),
    ):
        parts = len(request_parts(changes, size))
        if parts > 1:
            warnings.append(
                f"{len(changes):,} ACLs go in {parts} {api} requests of at most {size:,} "
                "(Kafka's cap is 10,000 records per request); each request is all-or-nothing, "
                "the apply as a whole is not"
            )
    return tuple(warnings)


def request_parts(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """``items`` in order, in parts of at most ``size``: one admin request each."""
    return [items[start : start + size] for start in range(0, len(items), size)]
