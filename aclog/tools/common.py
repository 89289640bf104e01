"""Options and plumbing shared by the commands that read a data directory: the common
options, the ``--format`` choice, the state as of a point (:func:`load_state`) and a progress
bar over a log's offsets (:func:`log_bar`). Which
directories may be read or written is :mod:`aclog.tools.data_dirs`; how a command writes,
:mod:`aclog.tools.writing`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from aclog.image import ReplayError
from aclog.kraft import is_kraft_path
from aclog.log import CorruptLogError, estimated_end_offset
from aclog.records import RecordDecodeError, gc_paused
from aclog.tools.console import EXIT_USAGE, fail, print_warning
from aclog.tools.data_dirs import require_log
from aclog.tools.exit_codes import fail_for
from aclog.tools.points import parse_point, show_point_note
from aclog.tools.points import parse_time as parse_time  # noqa: PLC0414  (pipeline imports it here)
from aclog.tools.progress import OnOffset, offsets_bar

if TYPE_CHECKING:
    from aclog.replay import Rebuilt


def is_kraft(path: Path, source_format: str) -> bool:
    """Whether ``path`` is read as a KRaft metadata log under ``--format``."""
    choice = source_format.strip().lower()
    if choice not in ("auto", "aclog", "kraft"):
        fail(f"unknown --format {source_format!r}; use aclog, kraft or auto", EXIT_USAGE)
    return choice == "kraft" or (choice == "auto" and (is_kraft_path(path) or _kraft_segment(path)))


def _kraft_segment(path: Path) -> bool:
    """A ``.log`` segment file of a KRaft metadata directory, given alone (as kafka-dump-log
    is given one): read as aclog's format, it failed with 'unknown frame version 0'."""
    return path.suffix == ".log" and path.is_file() and is_kraft_path(path.parent)


def replay_errors() -> tuple[type[Exception], ...]:
    """What rebuilding a state from a data directory can raise for the data rather than for a
    bug: every command that replays catches these (``except replay_errors()``, evaluated only
    when something is raised) and exits through :func:`~aclog.tools.exit_codes.fail_for` (a
    damaged log is 1, never an internal error). A function so that importing this module does
    not import the replay (numpy, pyarrow, kafka-python): completing an option does not."""
    from aclog.replay import RebuildError  # noqa: PLC0415

    return (CorruptLogError, RecordDecodeError, ReplayError, RebuildError, OSError)


@contextmanager
def log_bar(data_dir: Path, what: str, up_to: int | None) -> Iterator[OnOffset | None]:
    """A progress bar (:func:`~aclog.tools.progress.offsets_bar`) over the offsets of
    ``data_dir`` up to ``up_to`` (``None``: the end of the log), the total shown; ``None`` off
    a terminal. Cost: a look at the last segment's index for the end."""
    end = estimated_end_offset(data_dir)
    if end is not None and up_to is not None:
        end = min(end, up_to + 1)
    with offsets_bar(what, end) as on_offset:
        yield on_offset


def load_state(
    data_dir: Path, at_offset: int | None, at_time: str | None, *, kraft: bool = False
) -> Rebuilt:
    """The state of ``data_dir`` as of the given point, read without taking the writer lock or
    writing anything; a note on stderr when the state is not quite the point given
    (:func:`aclog.replay.point_note`); a progress bar on a terminal. ``kraft``:
    ``data_dir`` is a KRaft metadata log."""
    from aclog.replay import rebuild_image  # noqa: PLC0415 (see replay_errors)

    require_log(data_dir, kraft=kraft)
    at_offset, at_time_ms = parse_point(at_offset, at_time)
    try:
        # A CLI command is a process edge: it pauses the collector the library leaves alone
        # (a rebuild frees little of what it allocates; see aclog.records.collector).
        with log_bar(data_dir, "replaying", at_offset) as on_offset, gc_paused():
            rebuilt = rebuild_image(
                data_dir,
                at_offset=at_offset,
                at_time_ms=at_time_ms,
                on_warning=print_warning,
                on_batch=None if on_offset is None else lambda b: on_offset(b.last_offset),
                kraft=kraft,
            )
    except replay_errors() as error:
        fail_for(error, f"replay {data_dir}")
    last = rebuilt.image.provenance.last_offset
    show_point_note(data_dir, last, at_offset=at_offset, at_time_ms=at_time_ms, kraft=kraft)
    return rebuilt
