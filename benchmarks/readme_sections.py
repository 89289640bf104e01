"""README figures tables outside the Performance section: start-up and failover."""

from __future__ import annotations

from benchmarks.figure_cells import mb, ms, secs
from benchmarks.readme_figures import Cell, Run, Table

STARTUP_COMMANDS = (
    "python -c pass",
    "aclog --help",
    "aclog --version",
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


def _probe(workload: str) -> Cell:
    def cell(r: Run) -> str:
        row = r.row("failover", PROBE, workload, "median")
        return f"median {ms(row['value'])}; {row['note']}"

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
            "SIGSTOP of the leader (0.5-6 s) → another node (or the thawed leader) acknowledges",
            _probe("sigstop-leader -> another node acks"),
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
