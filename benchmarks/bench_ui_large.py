"""``aclog ui`` on the cold-start log (:func:`benchmarks.bench_coldstart.make_log`: a snapshot of
1M bindings plus a tail of 250k changes, 10k to a batch; quick: 50k + 12.5k), as a user meets
it: a real ``aclog ui`` process, asked over HTTP on 127.0.0.1, beside the CLI asking the same.

Rows: the first view (from the process's start until ``/state`` has answered), each view's
p50/p95 over :data:`REQUESTS` requests (a slider step is the State of the next point of the
chart), and the peak resident memory of the ``aclog ui`` process (``VmHWM``, read before it
stops) against that of ``aclog replay`` on the same log (the kernel's accounting of the
finished child, as the start-up rows take it). Targets (issue 39): first view <= 2 s, each
view and slider step <= 300 ms at p95, memory <= 1.2x ``aclog replay``'s. The lint rows, CLI
and library, are :mod:`benchmarks.bench_lint`'s, on the same log.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

from aclog.tools.quickstart_ui import stop
from benchmarks import bench_lint
from benchmarks.bench_coldstart import make_log
from benchmarks.bench_startup import AS_ACLOG, measure
from benchmarks.report import Report, Row

REQUESTS = 8
"""Requests per view (quick: 3), fewer for a view whose requests take over :data:`BUDGET_S`."""

BUDGET_S = 60
"""A view whose requests stay slow (the last over :data:`SLOW_S`) stops after this many
seconds of requests, once it has answered two; one that answers its first request slowly and
then from a cache runs them all, so its p50 is not the mean of two."""

SLOW_S = 5

TIMEOUT_S = 300
"""The longest one request or CLI run may take: past it, the row says "timed out" with this
value (a lower bound), and the run goes on."""

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ACLOG = [sys.executable, "-c", AS_ACLOG]
TIMEOUT_COMMAND = shutil.which("timeout") or "/usr/bin/timeout"
"""coreutils' timeout(1), by its path: the launcher spawns a path, not a name."""


def _get(url: str) -> float:
    """Seconds until ``url`` has answered 200 with its whole body (:data:`TIMEOUT_S` when
    it has not answered by then)."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            response.read()
            if response.status != 200:
                raise AssertionError(f"{url}: {response.status}")
    except TimeoutError:
        return TIMEOUT_S
    return time.perf_counter() - start


def _json(url: str) -> object:
    import json

    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
        return json.loads(response.read())


def _start(directory: Path) -> tuple[subprocess.Popen[str], str, float]:
    """A running ``aclog ui``, its URL and the seconds from its start until ``/state``
    answered."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [*ACLOG, "ui", "--data-dir", str(directory), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "http://" not in line:
        process.kill()
        raise AssertionError(f"aclog ui did not start: {line!r}")
    url = line[line.index("http://") :].strip().rstrip("/")
    _get(f"{url}/state")
    return process, url, time.perf_counter() - start


def _stop(process: subprocess.Popen[str]) -> float:
    """Stops the process (by its pid); its peak resident memory in MB."""
    status = Path(f"/proc/{process.pid}/status").read_text()
    peak_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM"))
    stop(process)
    assert process.stdout is not None
    process.stdout.close()
    return peak_kb / 1024


