"""Benchmark results: one row per measurement, printed as markdown and saved as JSON lines.

Each run starts with a header naming the machine, Python, package versions and git commit, so
numbers are never quoted without their conditions.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks.kafka_dist import kafka_distribution

PACKAGES = ("fastavro", "kafka-python", "crc32c", "sortedcontainers")


@dataclass(frozen=True)
class Row:
    """One measured value: ``impl`` did ``workload`` at ``size`` and got ``value`` ``unit``."""

    benchmark: str
    impl: str
    workload: str
    size: int
    metric: str
    value: float
    unit: str
    note: str = ""


def _cpu_clocks() -> tuple[float, float, float]:
    """(wall seconds, CPU seconds the whole machine has used, CPU seconds of this process and
    its exited children), from /proc/stat and getrusage."""
    own = sum(
        usage.ru_utime + usage.ru_stime
        for usage in (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
    )
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
        machine = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        machine = own
    return time.monotonic(), machine, own


@dataclass
class Report:
    """The rows of one run plus its environment header."""

    rows: list[Row] = field(default_factory=list)
    # The machine's 1-minute load when the run began and as each suite began: a run is quiet
    # only if every sample is under one (other work on the cores moves figures by tens of %).
    load_start: tuple[float, float, float] = field(default_factory=os.getloadavg)
    load_during: list[float] = field(default_factory=list)
    # CPU seconds the whole machine and this process tree had used when the run began: what the
    # machine spent beyond this run's own processes is the work that shared its cores.
    cpu_start: tuple[float, float, float] = field(default_factory=_cpu_clocks)

    def sample_load(self) -> None:
        """Note the machine's 1-minute load now (the runner calls it as each suite starts)."""
        self.load_during.append(round(os.getloadavg()[0], 2))

    def add(self, row: Row) -> None:
        self.rows.append(row)
        print(
            f"  {row.benchmark:<8} {row.impl:<22} {row.workload:<26} {row.size:>8} "
            f"{row.metric:<12} {_fmt(row.value):>12} {row.unit} {row.note}",
            flush=True,
        )

    def environment(self) -> dict[str, Any]:
        """The run's conditions: :func:`environment` plus the load at its start and now."""
        load = {"start": self.load_start, "during": self.load_during, "end": os.getloadavg()}
        return {**environment(), "load": load, "other_work": self.other_work()}

    def other_work(self) -> float:
        """The share of the machine's cores that processes outside this run used during it
        (0: a quiet machine; children count once they have exited, as every suite's do)."""
        wall, machine, own = (
            now - then for now, then in zip(_cpu_clocks(), self.cpu_start, strict=True)
        )
        return round(max(0.0, machine - own) / (wall * (os.cpu_count() or 1)), 3)

    def markdown(self) -> str:
        lines = [_header_markdown(self.environment()), ""]
        lines.append("| benchmark | impl | workload | size | metric | value | unit | note |")
        lines.append("|---|---|---|---:|---|---:|---|---|")
        for r in self.rows:
            lines.append(
                f"| {r.benchmark} | {r.impl} | {r.workload} | {r.size} | {r.metric} | "
                f"{_fmt(r.value)} | {r.unit} | {r.note} |"
            )
        return "\n".join(lines) + "\n"

    def save(self, directory: Path, name: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"{name}.md").write_text(self.markdown())
        with open(directory / f"{name}.jsonl", "w") as out:
            out.write(json.dumps({"environment": self.environment()}) + "\n")
            for row in self.rows:
                out.write(json.dumps(asdict(row)) + "\n")


def _fmt(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def environment() -> dict[str, Any]:
    """Machine, interpreter, package versions and git commit of this run."""
    return {
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "packages": {p: _version(p) for p in PACKAGES},
        "commit": _git_commit(),
        "kafka": kafka_distribution(),
    }


def peak_load(load: dict[str, Any]) -> float:
    """The highest 1-minute load sampled in a run: at its start, as each suite began, at its end."""
    return max([load["start"][0], load["end"][0], *load.get("during", [])])


def _header_markdown(env: dict[str, Any]) -> str:
    packages = ", ".join(f"{k} {v}" for k, v in env["packages"].items())
    load = env.get("load")
    loads = (
        f"; load {load['start'][0]:.2f} at start, {load['end'][0]:.2f} at end, "
        f"at most {peak_load(load):.2f} (1-min average)"
        if load
        else ""
    )
    other = env.get("other_work")
    others = f"; other work {other:.1%} of the cores" if other is not None else ""
    return (
        f"Machine: {env['cpu']} ({env['cores']} cores, {env['machine']}); "
        f"Python {env['python']}; {packages}; commit {env['commit']}; "
        f"Kafka {env.get('kafka', 'none')}{loads}{others}"
    )


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "missing"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_commit() -> str:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "aclog"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return done.stdout.strip() + ("+dirty" if dirty.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
