"""The README's table of aclog beside Kafka's own Java classes (the ``java`` suite's rows)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from benchmarks.figure_cells import arrow, mb, rate, secs, times, us
from benchmarks.figures import Cell, Run, Table

JAVA_IMPL = "kafka (java)"
RATIO_IMPL = "aclog vs java"
W1 = ("W1 R=100 d=20", "W1 R=10,000 d=20", "W1 R=100,000 d=20")
W2 = ("W2 tenants 1,000", "W2 tenants 100,000", "W2 tenants 1,000,000")
W3 = ("W3 adversarial 1,000", "W3 adversarial 100,000")
LOAD = "snapshot 1,000,000 + tail 250,000"


def _java(r: Run, impl: str, workload: str, metric: str) -> float:
    return r.value("java", impl, workload, metric)


def triple(
    workloads: Sequence[str], metric: str, show: Callable[[float], str]
) -> tuple[Cell, Cell, Cell]:
    """aclog's figures, Java's and aclog's lead, each along ``workloads``."""

    def along(impl: str, suffix: str, fmt: Callable[[float], str]) -> Cell:
        return arrow(*(lambda r, w=w: fmt(_java(r, impl, w, metric + suffix)) for w in workloads))

    return along("aclog", "", show), along(JAVA_IMPL, "", show), along(RATIO_IMPL, " ratio", times)


def _memory(r: Run) -> str:
    objects = " → ".join(mb(_java(r, "aclog", f"{w} image + authorizer", "memory")) for w in W1)
    rss = ", ".join(
        mb(_java(r, "aclog", f"{w} image + authorizer", "memory (RSS)")) for w in (*W1[1:], W2[2])
    )
    w2 = mb(_java(r, "aclog", f"{W2[2]} image + authorizer", "memory"))
    return f"objects (`tracemalloc`): {objects}, {w2}; RSS growth of a fresh process: {rss}"


def _memory_java(r: Run) -> str:
    heap = " → ".join(mb(_java(r, JAVA_IMPL, f"{w} image + authorizer", "memory")) for w in W1)
    w2 = mb(_java(r, JAVA_IMPL, f"{W2[2]} image + authorizer", "memory"))
    return f"live heap after full GCs: {heap}, {w2}"


def _memory_ratio(r: Run) -> str:
    def lead(w: str, metric: str) -> str:
        return times(_java(r, RATIO_IMPL, f"{w} image + authorizer", f"{metric} ratio"))

    objects = " → ".join(lead(w, "memory") for w in W1)
    rss = ", ".join(lead(w, "memory (RSS)") for w in (*W1[1:], W2[2]))
    return f"objects {objects}, {lead(W2[2], 'memory')}; RSS {rss}"


def _ready(workload: str) -> tuple[Cell, Cell, Cell]:
    def one(impl: str, metric: str, fmt: Callable[[float], str]) -> Cell:
        return lambda r: fmt(_java(r, impl, workload, metric))

    both = ("seconds", "cpu seconds")
    return (
        lambda r: " wall, ".join(one("aclog", m, secs)(r) for m in both) + " CPU",
        lambda r: " wall, ".join(one(JAVA_IMPL, m, secs)(r) for m in both) + " CPU",
        lambda r: " wall, ".join(one(RATIO_IMPL, f"{m} ratio", times)(r) for m in both) + " CPU",
    )


JAVA = Table(
    ("what", "aclog", "Kafka (Java)", "aclog better by"),
    [
        (
            "authorize p50, `testAuthorizer`, 1.2k → 121k → 1.2M ACLs",
            *triple([f"{w} testAuthorizer" for w in W1], "p50", us),
        ),
        (
            "authorize p50, W1 hits, 1.2k → 121k → 1.2M ACLs",
            *triple([f"{w} hits" for w in W1], "p50", us),
        ),
        ("same, first call per name", *triple([f"{w} hits" for w in W1], "cold p50", us)),
        (
            "authorize p50, W2 multi-tenant Zipf, 1k → 100k → 1M ACLs",
            *triple([f"{w} zipf" for w in W2], "p50", us),
        ),
        ("same, first call per name", *triple([f"{w} zipf" for w in W2], "cold p50", us)),
        (
            "authorize p50, W3 adversarial prefixes, 1k → 100k ACLs",
            *triple([f"{w} mix" for w in W3], "p50", us),
        ),
        (
            "authorize throughput per s, W1 hits 1.2k / 1.2M, W2 1M",
            *triple([f"{W1[0]} hits", f"{W1[2]} hits", f"{W2[2]} zipf"], "throughput", rate),
        ),
        (
            "cold start: 1M-ACL KRaft checkpoint + 250k-record tail (+ SCRAM) → ready authorizer",
            *_ready(f"{LOAD} ready"),
        ),
        ("same from aclog's own files", *_ready(f"{LOAD} ready (aclog format)")),
        ("1.2M-ACL checkpoint → ready authorizer (W1)", *_ready(f"{W1[2]} checkpoint ready")),
        ("1M-ACL checkpoint → ready authorizer (W2)", *_ready(f"{W2[2]} checkpoint ready")),
        (
            "tail replay, 252.5k records read, decoded and applied as one delta, best of 3",
            *triple([f"{LOAD} tail replay"], "throughput", lambda v: f"{rate(v)} records/s"),
        ),
        (
            "image + authorizer memory, W1 1.2k → 121k → 1.2M ACLs, W2 1M",
            _memory,
            _memory_java,
            _memory_ratio,
        ),
    ],
)