def _views(url: str, count: int) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Each view's request URLs, ``count`` of each (slider steps walk the chart's points),
    and what they ask of (principal, topic, the diff's offsets) for the CLI to ask too."""
    points = _json(f"{url}/api/timeline")["points"]  # type: ignore[index]
    offsets = [p["offset"] for p in points]
    middle = len(offsets) // 2
    steps = offsets[middle : middle + count] or offsets[-count:]
    first = _json(f"{url}/api/state")["acls"][0]  # type: ignore[index]
    who, topic = quote(first["principal"]), quote(first["resource_name"])
    early, late = offsets[len(offsets) // 4], offsets[-1]
    same = {
        "state (end)": f"{url}/state",
        "state (page 2, end)": f"{url}/state?page=2",
        "state (filtered by principal)": f"{url}/state?principal={who}",
        "changes (end)": f"{url}/changes",
        "timeline (page)": f"{url}/timeline",
        "timeline (data)": f"{url}/api/timeline",
        "explain (end)": f"{url}/explain?principal={who}&host=10.0.0.1&operation=READ"
        f"&resource_type=TOPIC&resource_name={topic}",
        "who-can (end)": f"{url}/who-can?operation=READ&resource_name={topic}",
        "diff (two moments)": f"{url}/diff?from={early}&to={late}",
    }
    views = {name: [target] * count for name, target in same.items()}
    views["slider step (state at the next point)"] = [f"{url}/state?at_offset={o}" for o in steps]
    views["acl origin (creating change)"] = [f"{url}/changes/acl/{first['id']}"] * count
    views["lint (end)"] = [f"{url}/lint"] * count  # last: a lint past the timeout runs on
    asked_of = {"principal": first["principal"], "topic": first["resource_name"],
                "from": str(early), "to": str(late)}  # fmt: skip
    return views, asked_of


def _timed(targets: list[str]) -> list[float]:
    """Each target's seconds, in order, until :data:`BUDGET_S` is spent on slow ones."""
    seconds: list[float] = []
    for target in targets:
        if seconds and seconds[-1] >= TIMEOUT_S:
            break  # asked again, the server would start a second one beside the first
        if len(seconds) >= 2 and seconds[-1] > SLOW_S and sum(seconds) > BUDGET_S:
            break
        seconds.append(_get(target))
    return seconds


def _latencies(report: Report, view: str, size: int, seconds: list[float]) -> None:
    ordered = sorted(seconds)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    note = f"{len(ordered)} requests over HTTP; target p95 <= 300 ms"
    if TIMEOUT_S in ordered:
        note += f"; {ordered.count(TIMEOUT_S)} timed out (counted as {TIMEOUT_S} s)"
    for metric, value in (("p50", statistics.median(ordered)), ("p95", p95)):
        report.add(Row("ui-1m", "aclog ui", view, size, metric, value * 1000, "ms", note))


def _cli_rows(report: Report, directory: Path, size: int, asked_of: dict[str, str]) -> float:
    """The CLI answering the same questions (one run each) of ``asked_of``'s principal,
    topic and offsets; ``aclog replay``'s peak MB."""
    d = ["--data-dir", str(directory)]
    who, topic = asked_of["principal"], asked_of["topic"]
    asked: dict[str, list[str]] = {
        "replay (state at the end)": ["replay", *d],
        "acls list --principal": ["acls", "list", *d, "--principal", who],
        "explain": [
            "explain",
            *d,
            "--principal",
            who,
            "--host",
            "10.0.0.1",
            "--operation",
            "Read",
            "--topic",
            topic,
        ],
        "who-can": ["who-can", *d, "--operation", "Read", "--topic", topic],
        "diff": ["diff", *d, "--from", asked_of["from"], "--to", asked_of["to"], "--json"],
    }  # fmt: skip  (lint: benchmarks.bench_lint, with its own bound)
    replay_mb = 0.0
    for name, argv in asked.items():
        try:  # timeout(1) ends the command itself, not only the launcher around it
            command = [TIMEOUT_COMMAND, str(TIMEOUT_S), *ACLOG, *argv]
            seconds, mb, _ = measure(command, ENV, timeout=TIMEOUT_S + 60)
        except RuntimeError as error:
            if "exited 124" not in str(error):  # timeout(1)'s code; anything else is a failure
                raise
            note = f"timed out: over {TIMEOUT_S} s"
            report.add(Row("ui-1m", "aclog CLI", name, size, "wall", TIMEOUT_S * 1000, "ms", note))
            continue
        report.add(Row("ui-1m", "aclog CLI", name, size, "wall", seconds * 1000, "ms", "one run"))
        report.add(Row("ui-1m", "aclog CLI", name, size, "peak RSS", mb, "MB", "one run"))
        replay_mb = replay_mb or mb
    return replay_mb


def run(report: Report, quick: bool) -> None:
    """The 1M-binding log through ``aclog ui`` and through the CLI."""
    snapshot_acls, tail = (50_000, 12_500) if quick else (1_000_000, 250_000)
    count = 3 if quick else REQUESTS
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        make_log(directory, snapshot_acls, tail)
        size = snapshot_acls + tail
        process, url, first = _start(directory)
        try:
            note = "from the process's start; target <= 2 s"
            report.add(Row("ui-1m", "aclog ui", "first view (/state)", size, "latency",
                           first * 1000, "ms", note))  # fmt: skip
            views, asked_of = _views(url, count)
            for view, targets in views.items():
                _latencies(report, view, size, _timed(targets))
        finally:
            ui_mb = _stop(process)
        report.add(Row("ui-1m", "aclog ui", "whole run", size, "peak RSS", ui_mb, "MB", "VmHWM"))
        replay_mb = _cli_rows(report, directory, size, asked_of)
        bench_lint.run_on(report, directory, size, [TIMEOUT_COMMAND, *ACLOG], ENV)
        if replay_mb:  # 0: replay timed out
            ratio = ui_mb / replay_mb
            report.add(Row("ui-1m", "aclog ui / aclog replay", "peak RSS", size, "ratio", ratio,
                           "x", f"{ratio:.2f}x; target <= 1.2x"))  # fmt: skip
