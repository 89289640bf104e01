"""Parsing the authorizer's two Kafka settings, ``super.users`` and
``allow.everyone.if.no.acl.found`` (``reference/kafka-acl-spec.md`` §6).

Pure; thread-safe.
"""

from __future__ import annotations


def parse_super_users(text: str | None) -> frozenset[str]:
    """Kafka's ``super.users``: ``User:a;User:b`` split on ``;``, each piece trimmed, empty
    pieces dropped. Raises ``ValueError`` for a piece without a colon."""
    users: set[str] = set()
    for piece in (text or "").split(";"):
        principal = piece.strip()
        if not principal:
            continue
        if ":" not in principal:
            raise ValueError(
                f"super.users entry {principal!r} is not a principal; write it as Type:name, "
                "for example User:admin, and separate entries with ';'"
            )
        users.add(principal)
    return frozenset(users)


def parse_allow_everyone(text: str | None) -> bool:
    """Kafka's ``allow.everyone.if.no.acl.found``: true only for ``true`` (any case, trimmed)."""
    return text is not None and text.strip().lower() == "true"
