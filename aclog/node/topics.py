"""The topics the listener reports in Metadata: an optional inventory file, read once at start.

aclog keeps ACLs and credentials, not topics, so Metadata and DescribeTopics answer from a plain
list. One topic per line: ``orders`` or ``TOPIC:orders``, optionally followed by a partition count
(``orders 6``; default 1). Blank lines and ``#`` comments are skipped, and so are lines naming
another resource type (``GROUP:billing``), so the inventory file of ``aclog acls add
--inventory`` works as is. Names follow Kafka's rules: 1-249 characters from ``[a-zA-Z0-9._-]``,
not ``.`` or ``..``.

Every partition is led by this node. Topic ids are derived from the name (UUID v5), so they stay
the same across restarts. Immutable; thread-safe.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from aclog.records import ResourceType

_LEGAL_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}")
_NAMESPACE = uuid.UUID("5e0c6a9e-8b1f-4c36-9b64-2f3c1d7e4a10")
MAX_PARTITIONS = 10_000


class TopicsFileError(ValueError):
    """The inventory file cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class Topic:
    """A topic as Metadata reports it."""

    name: str
    topic_id: uuid.UUID
    partitions: int = 1


def topic_id_for(name: str) -> uuid.UUID:
    """The stable id of the topic called ``name``."""
    return uuid.uuid5(_NAMESPACE, name)


@dataclass(frozen=True)
class TopicInventory:
    """The known topics, by name and by id, in file order."""

    topics: tuple[Topic, ...] = ()
    by_name: Mapping[str, Topic] = field(init=False)
    by_id: Mapping[uuid.UUID, Topic] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", MappingProxyType({t.name: t for t in self.topics}))
        object.__setattr__(self, "by_id", MappingProxyType({t.topic_id: t for t in self.topics}))

    @classmethod
    def of(cls, names: Mapping[str, int]) -> TopicInventory:
        """An inventory of ``{name: partitions}``."""
        return cls(tuple(Topic(name, topic_id_for(name), count) for name, count in names.items()))


def load_topics(path: Path | None) -> TopicInventory:
    """Read the inventory file at ``path`` (``None``: no topics)."""
    if path is None:
        return TopicInventory()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise TopicsFileError(f"cannot read the topics file {path}: {error}") from None
    found: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        parsed = _parse_line(line.strip(), f"{path}:{number}")
        if parsed is not None:
            name, partitions = parsed
            found[name] = partitions
    return TopicInventory.of(found)


def _parse_line(text: str, where: str) -> tuple[str, int] | None:
    if not text or text.startswith("#"):
        return None
    words = text.split()
    if len(words) > 2:
        raise TopicsFileError(f"{where}: expected a topic and an optional partition count")
    kind, colon, rest = words[0].partition(":")
    if colon:
        try:
            resource_type = ResourceType.parse(kind)
        except ValueError:
            raise TopicsFileError(f"{where}: unknown resource type {kind!r}") from None
        if resource_type != ResourceType.TOPIC:
            return None
        name = rest
    else:
        name = words[0]
    if not _LEGAL_NAME.fullmatch(name) or name in (".", ".."):
        raise TopicsFileError(
            f"{where}: {name!r} is not a legal topic name (1-249 characters from "
            "a-z A-Z 0-9 . _ -, not '.' or '..')"
        )
    partitions = 1
    if len(words) == 2:
        count = words[1]
        if not count.isdigit() or not 1 <= int(count) <= MAX_PARTITIONS:
            raise TopicsFileError(
                f"{where}: the partition count must be from 1 to {MAX_PARTITIONS}, not {count!r}"
            )
        partitions = int(count)
    return name, partitions
