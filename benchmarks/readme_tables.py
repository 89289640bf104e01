"""Which rows of the committed runs each README figures table shows (see ``readme_figures``).

Each cell is text or a function of the run; a function names its rows by what they measured
(suite, implementation, workload, metric), so a renamed or missing row fails the README test
instead of leaving an old figure behind. Ratios are computed here from two rows of one run.
"""

from __future__ import annotations

from benchmarks.figure_cells import arrow, authz, ms, rate, secs, times, us
from benchmarks.figures import Cell, MissingFigure, Run, Table
from benchmarks.readme_java import JAVA
from benchmarks.readme_pipeline import PIPELINE
from benchmarks.readme_sections import FAILOVER, STARTUP, UI_1M
from benchmarks.report import peak_load


def _conditions(r: Run) -> str:
    env = r.environment
    load = env.get("load")
    peak = peak_load(load) if load else float("nan")
    other = env.get("other_work")
    # Quiet: processes outside the run used under 5% of the cores (runs before that was
    # measured have only the load, which the run's own processes raise too: under one).
    quiet = other < 0.05 if other is not None else peak < 1
    verdict = (
        "yes"
        if quiet
        else "**no**: other work shared the cores, so its times are longer than a quiet run's"
    )
    others = f"{other:.1%}" if other is not None else "not measured"
    return (
        f"{env.get('cpu')}, {env.get('cores')} cores, Python {env.get('python')} | "
        f"{env.get('commit')} | {env.get('kafka', 'none')} | {peak:.2f} | {others} | {verdict}"
    )


W1_TEST = ("W1 R=100 d=20 testAuthorizer", "W1 R=100,000 d=20 testAuthorizer")
W1_HITS = ("W1 R=100 d=20 hits", "W1 R=100,000 d=20 hits")
W2_ZIPF = ("W2 tenants 1,000 zipf", "W2 tenants 1,000,000 zipf")
BIG_W1 = "W1 R=200,000 d=20"


def _log(impl: str, workload: str) -> Cell:
    return lambda r: rate(r.value("log", impl, workload, "throughput"))


def _small(size: int) -> Cell:
    def cell(r: Run) -> str:
        bulk = r.value(
            "smallbatch", "aclog replay", "100000 records, batches of 10000 (bulk)", "throughput"
        )
        small = r.value(
            "smallbatch", "aclog replay", f"100000 records, batches of {size}", "throughput"
        )
        return times(small / bulk)

    return cell


def _wire(impl: str, workload: str, clients: str) -> Cell:
    """Rate and p99 of one wire run, found by its clients (its latency rows follow its rate)."""

    def cell(r: Run) -> str:
        rows = [
            row
            for row in r.rows
            if (row["benchmark"], row["impl"], row["workload"]) == ("wire", impl, workload)
        ]
        starts = [
            i
            for i, row in enumerate(rows)
            if row["metric"] == "throughput" and clients in row["note"]
        ]
        if len(starts) != 1:
            raise MissingFigure(f"{len(starts)} wire runs of {impl} / {workload} / {clients}")
        p99 = next(row["value"] for row in rows[starts[0] :] if row["metric"] == "p99")
        return f"{rate(rows[starts[0]]['value'])}/s, p99 {ms(p99)}"

    return cell


def _cold(r: Run) -> str:
    ready = r.value(
        "coldstart", "aclog loader", "snapshot 1000000+250000 -> authorizer ready", "seconds"
    )
    floor = r.value(
        "coldstart", "floor: fastavro decode", "the 1000000+250000 records' bodies alone", "seconds"
    )
    return f"{secs(ready)} ({times(ready / floor)} the time fastavro alone decodes those records)"


def _tail(r: Run) -> str:
    replay = r.value("coldstart", "aclog replay", "tail read, decoded + applied", "throughput")
    floor = r.value(
        "coldstart", "floor: fastavro decode", "tail records' bodies alone", "throughput"
    )
    return f"{rate(replay)} records/s ({times(replay / floor)} the fastavro decode floor)"


def _serve_start(r: Run, workload: str) -> float:
    return r.value("smallbatch", "aclog serve start CPU", workload, "seconds")


def _kraft(r: Run) -> str:
    kraft = r.value("kraft", "kraft format", "snapshot 1000000 + tail 250000 -> image", "seconds")
    own = r.value("kraft", "aclog format", "snapshot 1000000 + tail 250000 -> image", "seconds")
    return (
        f"{secs(kraft)}, {times(kraft / own)} the same state from aclog's own files ({secs(own)})"
    )


