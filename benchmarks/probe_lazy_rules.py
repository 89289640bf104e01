"""A probe, not a suite: what an authorizer loaded from a table-backed image costs after the
load, where the rules built from columns (:mod:`aclog.authorizer.table_rules`) could differ
from rules built from records: the writer's first change (``Authorizer.apply`` of a small
batch: its patterns' ACLs are made then), requests on the hot path, one explanation, and the
first full listing. Run it on two trees in turn to compare them.

Usage: ``python -m benchmarks.probe_lazy_rules DIR [--quick]`` (DIR as for
:mod:`benchmarks.probe_acl_table`, made once if missing). The load and each row run with the
collector paused; the first change and the explanation are the best of three fresh loads;
the requests are the best of three passes over the same 200k requests. Prints one line per
row.
"""

from __future__ import annotations

import gc
import random
import time
import uuid
from collections.abc import Callable

from aclog.acl.filters import AclFilter
from aclog.authorizer import Authorizer
from aclog.image import AclsImage
from aclog.records.collector import call_paused, gc_paused
from aclog.records.enums import AclOperation, ResourceType
from aclog.replay.rebuild import rebuild_image
from benchmarks.probe_acl_table import probe_data

ROUNDS = 3
REQUESTS = 200_000


def _loaded(image: AclsImage) -> Authorizer:
    authorizer = Authorizer()
    call_paused(authorizer.load, image)
    return authorizer


def _timed(run: Callable[[], object]) -> float:
    gc.collect()
    with gc_paused():
        start = time.perf_counter()
        run()
        return time.perf_counter() - start


def main() -> None:
    directory, _, _, _ = probe_data()
    image = call_paused(rebuild_image, directory).image.acls
    table = image.table
    assert table is not None, "the image is not held as a table"
    hi, lo = table.ids()
    ids = [uuid.UUID(int=int(hi[i]) << 64 | int(lo[i])) for i in (0, -1, len(hi) // 2)]
    first, middle = table.get(ids[0]), table.get(ids[2])
    assert first is not None and middle is not None
    # Explained: the middle ACL's pattern; changed: the first and last ACLs' (removed, the
    # first added back), as a small admin request does.
    question = (middle.principal, "10.0.0.1", AclOperation.READ)
    where = (middle.resource_type, middle.resource_name)
    rng = random.Random(5)
    names = [f"t{rng.randrange(1000):04d}.orders-{rng.randrange(97)}" for _ in range(4096)]
    principals = [f"User:svc-{rng.randrange(300)}" for _ in range(4096)]
    asked = [
        (principals[i % 4096], "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, names[i % 4093])
        for i in range(REQUESTS)
    ]
    change, explain, hot, listing = (float("inf"),) * 4
    for _ in range(ROUNDS):
        authorizer = _loaded(image)
        explain = min(explain, _timed(lambda a=authorizer: a.explain(*question, *where)))
        change = min(change, _timed(lambda a=authorizer: a.apply([first], ids[:2])))
        authorize = authorizer.authorize
        hot = min(hot, _timed(lambda f=authorize: [f(*request) for request in asked]))
        del authorizer
    authorizer = _loaded(image)
    listing = _timed(lambda: authorizer.acls(AclFilter()))
    print(f"{len(table)} ACLs in the image")
    print(f"{change * 1000:10.3f} ms  first change after the load (remove 2, add 1)")
    print(f"{explain * 1000:10.3f} ms  first explanation after the load")
    print(f"{REQUESTS / hot:10.0f} /s  authorize, {REQUESTS} requests over 4096 names")
    print(f"{listing:10.3f} s   first full listing after the load")


if __name__ == "__main__":
    main()
