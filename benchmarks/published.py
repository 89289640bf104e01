"""Kafka's published Java numbers (``reference/benchmarks.md`` §0 and §2), printed beside the
matching cells. Published, other hardware and JVM: context, not comparable in absolute terms.

Keys are (JMH method, resourceCount R, denyPercentage d); aclCount A = 10 and hostPreCount H = 10
throughout (PR #18293, KAFKA-18336). Values are ms/op, as (low, high) when the PR gives two result
sets and it is unclear which row belongs to which.
"""

from __future__ import annotations

from benchmarks.report import Report, Row

SOURCE = "published, other hardware and JVM (apache/kafka PR #18293, A=10 H=10)"
IMPL = "published Java KRaft"

PUBLISHED: dict[tuple[str, int, float], tuple[float, float]] = {
    # testAuthorizer
    ("testAuthorizer", 10_000, 99.0): (0.324, 0.324),
    ("testAuthorizer", 10_000, 99.9): (0.330, 0.330),
    ("testAuthorizer", 10_000, 99.99): (0.335, 0.335),
    ("testAuthorizer", 50_000, 90.0): (1.378, 1.378),
    ("testAuthorizer", 50_000, 99.0): (1.540, 1.540),
    ("testAuthorizer", 200_000, 90.0): (9.287, 9.287),
    ("testAuthorizer", 200_000, 99.0): (17.093, 17.093),
    # testAclsIterator
    ("testAclsIterator", 10_000, 0.0): (4.533, 4.533),
    ("testAclsIterator", 10_000, 20.0): (5.006, 5.006),
    ("testAclsIterator", 10_000, 50.0): (7.353, 7.353),
    ("testAclsIterator", 50_000, 20.0): (71.5, 71.5),
    ("testAclsIterator", 200_000, 0.0): (232.7, 232.7),
    ("testAclsIterator", 200_000, 20.0): (297.9, 297.9),
    # testAuthorizeByResourceType (the interface default, O(N))
    ("testAuthorizeByResourceType", 50_000, 20.0): (132.8, 160.7),
    ("testAuthorizeByResourceType", 200_000, 20.0): (541.6, 657.1),
    ("testAuthorizeByResourceType", 10_000, 50.0): (25.6, 26.2),
    ("testAuthorizeByResourceType", 10_000, 90.0): (31.5, 36.3),
    ("testAuthorizeByResourceType", 10_000, 99.0): (33.3, 36.5),
}


def add_published(
    report: Report,
    method: str,
    resources: int,
    deny: float,
    workload: str,
    size: int,
    nearest: bool = True,
) -> float | None:
    """Add the published row for (method, R, d) if there is one; else, with ``nearest``, the
    published cell at the same R with the closest d (labelled as such). Returns ms (low)."""
    key = (method, resources, deny)
    label = ""
    if key not in PUBLISHED and nearest:
        candidates = [k for k in PUBLISHED if k[0] == method and k[1] == resources]
        if not candidates:
            return None
        key = min(candidates, key=lambda k: abs(k[2] - deny))
        label = f"nearest published cell: d={key[2]:g} (not d={deny:g}); "
    if key not in PUBLISHED:
        return None
    low, high = PUBLISHED[key]
    spread = "" if low == high else f"{low:g}-{high:g} ms across two result sets; "
    report.add(
        Row("authz", IMPL, workload, size, "mean", low * 1000, "µs", label + spread + SOURCE)
    )
    return low
