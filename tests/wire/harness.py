"""Run ``aclog serve`` as a subprocess on a free 127.0.0.1 port, and talk to it raw.

:class:`ServerProcess` starts the CLI with ``--listen 127.0.0.1:0 --json``, waits for the ready
line on stdout (the port the OS chose), and stops it with SIGTERM (then SIGKILL) by pid.
stdout and stderr go to files, so a chatty server can never block on a full pipe.

:class:`RawClient` speaks the protocol with kafka-python's message classes over a plain or TLS
socket, for checks the admin clients hide (error codes, closed connections, bad frames).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import ssl
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import scramp

from aclog.controller import upsertion_for_password
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller
from aclog.records import ScramMechanism
from benchmarks.servers import settle

LAUNCHER = "import aclog.tools.serve; from aclog.tools.main import main; main()"
"""Works whether or not ``aclog.tools.main`` registers ``serve`` itself."""

REPO = Path(__file__).resolve().parents[2]


class ServerProcess:
    """One ``aclog serve`` subprocess."""

    def __init__(self, workdir: Path, *args: str, name: str = "server") -> None:
        self.workdir = workdir
        self.data_dir = workdir / "data"
        self.args = args
        self.name = name
        self.stdout_path = workdir / f"{name}.out"
        self.stderr_path = workdir / f"{name}.err"
        self.process: subprocess.Popen[bytes] | None = None
        self.info: dict[str, Any] = {}

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def port(self) -> int:
        return int(str(self.info["listening"]).rsplit(":", 1)[1])

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def seed_user(
        self, user: str, password: str, mechanism: ScramMechanism = ScramMechanism.SCRAM_SHA_256
    ) -> None:
        """Create a SCRAM credential directly on the data directory (before ``start``)."""
        with Controller.open(self.data_dir) as controller:
            upsertion = upsertion_for_password(user, mechanism, password, 4096)
            results = controller.alter_scram([upsertion], [], Caller(api="test seed"))
        assert all(r.error.is_success for r in results), results

    def start(self, timeout: float = 30.0) -> ServerProcess:
        command = [
            sys.executable,
            "-c",
            LAUNCHER,
            "serve",
            "--data-dir",
            str(self.data_dir),
            "--listen",
            "127.0.0.1:0",
            "--json",
            *self.args,
        ]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=self.workdir, env=env
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.stdout_path.read_text()
            if text.strip():
                self.info = json.loads(text.splitlines()[0])
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not start:\n{self.stderr()}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def logged(self, text: str, timeout: float = 5.0) -> bool:
        """Whether ``text`` appears in the server's log within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while text not in self.stderr():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def rss_bytes(self) -> int:
        """Resident set size of the server process, from /proc."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until the server is idle (it has done the work its clients queued); whether it
        was within ``timeout`` seconds."""
        return settle(self.pid, timeout)

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM, wait, then SIGKILL; returns the exit code."""
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        return process.returncode


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed EC certificate for IP 127.0.0.1 made with the openssl CLI."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


class RawClient:
    """A blocking Kafka-protocol client on one socket."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        cafile: Path | None = None,
        timeout: float = 10.0,
        socket_buffers: int | None = None,
    ) -> None:
        """``socket_buffers`` sets SO_RCVBUF and SO_SNDBUF before connecting (small ones make a
        client that does not read fill both directions sooner)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if socket_buffers is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, socket_buffers)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, socket_buffers)
        sock.settimeout(timeout)
        try:
            sock.connect((host, port))
        except OSError:
            sock.close()
            raise
        if cafile is not None:
            context = ssl.create_default_context(cafile=str(cafile))
            sock = context.wrap_socket(sock, server_hostname=host)
        self.sock: socket.socket = sock
        self.correlation_id = 0

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv_frame(self) -> bytes | None:
        """One response frame's payload, or ``None`` when the server closed the connection."""
        header = self._recv_exactly(4)
        if header is None:
            return None
        (size,) = struct.unpack(">i", header)
        return self._recv_exactly(size)

    def _recv_exactly(self, size: int) -> bytes | None:
        chunks = bytearray()
        while len(chunks) < size:
            try:
                chunk = self.sock.recv(size - len(chunks))
            except (ConnectionResetError, ssl.SSLError):
                return None
            if not chunk:
                return None
            chunks += chunk
        return bytes(chunks)

    def is_closed_by_server(self) -> bool:
        """True when the server closes the connection without sending anything."""
        return self.recv_frame() is None

    def frame(self, request: Any) -> bytes:
        self.correlation_id += 1
        request.with_header(correlation_id=self.correlation_id, client_id="raw-test")
        return bytes(request.encode(header=True, framed=True))

    def send(self, request: Any) -> None:
        self.send_raw(self.frame(request))

    def request(self, request: Any, response_class: Any) -> Any:
        """Send ``request`` and decode the response at the same version (``None`` if closed)."""
        self.send(request)
        payload = self.recv_frame()
        if payload is None:
            return None
        response = response_class.decode(payload, version=request.API_VERSION, header=True)
        assert response.header.correlation_id == self.correlation_id
        return response

    def login(self, user: str, password: str, mechanism: str = "SCRAM-SHA-256") -> Any:
        """A v1 SaslHandshake and SCRAM exchange; returns the last SaslAuthenticate response
        (``None`` if the server closed the connection)."""
        from kafka.protocol.sasl import (
            SaslAuthenticateRequest,
            SaslAuthenticateResponse,
            SaslHandshakeRequest,
            SaslHandshakeResponse,
        )

        handshake = self.request(
            SaslHandshakeRequest(version=1, mechanism=mechanism), SaslHandshakeResponse
        )
        assert handshake.error_code == 0, handshake
        client = scramp.ScramClient([mechanism], user, password)
        first = self.request(
            SaslAuthenticateRequest(version=2, auth_bytes=client.get_client_first().encode()),
            SaslAuthenticateResponse,
        )
        if first is None or first.error_code != 0:
            return first
        client.set_server_first(first.auth_bytes.decode())
        final = self.request(
            SaslAuthenticateRequest(version=2, auth_bytes=client.get_client_final().encode()),
            SaslAuthenticateResponse,
        )
        if final is not None and final.error_code == 0:
            client.set_server_final(final.auth_bytes.decode())
        return final
