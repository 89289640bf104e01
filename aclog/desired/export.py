"""Writing a state as a desired-state file (the schema of :mod:`aclog.desired.load`), so a team
can start from what a cluster holds: ``aclog export --format yaml``.

ACLs that differ only in their operation become one entry with an operations list; the file
owns everything (``owns: all``); users carry their mechanism and iteration count but no
password source (no password can be read back), which the loader accepts for a credential that
exists. Loading the text back and planning against the same state gives no changes.

Pure; thread-safe. Cost: O(ACLs + users).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from aclog.desired.current import CurrentState
from aclog.desired.load import FORMAT_VERSION
from aclog.desired.nodes import STR_TAG
from aclog.records import AclBinding

HEADER = (
    "# aclog desired state (docs/as-code.md).\n"
    "# Passwords are never exported: give a user password_env or password_file to set one.\n"
)


def export_dict(current: CurrentState) -> dict[str, Any]:
    """The desired-state document of ``current``, ACLs grouped by everything but operation."""
    grouped: dict[tuple[Any, ...], list[str]] = {}
    for acl in current.acls:
        grouped.setdefault(_group(acl), []).append(acl.operation.name.lower())
    acls = [
        {
            "resource_type": resource_type.name.lower(),
            "resource_name": name,
            "pattern_type": pattern.name.lower(),
            "principal": principal,
            "host": host,
            "operations": operations,
            "permission": permission.name.lower(),
        }
        for (resource_type, name, pattern, principal, host, permission), operations in (
            grouped.items()
        )
    ]
    users = [
        {"name": name, "mechanism": mechanism.mechanism_name, "iterations": iterations}
        for (name, mechanism), iterations in sorted(current.users.items())
    ]
    return {"version": FORMAT_VERSION, "owns": "all", "acls": acls, "users": users}


_DUMPER: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""libyaml's emitter where PyYAML was built with it (its wheels are): the pure-Python one writes
U+0085 (NEL) unescaped, which a YAML reader takes for a line break, so a principal
``User:\x85`` came back as ``User: `` (a plan from the file would then swap the ACL for another)."""

_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/@+=:]*(?<!:)")
"""Text PyYAML writes as it is (a plain scalar) unless it reads back as another type (``123``,
``yes``, a date): letters, digits and ``_.-/@+=:``, not starting with a punctuation mark nor
ending with ``:``, so no indicator, quote, space or line break is involved."""

_RESOLVER = yaml.resolver.Resolver()
_ONE_LINE = 1 << 30
"""A line width no scalar reaches, so a quoted one is never folded onto a second line."""


def export_yaml(current: CurrentState, comment: str = "") -> str:
    """:func:`export_dict` as YAML text, after :data:`HEADER` and ``comment`` lines: the text
    PyYAML's block style writes for the document (for plain names, byte for byte), written
    line by line. PyYAML's representer was most of a large export's time (libyaml emits, but
    every value still goes through the Python representer); here a value PyYAML would not
    write as it is goes through PyYAML alone, once per distinct value."""
    lines = [f"# {line}" for line in comment.splitlines()]
    document = export_dict(current)
    scalar = _Scalars()
    lines += [f"version: {document['version']}", f"owns: {document['owns']}"]
    for key in ("acls", "users"):
        entries: list[dict[str, Any]] = document[key]
        lines.append(f"{key}:" if entries else f"{key}: []")
        for entry in entries:
            lines += _entry_lines(entry, scalar)
    return HEADER + "\n".join(lines) + "\n"


def _entry_lines(entry: dict[str, Any], scalar: _Scalars) -> list[str]:
    """One list item of block style: ``- key: value``, then ``  key: value``; a list value
    (operations) as ``  key:`` and ``  - item`` lines."""
    lines = []
    for number, (key, value) in enumerate(entry.items()):
        lead = "- " if number == 0 else "  "
        if isinstance(value, list):
            lines.append(f"{lead}{key}:")
            lines += [f"  - {scalar(item)}" for item in value]
        else:
            lines.append(f"{lead}{key}: {scalar(value)}")
    return lines


class _Scalars:
    """Values as YAML scalars on one line, remembered per export (names repeat).

    Not thread-safe (one per export). Cost: a regex and a resolver match per distinct value;
    PyYAML for the few it would quote."""

    def __init__(self) -> None:
        self.written: dict[object, str] = {}

    def __call__(self, value: object) -> str:
        text = self.written.get(value)
        if text is None:
            text = self.written[value] = _scalar(value)
        return text


def _scalar(value: object) -> str:
    if isinstance(value, int):
        return str(value)
    assert isinstance(value, str)
    if not value.isprintable():
        return _escaped(value)
    plain = _PLAIN.fullmatch(value) is not None
    resolved = _RESOLVER.resolve(yaml.ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    if plain and resolved == STR_TAG:
        return value
    # PyYAML's own choice (single-quoted, say), unless that takes more than one line.
    written = yaml.dump([value], Dumper=_DUMPER, allow_unicode=True, width=_ONE_LINE)
    if written.count("\n") > 1:
        written = yaml.dump(
            [value], Dumper=_DUMPER, allow_unicode=True, width=_ONE_LINE, default_style='"'
        )
    return written.removeprefix("- ").removesuffix("\n")


_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def _escaped(value: str) -> str:
    """``value``, which holds a character :meth:`str.isprintable` rejects (a control, a bidi
    override, a zero-width or separator character), as a double-quoted YAML scalar with each
    such character escaped (``\\t``, ``\\x85``, ``\\u202e``, ``\\U000e0001``): it loads back
    as the same text, and the file shows a person, a terminal or a pipe nothing but printable
    characters. (libyaml writes U+202E and U+2028 as they are.)"""
    pieces = []
    for char in value:
        named = _NAMED.get(char)
        if named is not None:
            pieces.append(named)
        elif char.isprintable():
            pieces.append(char)
        elif (code := ord(char)) <= 0xFF:
            pieces.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            pieces.append(f"\\u{code:04x}")
        else:
            pieces.append(f"\\U{code:08x}")
    return '"' + "".join(pieces) + '"'


def _group(acl: AclBinding) -> tuple[Any, ...]:
    return (
        acl.resource_type,
        acl.resource_name,
        acl.pattern_type,
        acl.principal,
        acl.host,
        acl.permission_type,
    )
