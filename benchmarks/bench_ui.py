"""``aclog ui`` benchmarks on the tenancy log of :func:`benchmarks.workloads.tenancy_log`: the
first view after start (a cold ``/state``, which replays the log), then each view's latency
at the log's end and at past moments (p50 and p95 over the requests), beside the in-process
rebuild that ``aclog replay`` does for the same log.

Requests go through Starlette's TestClient (the app in this process, no sockets), so the
numbers are the app's own work: routing, the library call, the template. A ``mismatches`` row
counts State answers whose bindings differ from a rebuild at the same offset (anything but 0
is a bug).
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
import warnings
from pathlib import Path

from aclog.records import record_to_dict
from aclog.replay import rebuild_image
from benchmarks.report import Report, Row
from benchmarks.workloads import tenancy_log

REQUESTS = 40
"""Requests per view (quick: 10)."""


def _ms(seconds: float) -> float:
    return seconds * 1000


def _get(client: object, url: str) -> float:
    start = time.perf_counter()
    response = client.get(url)  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise AssertionError(f"{url}: {response.status_code} {response.text[:200]}")
    return elapsed


def _latencies(report: Report, view: str, size: int, seconds: list[float]) -> None:
    ordered = sorted(seconds)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    for metric, value in (("p50", statistics.median(ordered)), ("p95", p95)):
        note = f"{len(ordered)} requests"
        report.add(Row("ui", "aclog ui", view, size, metric, _ms(value), "ms", note))


def run(report: Report, quick: bool) -> None:
    """The first view, then every view's latency, on the tenancy log."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from starlette.testclient import TestClient

        from aclog.ui import create_app
    count = 10 if quick else REQUESTS
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "tenancy"
        world = tenancy_log(directory, quick=quick)
        start = time.perf_counter()
        image = rebuild_image(directory).image
        replay_s = time.perf_counter() - start
        size = len(image.acls)
        report.add(Row("ui", "in-process replay", "state at the end", size, "latency",
                       _ms(replay_s), "ms", "what aclog replay does"))  # fmt: skip
        client = TestClient(create_app(directory), base_url="http://127.0.0.1")
        first = _get(client, "/state")
        report.add(Row("ui", "aclog ui", "first view (/state)", size, "latency", _ms(first),
                       "ms", "cold: replays the log"))  # fmt: skip
        offsets = [p["offset"] for p in client.get("/api/timeline").json()["points"]]
        rng = random.Random(2026)
        moments = [rng.choice(offsets) for _ in range(count)]
        principal = sorted({acl.principal for acl in image.acls})[0]
        topic = world.topics[0]
        views = {
            "state (end)": lambda _: "/state",
            "state (page 2, end)": lambda _: "/state?page=2",
            "state (past moment)": lambda at: f"/state?at_offset={at}",
            "changes (end)": lambda _: "/changes",
            "timeline (data)": lambda _: "/api/timeline",
            "explain (end)": lambda _: (
                f"/explain?principal={principal}&host=10.0.0.1&operation=READ"
                f"&resource_type=TOPIC&resource_name={topic}"
            ),
            "who-can (end)": lambda _: f"/who-can?operation=READ&resource_name={topic}",
        }
        for view, url in views.items():
            _latencies(report, view, size, [_get(client, url(at)) for at in moments])
        wrong = 0
        for at in moments[:5]:
            page = client.get(f"/api/state?at_offset={at}").json()
            rebuilt = rebuild_image(directory, at_offset=at).image
            expected = [record_to_dict(acl) for acl in rebuilt.acls][:100]
            wrong += page["acls"] != expected
        report.add(Row("ui", "aclog ui vs replay", "state (past moment)", size, "mismatches",
                       wrong, "count", "first page differs"))  # fmt: skip