HEADLINE = Table(
    ("what", "aclog", "beside it"),
    [
        (
            "authorize p50, Kafka's `testAuthorizer`, 1.2k → 1.2M → 2.4M ACLs",
            arrow(*(authz(w) for w in (*W1_TEST, f"{BIG_W1} testAuthorizer"))),
            lambda r: (
                "Python port of Kafka's `StandardAuthorizerData` at 2.4M: "
                + us(r.value("authz", "kafka-port", f"{BIG_W1} testAuthorizer", "p50"))
            ),
        ),
        (
            'authorize p50, Kafka\'s mixed "hits", 1.2k → 1.2M → 2.4M ACLs',
            arrow(*(authz(w) for w in (*W1_HITS, f"{BIG_W1} hits"))),
            lambda r: (
                "first call per name: "
                + arrow(*(authz(w, "aclog (memo cold)") for w in (*W1_HITS, f"{BIG_W1} hits")))(r)
            ),
        ),
        (
            "authorize p50, multi-tenant Zipf mix, 1k → 1M ACLs",
            arrow(*(authz(w) for w in W2_ZIPF)),
            lambda r: (
                "first call per name: "
                + arrow(*(authz(w, "aclog (memo cold)") for w in W2_ZIPF))(r)
            ),
        ),
        (
            "authorizer index memory, 121k ACLs",
            lambda r: f"{r.value('authz', 'aclog', 'W1 R=10,000 d=20', 'memory'):.0f} bytes/ACL",
            "",
        ),
        (
            "append with fsync, batches of 1 / 10,000 records",
            lambda r: (
                _log("aclog", "append fsync batch=1")(r)
                + " / "
                + _log("aclog", "append fsync batch=10000")(r)
                + " records/s"
            ),
            lambda r: (
                "fastavro encode alone "
                + _log("floor: fastavro encode", "ACL bodies alone")(r)
                + "/s"
            ),
        ),
        (
            "read + decode",
            lambda r: _log("aclog", "read + decode")(r) + " records/s",
            lambda r: (
                "fastavro decode alone "
                + _log("floor: fastavro decode", "ACL bodies alone")(r)
                + "/s; read + columnar decode (what the pipeline uses) "
                + _log("aclog", "read + columnar decode (Arrow columns)")(r)
                + "/s"
            ),
        ),
        (
            "snapshot write / load, 1M ACLs",
            lambda r: (
                rate(r.value("snapshot", "aclog", "write + fsync", "throughput", size=1000000))
                + " / "
                + rate(
                    r.value(
                        "snapshot", "aclog", "load (verify + decode)", "throughput", size=1000000
                    )
                )
                + " records/s"
            ),
            lambda r: (
                f"{r.value('snapshot', 'aclog', 'file size', 'size', size=1000000):.1f} bytes/ACL"
            ),
        ),
        ("cold start: 1M-ACL snapshot + 250k-record tail → authorizer ready", _cold, ""),
        ("tail replay (decode + apply), best of 3", _tail, ""),
        (
            "replay in batches of 1 / 4 / 100 records, against 10,000",
            lambda r: " / ".join(_small(n)(r) for n in (1, 4, 100)) + " the bulk rate",
            "a log written a request at a time: a context and 1–4 records a batch",
        ),
        (
            "`aclog serve` start to listening: the same log written a request at a time "
            "(15,000 batches, no snapshot) / an empty directory",
            lambda r: (
                secs(_serve_start(r, "15000 batches of 1-4 records"))
                + " / "
                + secs(_serve_start(r, "empty data directory"))
                + " of CPU"
            ),
            "best of 3, in turn",
        ),
        (
            "KRaft's own files (`--format kraft`), 1M + 250k → image",
            _kraft,
            "",
        ),
        (
            "CreateAcls of 1 in-process, 1 thread / 8 threads (group commit)",
            lambda r: (
                rate(r.value("commit", "aclog controller", "CreateAcls of 1", "throughput"))
                + " / "
                + rate(
                    r.value(
                        "commit", "aclog controller", "CreateAcls of 1, 8 threads", "throughput"
                    )
                )
                + " requests/s"
            ),
            lambda r: (
                "raw write + fsync "
                + rate(r.value("commit", "floor: write+fsync", "128-byte appends", "throughput"))
                + "/s"
            ),
        ),
        (
            "`aclog serve`, DescribeAcls (1 match), kafka-python, 2 processes × 8 threads",
            _wire("kafka-python", "DescribeAcls 1 match", "x 8 threads"),
            lambda r: (
                "raw pipelined: " + _wire("raw pipelined", "DescribeAcls 1 match", "in flight")(r)
            ),
        ),
        (
            "`aclog serve`, CreateAcls of 1, kafka-python, 2 processes × 8 threads",
            _wire("kafka-python", "CreateAcls 1 ACL", "x 8 threads"),
            lambda r: (
                "raw pipelined: " + _wire("raw pipelined", "CreateAcls 1 ACL", "in flight")(r)
            ),
        ),
        (
            "`aclog serve`, DescribeAcls p99 beside 250 hostile connections",
            lambda r: ms(
                r.value("hostile", "kafka-python + 250 hostile", "DescribeAcls 1 match", "p99")
            ),
            lambda r: (
                "alone: "
                + ms(r.value("hostile", "kafka-python alone", "DescribeAcls 1 match", "p99"))
            ),
        ),
        (
            "`aclog replay` / `aclog dump`, 1M records, whole command",
            lambda r: (
                secs(r.value("cli", "aclog replay", "whole command, 1000000 records", "seconds"))
                + " / "
                + secs(r.value("cli", "aclog dump", "whole command, 1000000 records", "seconds"))
            ),
            lambda r: (
                "`--json`: "
                + secs(
                    r.value(
                        "cli", "aclog replay --json", "whole command, 1000000 records", "seconds"
                    )
                )
                + " / "
                + secs(
                    r.value("cli", "aclog dump --json", "whole command, 1000000 records", "seconds")
                )
            ),
        ),
        (
            "failover: SIGKILL of the active `serve --controller` → first CreateAcls",
            lambda r: (
                ms(
                    r.value(
                        "failover",
                        "aclog serve --controller",
                        "SIGKILL active -> first CreateAcls",
                        "median",
                    )
                )
                + " median"
            ),
            "heartbeat 500 ms, election timeout 2 s",
        ),
    ],
)

TABLES: dict[str, Table] = {
    "run": Table(
        (
            "machine",
            "commit measured",
            "Kafka (`java` suite)",
            "highest load sampled (1 min)",
            "other work on the cores",
            "quiet",
        ),
        [(_conditions,)],
    ),
    "headline": HEADLINE,
    "java": JAVA,
    "pipeline": PIPELINE,
    "startup": STARTUP,
    "failover": FAILOVER,
    "ui-1m": UI_1M,
}
