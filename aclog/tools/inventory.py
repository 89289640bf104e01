"""``--inventory``: a file of resources, one ``TYPE:name`` a line (``TOPIC:orders``), for
``acls add --dry-run`` to show which of them the new ACLs apply to.

Blank lines and lines starting with ``#`` are skipped; the type is any resource type name, in
any case. The file must be UTF-8: a line that is not, or that is no ``TYPE:name``, is refused
with the file and the line number. Reading the file may raise :class:`OSError` (missing,
unreadable); the caller turns it into an exit code.

Pure apart from reading the file; thread-safe. Cost: one read of the file.
"""

from __future__ import annotations

from pathlib import Path

from aclog.records import ResourceType
from aclog.tools.options import OptionError


def read_inventory(path: Path) -> list[tuple[ResourceType, str]]:
    """The resources listed in ``path``, in file order."""
    resources: list[tuple[ResourceType, str]] = []
    for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
        text = _decode(path, number, raw).strip()
        if not text or text.startswith("#"):
            continue
        kind, sep, name = text.partition(":")
        try:
            resource_type = ResourceType.parse(kind)
        except ValueError:
            resource_type = ResourceType.UNKNOWN
        if not sep or not name or resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
            raise OptionError(
                f"{path}:{number}: expected TYPE:name such as TOPIC:orders, got {text!r}"
            )
        resources.append((resource_type, name))
    return resources


def _decode(path: Path, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise OptionError(
            f"{path}:{number}: not UTF-8 text (byte {raw[error.start]:#04x} at column "
            f"{error.start + 1}); save the inventory as UTF-8"
        ) from None
