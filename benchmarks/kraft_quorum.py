"""A real three-node KRaft quorum from the Kafka distribution at ``$KAFKA_HOME``, for the Kafka
twin of the failover probe (:mod:`benchmarks.kafka_failover`).

Three combined nodes (``process.roles=broker,controller``, ids 1..3), each on its own free
127.0.0.1 ports and log directory under one work directory, all three listed in
``controller.quorum.voters`` and formatted with one cluster id by ``kafka-storage.sh format``:
the node ``bin/start-test-broker.sh`` makes (PLAINTEXT acting as ``User:ANONYMOUS``, a super
user; SASL_PLAINTEXT with SCRAM and the super user ``admin``; ``StandardAuthorizer``), times
three, with Kafka's default quorum timeouts (fetch 2 s, election 1 s). Each process is started,
frozen, thawed and killed by its pid; leaving the ``with`` block kills every one of them, even
after a failure. The active controller is the node whose controller listener answers
DescribeQuorum without an error (only the raft leader does).

Not thread-safe: one thread drives a quorum (the load only reads :attr:`KRaftQuorum.ports`).
Cost: three JVMs (a start takes 5-30 s on a 2-core machine); :meth:`leader` one round trip per
node.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from benchmarks.kafka_dist import NODE_PROPERTIES, REPO, free_ports, kafka_home
from benchmarks.servers import exchange

NODES = (1, 2, 3)
LABEL = "Kafka (KRaft, 3 controllers)"
"""How benchmark rows name this quorum (their ``impl``)."""
START_TIMEOUT = 180.0


def why_missing() -> str | None:
    """Why no quorum can run here (one line), or ``None`` when it can."""
    home = kafka_home()
    if home is None:
        where = os.environ.get("KAFKA_HOME") or str(REPO.parent / "shared" / "kafka")
        return f"no Kafka distribution at {where} (set KAFKA_HOME to one with libs/*.jar)"
    if not all((home / "bin" / s).is_file() for s in ("kafka-storage.sh", "kafka-server-start.sh")):
        return f"{home} has no bin/kafka-storage.sh and bin/kafka-server-start.sh"
    java_home = os.environ.get("JAVA_HOME")
    in_home = bool(java_home) and (Path(str(java_home)) / "bin" / "java").is_file()
    if not in_home and shutil.which("java") is None:  # kafka-run-class.sh looks in both
        return "no Java: java (17+) is needed to run a Kafka broker (set JAVA_HOME or PATH)"
    return None


class KRaftQuorum:
    """Three combined KRaft nodes under ``workdir``; ``ports[node]`` is its PLAINTEXT port."""

    def __init__(self, workdir: Path) -> None:
        home, problem = kafka_home(), why_missing()
        if home is None or problem is not None:
            raise RuntimeError(problem)
        self.home, self.workdir = home, workdir
        free = free_ports(3 * len(NODES))
        self.ports = dict(zip(NODES, free[0::3], strict=True))
        self.controllers = dict(zip(NODES, free[2::3], strict=True))
        self._sasl = dict(zip(NODES, free[1::3], strict=True))
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.started: list[int] = []
        """The pid of every process this quorum started, in order (a restart adds one)."""
        self.stopped: set[int] = set()
        self._starts: dict[int, int] = {}

    def __enter__(self) -> KRaftQuorum:
        try:
            self._format()
            for node in NODES:
                self.start(node, wait=False)
            for node in NODES:
                self._wait_started(node)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every process still running (a frozen one is thawed first) and reap it."""
        for node, process in self.processes.items():  # every one killed before any wait
            if process.poll() is None:
                if node in self.stopped:
                    process.send_signal(signal.SIGCONT)
                process.kill()
        for process in self.processes.values():
            process.wait(30)
        self.stopped.clear()

    def _dir(self, node: int) -> Path:
        return self.workdir / f"n{node}"

    def _format(self) -> None:
        voters = ",".join(f"{n}@127.0.0.1:{self.controllers[n]}" for n in NODES)
        cluster_id = self._tool("kafka-storage.sh", "random-uuid").strip().splitlines()[-1]
        for node in NODES:
            directory = self._dir(node)
            (directory / "logs").mkdir(parents=True)
            properties = directory / "server.properties"
            properties.write_text(
                NODE_PROPERTIES.format(
                    node=node, voters=voters, plain=self.ports[node], sasl=self._sasl[node],
                    controller=self.controllers[node], data=directory / "data",
                )
            )  # fmt: skip
            scram = "SCRAM-SHA-256=[name=admin,password=admin-secret]"
            self._tool("kafka-storage.sh", "format", "-t", cluster_id, "-c", str(properties),
                       "--add-scram", scram)  # fmt: skip

    def _env(self, logs: Path) -> dict[str, str]:
        env = {**os.environ, "LOG_DIR": str(logs)}
        env.setdefault("KAFKA_HEAP_OPTS", "-Xms256m -Xmx512m")
        return env

    def _tool(self, name: str, *args: str) -> str:
        command = [str(self.home / "bin" / name), *args]
        env = self._env(self.workdir / "tool-logs")
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=180, env=env, check=False
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{name} {args[0]} did not finish within 180 s") from None
        if done.returncode != 0:
            raise RuntimeError(f"{name} {args[0]} failed: {done.stderr.strip()[-500:]}")
        return done.stdout

    def start(self, node: int, *, wait: bool = True) -> None:
        """Start ``node`` (again, after a kill) and, with ``wait``, until it says it started."""
        directory = self._dir(node)
        with (directory / "server.out").open("ab") as sink:
            process = subprocess.Popen(
                [str(self.home / "bin" / "kafka-server-start.sh"),
                 str(directory / "server.properties")],
                stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=self._env(directory / "logs"), start_new_session=True,
            )  # fmt: skip
        self.processes[node] = process  # kafka-run-class.sh execs java: this pid is the JVM's
        self.started.append(process.pid)
        self._starts[node] = self._starts.get(node, 0) + 1
        if wait:
            self._wait_started(node)

    def _wait_started(self, node: int) -> None:
        """Until ``node`` 's latest start printed its line (``server.out`` is appended to)."""
        out, process = self._dir(node) / "server.out", self.processes[node]
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            text = out.read_text(errors="replace")
            if text.count("Kafka Server started") >= self._starts[node]:
                return
            if process.poll() is not None:
                raise RuntimeError(f"Kafka node {node} exited: {text.strip()[-800:]}")
            time.sleep(0.2)
        raise RuntimeError(f"Kafka node {node} did not start within {START_TIMEOUT:.0f} s ({out})")

    def kill(self, node: int) -> None:
        """SIGKILL ``node`` and reap it."""
        process = self.processes[node]
        process.kill()
        process.wait(30)
        self.stopped.discard(node)

    def pause(self, node: int) -> None:
        self.processes[node].send_signal(signal.SIGSTOP)
        self.stopped.add(node)

    def resume(self, node: int) -> None:
        self.processes[node].send_signal(signal.SIGCONT)
        self.stopped.discard(node)

    def live(self) -> list[int]:
        """The nodes running and not frozen."""
        return [n for n, p in self.processes.items() if p.poll() is None and n not in self.stopped]

    def leader(self) -> int | None:
        """The active controller: the node whose controller listener answers DescribeQuorum
        without an error and names itself leader (``None`` during an election)."""
        for node in self.live():
            try:
                answer = exchange(self.controllers[node], quorum_request(), _quorum_response(),
                                  timeout=0.5)  # fmt: skip
            except OSError:
                continue
            partition = answer.topics[0].partitions[0] if answer.topics else None
            leads = partition is not None and (partition.error_code, partition.leader_id) == (
                0,
                node,
            )
            if answer.error_code == 0 and leads:
                return node
        return None


def quorum_request() -> Any:
    """DescribeQuorum (v1) of the metadata log, ``__cluster_metadata-0``."""
    from kafka.protocol.admin import DescribeQuorumRequest

    topic = DescribeQuorumRequest.TopicData
    partition = topic.PartitionData(partition_index=0)
    return DescribeQuorumRequest(
        version=1, topics=[topic(topic_name="__cluster_metadata", partitions=[partition])]
    )


def _quorum_response() -> Any:
    from kafka.protocol.admin import DescribeQuorumResponse

    return DescribeQuorumResponse
