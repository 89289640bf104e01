"""README figures tables outside the Performance section: start-up and failover."""

from __future__ import annotations

from benchmarks.figure_cells import mb, ms, secs
from benchmarks.figures import Cell, Run, Table
from benchmarks.kraft_quorum import LABEL as KAFKA

STARTUP_COMMANDS = (
    "python -c pass",
    "aclog --help",
    "aclog --version",
    "aclog acls --help",
    "aclog acls add --help",
    "aclog acls add --operation <TAB>",
    "aclog acls list (10 ACLs)",
)


def _startup(command: str) -> tuple[str, Cell, Cell, Cell]:
    def one(metric: str) -> Cell:
        fmt = mb if metric == "peak RSS" else secs
        return lambda r: fmt(r.value("cli", command, "start-up", metric))

    return (f"`{command}`", one("wall median"), one("cpu median"), one("peak RSS"))


STARTUP = Table(
    ("command", "wall (median of 9)", "CPU (median)", "peak RSS"),
    [_startup(command) for command in STARTUP_COMMANDS],
)

PROBE = "aclog serve --controller x3"


def _probe(workload: str, impl: str = PROBE) -> Cell:
    def cell(r: Run) -> str:
        row = r.row("failover", impl, workload, "median")
        return f"median {ms(row['value'])}; {row['note']}"

    return cell


def _kafka(workload: str) -> Cell:
    """The Kafka twin's row; a run without it says why (a run older than the probe, or one
    where Kafka or Java was missing or the quorum failed); a run with some of its rows and not
    this one is an error, as for every other cell."""
    measured = _probe(workload, KAFKA)

    def cell(r: Run) -> str:
        rows = [x for x in r.rows if (x["benchmark"], x["impl"]) == ("failover", KAFKA)]
        if not rows:
            commit = r.environment.get("commit", "unknown")
            return f"not measured: the committed run (on {commit}) predates the Kafka probe"
        why = next((x for x in rows if x["metric"] in ("skipped", "failed")), None)
        if why is not None:
            return f"not measured ({why['metric']}): {why['note']}"
        return measured(r)

    return cell


def _p99(*workloads: str) -> Cell:
    return lambda r: " / ".join(ms(r.value("failover", PROBE, w, "p99")) for w in workloads)


FAILOVER = Table(
    ("fault", "measured"),
    [
        (
            "SIGKILL of the leader → another node acknowledges a write",
            _probe("kill-leader -> another node acks"),
        ),
        (
            f"{KAFKA}: SIGKILL of the active controller → a CreateAcls acknowledged",
            _kafka("kill-leader -> another node acks"),
        ),
        (
            "SIGSTOP of the leader (0.5-6 s) → another node (or the thawed leader) acknowledges",
            _probe("sigstop-leader -> another node acks"),
        ),
        (
            f"{KAFKA}: SIGSTOP of the active controller (0.5-6 s) → a CreateAcls acknowledged",
            _kafka("sigstop-leader -> another node acks"),
        ),
        (
            "SIGSTOP of the leader inside an append, before its bytes reach the segment (0.5-6 s)"
            " → another node (or the thawed leader) acknowledges",
            _probe("freeze-in-append -> another node acks"),
        ),
        (
            "stalled disk under the leader (0.5-6 s) → another node (or the leader, its disk"
            " back) acknowledges",
            _probe("stall-leader -> another node acks"),
        ),
        (
            "leader write p99, standbys running / one standby SIGSTOPped",
            _p99("leader writes, standbys running", "leader writes, a standby SIGSTOPped"),
        ),
        (
            "leader write p99, active segment empty / 60 MB (just under the 64 MB roll)",
            _p99("leader writes, active segment 0 MB", "leader writes, active segment 60 MB"),
        ),
    ],
)


def _view(workload: str) -> Cell:
    def cell(r: Run) -> str:
        p50, p95 = (r.value("ui-1m", "aclog ui", workload, m) for m in ("p50", "p95"))
        return f"{ms(p50)} / {ms(p95)}"

    return cell


def _first_view(r: Run) -> str:
    return ms(r.value("ui-1m", "aclog ui", "first view (/state)", "latency"))


def _memory(r: Run) -> str:
    ui = r.value("ui-1m", "aclog ui", "whole run", "peak RSS")
    replay = r.value("ui-1m", "aclog CLI", "replay (state at the end)", "peak RSS")
    return f"{mb(ui)} / {mb(replay)}"


UI_1M = Table(
    ("1M bindings + 250k changes", "p50 / p95"),
    [
        ("first view (`/state`, from the process's start)", _first_view),
        ("State at the end", _view("state (end)")),
        (
            "State filtered by principal (the first builds the index)",
            _view("state (filtered by principal)"),
        ),
        ("Changes at the end", _view("changes (end)")),
        ("Explain (the first loads the authorizer)", _view("explain (end)")),
        ("Who can", _view("who-can (end)")),
        ("Diff of two moments (the first rebuilds both)", _view("diff (two moments)")),
        ("creating-change link", _view("acl origin (creating change)")),
        (
            "slider step (State at the next chart point)",
            _view("slider step (state at the next point)"),
        ),
        ("Lint (a request that times out counts as its 300 s)", _view("lint (end)")),
        ("peak RSS, `aclog ui` / `aclog replay` of the same log", _memory),
    ],
)
