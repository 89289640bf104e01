"""GLOB patterns (KIP-1042): the one definition of how a GLOB matches a name.

``*`` matches any run of characters, including none; ``?`` matches exactly one character; ``\\``
makes the next character literal. A pattern matches the whole name, case-sensitively.

A pattern is split at its unescaped stars into segments of literals and ``?``. Matching anchors the
first segment at the start and the last at the end, and finds each middle segment at its leftmost
place after the previous one. Leftmost placement is always safe for globs, so there is no
backtracking: the cost is O(len(name) * len(pattern)) in the worst case and usually one
``str.find`` per segment.

Immutable; thread-safe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

MAX_PATTERN_LENGTH = 1000
GLOB_FEATURE = "aclog.glob.version"
"""The feature a listener that stores GLOB ACLs (pattern type 5, as here) advertises in its
ApiVersions response (``SupportedFeatures``, KIP-584), at version 1: ``aclog serve`` does, Kafka
does not. A client asks it before sending GLOB rather than guessing from an address."""


class GlobSyntaxError(ValueError):
    """A pattern that is not a valid GLOB; the message says how to fix it."""


@dataclass(frozen=True, slots=True)
class _Segment:
    """A run of literal characters and ``?`` between two stars."""

    text: str  # the literal text, with "?" positions holding a placeholder
    wildcards: bool  # True when the segment holds at least one "?"
    regex: re.Pattern[str] | None

    def match_at(self, name: str, pos: int) -> bool:
        if self.regex is None:
            return name.startswith(self.text, pos)
        return self.regex.match(name, pos) is not None

    def find(self, name: str, pos: int, end: int) -> int:
        if self.regex is None:
            return name.find(self.text, pos, end)
        found = self.regex.search(name, pos, end)
        return -1 if found is None else found.start()


@dataclass(frozen=True, slots=True)
class Glob:
    """A compiled GLOB pattern.

    ``literal_prefix`` is the text before the first wildcard and ``literal_suffix`` the text after
    the last one (escapes resolved; both are the whole text when there is no wildcard): the index
    files a GLOB ACL under one of them. ``literal_count`` is the number of literal characters
    (used for specificity). ``required`` is the longest run of literal characters after the
    first wildcard (the whole text when there is none): every name that matches contains it, so
    ``required in name`` is a cheap necessary test a caller that already knows the name starts
    with the literal prefix may run before :meth:`matches` (which runs it too).
    """

    pattern: str
    literal_prefix: str
    literal_suffix: str
    literal_count: int
    min_length: int
    has_wildcards: bool
    _segments: tuple[_Segment, ...] = field(repr=False)
    _starred: bool = field(repr=False)  # at least one "*" in the pattern
    required: str = field(repr=False)

    def matches(self, name: str) -> bool:
        """True when the whole ``name`` matches. O(len(name) * len(pattern)) worst case; a name
        without the pattern's longest literal run, literal prefix or literal suffix is rejected
        by C-level string tests first."""
        if (
            self.required not in name
            or len(name) < self.min_length
            or not name.startswith(self.literal_prefix)
            or not name.endswith(self.literal_suffix)
        ):
            return False
        segments = self._segments
        if not self._starred:
            only = segments[0]
            return len(name) == self.min_length and only.match_at(name, 0)
        first, last = segments[0], segments[-1]
        if not first.match_at(name, 0):
            return False
        end = len(name) - len(last.text)
        if not last.match_at(name, end):
            return False
        pos = len(first.text)
        for segment in segments[1:-1]:
            found = segment.find(name, pos, end)
            if found < 0:
                return False
            pos = found + len(segment.text)
        return pos <= end


def validate_glob(pattern: str) -> None:
    """Raise :class:`GlobSyntaxError` when ``pattern`` cannot be a GLOB ACL's resource name."""
    if not pattern:
        raise GlobSyntaxError("GLOB pattern must not be empty")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise GlobSyntaxError(
            f"GLOB pattern is {len(pattern)} characters long; the limit is {MAX_PATTERN_LENGTH}"
        )
    if _dangling_escape(pattern):
        raise GlobSyntaxError(
            f"GLOB pattern {pattern!r} ends with a lone '\\'; write '\\\\' for a literal backslash"
        )


def _dangling_escape(pattern: str) -> bool:
    trailing = len(pattern) - len(pattern.rstrip("\\"))
    return trailing % 2 == 1


@lru_cache(maxsize=65536)
def compile_glob(pattern: str) -> Glob:
    """Compile ``pattern`` once; later calls with the same text return the cached object.

    ``*`` matches any run of characters, ``?`` exactly one, ``\\`` escapes the next one; the
    whole name must match:

    >>> glob = compile_glob("orders.*.v?")
    >>> glob.matches("orders.eu.v1"), glob.matches("orders.eu.v10"), glob.literal_prefix
    (True, False, 'orders.')
    >>> try:
    ...     compile_glob("orders\\\\")
    ... except GlobSyntaxError as error:
    ...     print(error)
    GLOB pattern 'orders\\\\' ends with a lone '\\'; write '\\\\' for a literal backslash
    """
    validate_glob(pattern)
    tokens = _tokens(pattern)
    segments: list[list[str | None]] = [[]]  # None stands for "?"
    for token in tokens:
        if token == "*":
            segments.append([])
        else:
            segments[-1].append(None if token == "?" else token[-1])
    compiled = tuple(_segment(parts) for parts in segments)
    runs = _literal_runs(tokens)
    return Glob(
        pattern=pattern,
        literal_prefix=runs[0],
        literal_suffix=runs[-1],
        literal_count=sum(len(run) for run in runs),
        min_length=sum(len(s.text) for s in compiled),
        has_wildcards=len(runs) > 1,
        _segments=compiled,
        _starred=len(compiled) > 1,
        required=max(runs[1:] or runs, key=len),
    )


def _literal_runs(tokens: list[str]) -> list[str]:
    """The literal texts between wildcards (escapes resolved), empty ones included: the first is
    the literal prefix, the last the literal suffix."""
    runs = [""]
    for token in tokens:
        if token in ("*", "?"):
            runs.append("")
        else:
            runs[-1] += token[-1]
    return runs


def _tokens(pattern: str) -> list[str]:
    """Split into ``*``, ``?`` and literal tokens (an escaped character is ``\\x``)."""
    tokens: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            tokens.append("\\" + pattern[i + 1])
            i += 2
            continue
        tokens.append(char)
        i += 1
    return tokens


def _segment(parts: list[str | None]) -> _Segment:
    text = "".join("\0" if p is None else p for p in parts)
    if None not in parts:
        return _Segment(text=text, wildcards=False, regex=None)
    source = "".join("." if p is None else re.escape(p) for p in parts)
    return _Segment(text=text, wildcards=True, regex=re.compile(source, re.DOTALL))
