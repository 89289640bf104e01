"""Opening the writer a node serves: the exclusive :class:`~aclog.controller.controller.Controller`
of a directory it holds alone, or a :class:`~aclog.controller.quorum_member.QuorumMember` of a
shared directory, as :class:`NodeWriter`: the :class:`~aclog.controller.writer.MetadataWriter`
plus how the node's metadata loader follows it.

Alone on its directory the controller hands each durable commit to the loader in memory
(:meth:`Controller.add_commit_listener`) and tells it where the fsynced log ends; in a shared
directory other processes append too, so the loader reads up to the recovery point, which a
writer moves only after a batch's fsync (a batch written but not yet durable, whose fsync may
still fail and cut it, is never published to the node's authorizer). The
writer's kind is decided here, once, from the settings; nothing downstream asks which it is.

Cost: opening rebuilds the committed image (newest snapshot plus the log after it), once:
either controller hands the image it rebuilt to the loader, which reads only what follows it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from aclog.broker import MetadataLoader
from aclog.controller.authorization import ClusterAuthorizer
from aclog.controller.controller import Controller
from aclog.controller.quorum import ControllerNode
from aclog.controller.quorum_member import QuorumMember
from aclog.controller.writer import MetadataWriter
from aclog.image import MetadataImage
from aclog.log.recovery_point import committed_end
from aclog.snapshot import SnapshotPolicy


class WriterSettings(Protocol):
    """What opening a node's writer reads (``aclog serve``'s settings have these fields)."""

    @property
    def data_dir(self) -> Path: ...
    @property
    def node_id(self) -> int: ...
    @property
    def controller(self) -> bool: ...
    @property
    def heartbeat_ms(self) -> int: ...
    @property
    def election_timeout_ms(self) -> int: ...
    @property
    def workers(self) -> int: ...


def _never(listener: str) -> None:
    del listener  # the exclusive controller leads from the start: nothing to announce


@dataclass(frozen=True, slots=True)
class NodeWriter:
    """A node's writer and how its loader follows it.

    ``durable_end``: where the fsynced log ends (this process's writer's end when it is the
    only writer, else the recovery point); ``None``: read to the end of what is written;
    ``follow``: hand the loader this process's commits in memory; ``start``: clients reach
    the node at this ``host:port`` now (a shared directory's member begins to take part in
    elections); ``image``: the image the writer rebuilt when it opened, at the end of the log
    as it was then (the loader starts from it rather than replaying the log a second time,
    and reads whatever was appended after it), or ``None``."""

    writer: MetadataWriter
    durable_end: Callable[[], int] | None
    follow: Callable[[MetadataLoader], None]
    start: Callable[[str], None]
    image: MetadataImage | None = None


def open_node_writer(settings: WriterSettings, access: ClusterAuthorizer) -> NodeWriter:
    """The exclusive controller (taking the writer lock), or with ``settings.controller`` a
    standby in a shared directory that elections may make active."""
    if settings.controller:
        return _shared(settings, access)
    return _exclusive(settings, access)


def _exclusive(settings: WriterSettings, access: ClusterAuthorizer) -> NodeWriter:
    controller = Controller.open(
        settings.data_dir,
        node_id=settings.node_id,
        authorizer=access,
        snapshot_policy=SnapshotPolicy(),
    )
    log = controller.log
    return NodeWriter(
        controller,
        durable_end=lambda: log.end_offset,  # advances only after a group's fsync
        follow=lambda loader: controller.add_commit_listener(loader.offer),
        start=_never,
        image=controller.image,  # no commit yet: nobody reaches the node before it listens
    )


def _committed(directory: Path) -> Callable[[], int]:
    """Where the log other controllers append to is committed: its recovery point (0 while
    it cannot be read, so that a poll then publishes nothing new)."""

    def end() -> int:
        committed = committed_end(directory)
        return 0 if committed is None else committed

    return end


def _shared(settings: WriterSettings, access: ClusterAuthorizer) -> NodeWriter:
    node = ControllerNode(
        settings.data_dir,
        settings.node_id,
        authorizer=access,
        heartbeat_ms=settings.heartbeat_ms,
        election_timeout_ms=settings.election_timeout_ms,
        snapshot_policy=SnapshotPolicy(),
    )
    member = QuorumMember(node, workers=settings.workers)
    return NodeWriter(
        member,
        durable_end=_committed(settings.data_dir),
        follow=lambda loader: None,
        start=member.start,
        image=node.controller.image,  # its rebuild as it opened: the loader reads what follows
    )
