"""Kafka's own Java classes beside aclog in the benchmarks: the harness in ``benchmarks/java/``
(``AuthorizeBench``, ``LoadBench``), compiled with ``javac`` against ``$KAFKA_HOME/libs/*.jar``
and run as separate JVMs that print ``key<TAB>value`` lines.

``KAFKA_HOME`` names a Kafka distribution (default ``../shared/kafka`` beside the checkout);
:func:`find_harness` returns the compiled harness, or one line saying why there is none (no
distribution, no JDK, or the sources do not compile against it), which the suites print as
their only row. Classes are compiled once per distinct source and distribution, into a cache
directory under the system temporary directory.

Thread-safety: a :class:`JavaHarness` is immutable; each run is its own process. Cost: a
compile takes about 5 s once; each run pays a JVM start (about 0.5 s) plus its work.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.kafka_dist import REPO, kafka_home
from benchmarks.report import Report, Row

SOURCES = Path(__file__).with_name("java")
BENCH = "java"
ACLOG = "aclog"
JAVA_IMPL = "kafka (java)"
"""The impl column of every row the harness measures."""


class JavaRunError(Exception):
    """A harness program exited with an error; the message ends with its last stderr lines."""


@dataclass(frozen=True)
class JavaHarness:
    """The compiled harness: ``java`` and the class path holding it and Kafka's jars."""

    java: str
    classpath: str
    home: Path

    def run(self, program: str, *args: str, heap: str = "4g", timeout: float = 1800) -> dict:
        """Run ``program`` with ``args``; returns its ``key<TAB>value`` lines as a dict of
        strings. Raises :class:`JavaRunError` on a non-zero exit or a timeout."""
        command = [self.java, f"-Xmx{heap}", f"-Xms{heap}", "-cp", self.classpath, program, *args]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise JavaRunError(f"{program} did not finish within {timeout:.0f} s") from None
        if done.returncode != 0:
            tail = " | ".join(done.stderr.strip().splitlines()[-3:])
            raise JavaRunError(f"{program} exited with {done.returncode}: {tail}")
        pairs = (line.split("\t", 1) for line in done.stdout.splitlines() if "\t" in line)
        return dict(pairs)

    def describe(self) -> str:
        """The Kafka jars and the JVM the rows come from, for the run's record."""
        jars = sorted(p.name for p in (self.home / "libs").glob("kafka*.jar"))
        version = subprocess.run(
            [self.java, "-version"], capture_output=True, text=True, timeout=60, check=False
        )
        jvm = (version.stderr.strip().splitlines() or ["unknown JVM"])[0]
        return f"{self.home}: {', '.join(jars) or 'no kafka*.jar'}; {jvm}"


def _jdk_tool(name: str) -> str | None:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / name).is_file():
        return str(Path(java_home) / "bin" / name)
    return shutil.which(name)


def find_harness() -> JavaHarness | str:
    """The compiled harness, or why there is none (one line)."""
    home = kafka_home()
    if home is None:
        where = os.environ.get("KAFKA_HOME") or str(REPO.parent / "shared" / "kafka")
        return f"no Kafka distribution at {where} (set KAFKA_HOME to one with libs/*.jar)"
    javac, java = _jdk_tool("javac"), _jdk_tool("java")
    if javac is None or java is None:
        return "no JDK: javac and java (17+) are needed to run Kafka's classes"
    sources = sorted(SOURCES.glob("*.java"))
    digest = hashlib.sha256(str(home).encode())
    for source in sources:
        digest.update(source.read_bytes())
    out = Path(tempfile.gettempdir()) / f"aclog-bench-java-{digest.hexdigest()[:16]}"
    libs = f"{home / 'libs'}/*"
    if not (out / "done").exists():
        out.mkdir(parents=True, exist_ok=True)
        built = subprocess.run(
            [javac, "-cp", libs, "-d", str(out), *map(str, sources)],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        if built.returncode != 0:
            first = (built.stderr.strip().splitlines() or ["(no output)"])[0]
            return f"the harness does not compile against {home}: {first}"
        (out / "done").touch()
    return JavaHarness(java, f"{out}{os.pathsep}{libs}", home)


def pair(
    report: Report,
    workload: str,
    n: int,
    metric: str,
    values: tuple[float, float],
    unit: str,
    note: str,
    *,
    ratio: bool = True,
    bigger_is_better: bool | None = None,
) -> None:
    """aclog's row, Java's row and (if ``ratio``) their ratio, oriented so that above 1 means
    aclog is better: Java ÷ aclog for times, latencies and memory, aclog ÷ Java for rates."""
    ours, theirs = values
    report.add(Row(BENCH, ACLOG, workload, n, metric, ours, unit, note))
    report.add(Row(BENCH, JAVA_IMPL, workload, n, metric, theirs, unit, note))
    if not ratio or ours <= 0 or theirs <= 0:
        return
    better_bigger = unit.endswith("/s") if bigger_is_better is None else bigger_is_better
    value = ours / theirs if better_bigger else theirs / ours
    how = "aclog ÷ Java" if better_bigger else "Java ÷ aclog"
    report.add(
        Row(
            BENCH,
            "aclog vs java",
            workload,
            n,
            f"{metric} ratio",
            value,
            "x",
            f"{how}; > 1: aclog better",
        )
    )
