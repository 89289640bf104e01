"""Many strings at once as Arrow arrays of their UTF-8 bytes, and a 64-bit hash of each, made
by numpy passes over the bytes: how a :class:`~aclog.image.acl_pool.StringPool` finds a batch's
strings with no Python call per string.

- :class:`ArrowStrings` is a ``Sequence[str]`` held as an Arrow array (a decoded batch's or a
  snapshot's distinct strings): the Python strings are made only if someone reads them.
- :func:`utf8_of` gives any sequence of strings as one ``binary`` array (the bytes each
  string's ``encode`` gives; a lone surrogate passes through, so no string is refused).
- :func:`string_hashes` hashes each string's bytes: a sum over its bytes of a random number
  per byte value times a random odd number per position, mixed with its length by the
  table's :func:`~aclog.image.acl_table_keys.fingerprints`. Different strings share a hash
  about once in 2^64 pairs, and a caller compares the bytes of every match anyway: a hash
  only says where to look.

Thread-safe (the position table is only ever replaced by a longer one with the same prefix).
Cost: a few numpy passes over the bytes (a few ns per byte), in blocks of at most
:data:`_BLOCK_BYTES` so the passes' temporaries stay small.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
import pyarrow as pa

from aclog.image.acl_table_keys import fingerprints
from aclog.records.vector import arrow_numbers

_U64 = np.uint64
BYTE_VALUES = np.random.default_rng(0x5EED_AC10).integers(
    0, np.iinfo(np.uint64).max, 256, dtype=np.uint64, endpoint=True
)
"""A random number per byte value (fixed: hashes are never stored, only compared)."""
_BLOCK_BYTES = 1 << 22
_positions: list[Any] = [np.empty(0, dtype=np.uint64)]
"""The odd multiplier of each position in a string, grown to the longest string seen."""


class ArrowStrings(Sequence[str]):
    """Represents some strings held as an Arrow ``string`` or ``binary`` array (``arrow``),
    read as Python strings only when asked (then made once, all together).

    Thread-safe (two threads that both read it build equal lists). Cost: O(1) until read."""

    __slots__ = ("_texts", "arrow")

    def __init__(self, arrow: pa.Array) -> None:
        self.arrow = arrow
        self._texts: list[str] | None = None

    def __len__(self) -> int:
        return len(self.arrow)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._all()[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def texts_at(self, positions: Any) -> list[str]:
        """The strings at ``positions`` (an integer array), made only for them."""
        taken: list[str] = self.arrow.take(arrow_numbers(positions.astype(np.int64))).to_pylist()
        return taken

    def _all(self) -> list[str]:
        texts = self._texts
        if texts is None:
            texts = self._texts = self.arrow.to_pylist()
        return texts


def utf8_of(texts: Sequence[str]) -> pa.Array:
    """``texts`` as one ``binary`` array of their UTF-8 bytes (an :class:`ArrowStrings`' own
    array, viewed, with no copy)."""
    if isinstance(texts, ArrowStrings):
        arrow = texts.arrow
        if arrow.type == pa.string():
            return arrow.view(pa.binary())
        return arrow if arrow.type == pa.binary() else arrow.cast(pa.binary())
    encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=offsets[1:])
    data = pa.py_buffer(b"".join(encoded))
    return pa.Array.from_buffers(pa.binary(), len(encoded), [None, pa.py_buffer(offsets), data])


def string_hashes(array: pa.Array) -> Any:
    """One ``uint64`` hash per string of ``array`` (``binary`` or ``string``, no nulls) of its
    bytes (see the module)."""
    offsets, data = _offsets_and_bytes(array)
    hashes = np.empty(len(offsets) - 1, dtype=np.uint64)
    done = 0
    while done < len(hashes):
        # The strings whose bytes start within the next block (one string at least).
        stop = int(np.searchsorted(offsets, offsets[done] + _BLOCK_BYTES, side="right")) - 1
        stop = min(max(stop, done + 1), len(hashes))
        hashes[done:stop] = _block_hashes(data, offsets[done : stop + 1])
        done = stop
    return hashes


def _offsets_and_bytes(array: pa.Array) -> tuple[Any, Any]:
    """The ``int64`` offsets (one past each string's end too) and the bytes of ``array``."""
    large = array.type in (pa.large_string(), pa.large_binary())
    width = np.int64 if large else np.int32
    _, offset_buffer, data_buffer = array.buffers()
    count = len(array) + 1
    if offset_buffer is None:  # an empty array may hold no buffers
        return np.zeros(count, dtype=np.int64), np.empty(0, dtype=np.uint8)
    offsets = np.frombuffer(
        offset_buffer, dtype=width, count=count, offset=array.offset * np.dtype(width).itemsize
    ).astype(np.int64)
    data = np.empty(0, np.uint8) if data_buffer is None else np.frombuffer(data_buffer, np.uint8)
    return offsets, data


def _block_hashes(data: Any, offsets: Any) -> Any:
    """The hashes of the strings between consecutive ``offsets`` of ``data``."""
    base = int(offsets[0])
    body = data[base : int(offsets[-1])]
    starts = offsets[:-1] - base
    lengths = np.diff(offsets)
    positions = position_weights(int(lengths.max()) if len(lengths) else 0)
    within = np.arange(len(body), dtype=np.int64) - np.repeat(starts, lengths)
    sums = np.zeros(len(body) + 1, dtype=np.uint64)
    np.cumsum(BYTE_VALUES[body] * positions[within], out=sums[1:])
    # A sum over a string is a difference of prefix sums (wrapping, as the sums do).
    return fingerprints((sums[starts + lengths] - sums[starts], lengths.astype(_U64)))


def position_weights(longest: int) -> Any:
    """At least ``longest`` position multipliers (odd, so no byte's value is lost)."""
    weights = _positions[0]
    if len(weights) < longest:
        size = max(longest, 2 * len(weights), 64)
        steps = np.arange(size, dtype=np.uint64) + _U64(0x632BE59BD9B4E019)
        weights = fingerprints((steps, steps)) | _U64(1)
        _positions[0] = weights
    return weights
