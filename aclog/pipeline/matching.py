"""The Python functions Spark calls per row, each a thin wrapper over :mod:`aclog.authorizer`.

GLOB matching, GLOB literal prefixes and suffixes, and how an ACL's principal and host are
compared all come from the authorizer's own definitions (:func:`~aclog.authorizer.compile_glob`,
:func:`~aclog.acl.matchers.principal_matcher`, :func:`~aclog.acl.matchers.
host_matcher`), so a pipeline decision can never drift from :meth:`Authorizer.authorize`.

The functions live in an importable module (not ``__main__``) so Spark can pickle them by
reference; ``compile_glob`` and the matchers are cached per worker process.

Pure; thread-safe.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd  # type: ignore[import-untyped]

from aclog.acl.matchers import host_matcher, principal_matcher
from aclog.authorizer import Glob, GlobSyntaxError, canonical_host, compile_glob

ANY = "any"
EXACT = "exact"
GLOB = "glob"

Matcher = tuple[str, str | None]
"""(kind, text): (``any``, None) matches everything, (``exact``, text) equal text only,
(``glob``, pattern) whatever the GLOB matches."""


def glob_matches(pattern: str, name: str) -> bool:
    """True when the GLOB ``pattern`` matches the whole ``name``; False for an invalid GLOB
    (the controller never stores one)."""
    try:
        return compile_glob(pattern).matches(name)
    except GlobSyntaxError:
        return False


def glob_matches_batches(
    batches: Iterator[tuple[pd.Series, pd.Series]],
) -> Iterator[pd.Series]:
    """:func:`glob_matches` over Arrow batches (the body of a pandas UDF)."""
    for patterns, names in batches:
        yield pd.Series(
            [glob_matches(p, n) for p, n in zip(patterns, names, strict=True)], dtype=bool
        )


def glob_parts(pattern: str) -> tuple[str, str, int, bool]:
    """(literal prefix, literal suffix, literal character count, valid) of a GLOB pattern;
    where :class:`~aclog.authorizer.names.NameIndex` files it and how specific it is."""
    try:
        glob = compile_glob(pattern)
    except GlobSyntaxError:
        return "", "", 0, False
    return glob.literal_prefix, glob.literal_suffix, glob.literal_count, True


def _matcher(found: str | Glob | None) -> Matcher:
    if found is None:
        return ANY, None
    if isinstance(found, str):
        return EXACT, found
    return GLOB, found.pattern


def acl_principal_matcher(principal: str, is_glob: bool) -> Matcher:
    """How an ACL's principal is compared (see :mod:`aclog.acl.matchers`)."""
    return _matcher(principal_matcher(principal, is_glob))


def acl_host_matcher(host: str, is_glob: bool) -> Matcher:
    """How an ACL's host is compared with a request's canonical host."""
    return _matcher(host_matcher(host, is_glob))


def request_host(host: str) -> str:
    """A request's host in the canonical form ACL hosts are compared with."""
    return canonical_host(host)
