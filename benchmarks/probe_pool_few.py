"""A probe, not a suite: where the string pool's line between its path for a few strings
(:mod:`aclog.image.acl_pool_few`) and the vectorised reference should sit.

A pool of ``--strings`` strings (resource names and principals as
:func:`benchmarks.bench_log.acl_records` makes them, added in one run and then in batches of
a few, so the pool holds several runs) is asked for k strings at a time, half of them held:
``known`` (:meth:`~aclog.image.acl_pool.StringPool.known_codes`) and ``codes`` (of k strings
never seen, so the pool grows and merges its runs as a tail of small batches makes it). Each
row is microseconds per call, best of five, the two paths timed in turn. Usage:
``python -m benchmarks.probe_pool_few [--strings N] [--sizes 1,2,4,...]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from functools import partial
from itertools import count
from unittest.mock import patch

from aclog.image.acl_pool import StringPool
from benchmarks.bench_log import acl_records
from benchmarks.probe_small_batch import per_call

CALLS = 200


def _pool(strings: int) -> tuple[StringPool, list[str]]:
    acls = acl_records(strings)
    texts = list(dict.fromkeys(t for a in acls for t in (a.resource_name, a.principal)))
    pool = StringPool()
    pool.codes(texts[: len(texts) * 3 // 4])
    for at in range(len(texts) * 3 // 4, len(texts), 3):
        pool.codes(texts[at : at + 3])
    return pool, texts


def probe(strings: int, sizes: list[int]) -> list[tuple[int, str, float, float]]:
    """(k, what, fast path µs, reference µs) rows."""
    pool, texts = _pool(strings)
    fresh = (f"never-seen-{n}" for n in count())
    rows = []
    for k in sizes:
        asked = [texts[(i * 7919) % len(texts)] if i % 2 else f"absent-{i}" for i in range(k)]
        timed = {}
        for few in (k, 0):  # the fast path, then the reference
            with patch("aclog.image.acl_pool.FEW", few):
                known = per_call(partial(pool.known_codes, asked), CALLS) * 1e6
                new = per_call(partial(_add, pool, fresh, k), CALLS) * 1e6
            timed[few] = (known, new)
        rows.append((k, "known", timed[k][0], timed[0][0]))
        rows.append((k, "codes", timed[k][1], timed[0][1]))
    return rows


def _add(pool: StringPool, fresh: Iterator[str], k: int) -> None:
    """Add ``k`` strings the pool has never seen."""
    pool.codes([next(fresh) for _ in range(k)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--strings", type=int, default=100_000)
    parser.add_argument("--sizes", default="1,2,3,4,6,8,12,16,24,32,64")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'k':>4} {'what':>6} {'fast µs':>9} {'reference µs':>13}")
    for k, what, fast, reference in probe(args.strings, sizes):
        print(f"{k:>4} {what:>6} {fast:>9.1f} {reference:>13.1f}")


if __name__ == "__main__":
    main()
