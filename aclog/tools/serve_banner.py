"""What ``aclog serve`` prints once it listens: where to connect, with a line of settings
for each kind of client, and what a first user must know (who logs in as whom, who may
administer). With ``--json``, one line of :meth:`~aclog.wire.ListenerInfo.to_dict`.

Not thread-safe (prints to the process's stdout). Cost: a few lines of output.
"""

from __future__ import annotations

import sys

from aclog.tools.console import out, print_json_line
from aclog.wire import ListenerInfo, ServerConfig


def render_ready(info: ListenerInfo, config: ServerConfig, json_output: bool) -> None:
    """Print that the listener is ready, for a script (``json_output``) or a person."""
    if json_output:
        print_json_line(info.to_dict())
        sys.stdout.flush()
        return
    protocol = info.security_protocol.value
    _say(
        f"aclog serve: listening on {info.bound} ({protocol}), advertised as {info.advertised}, "
        f"node {info.node_id}, cluster {info.cluster_id}, data dir {config.data_dir}"
    )
    _say("Connect with:")
    for line in connect_lines(str(info.advertised), config, info.user_mechanisms):
        _say(f"  {line}")
    for line in _notes(info, config):
        _say(line)
    _say("Stop with Ctrl-C (or SIGTERM).")
    sys.stdout.flush()


def connect_lines(target: str, config: ServerConfig, held: tuple[str, ...] = ()) -> list[str]:
    """A client setting per kind of client (kafka-python, confluent-kafka, the command line)
    that reaches ``target`` with ``config``'s security protocol, naming the SCRAM mechanism the
    stored users hold most (``held``; SCRAM-SHA-256 while there are none)."""
    protocol = config.security_protocol.value
    mechanism = held[0] if held else "SCRAM-SHA-256"
    kp = [f'bootstrap_servers="{target}"']
    ck = [f'"bootstrap.servers": "{target}"']
    cli = [f"-b {target}"]
    if config.security_protocol.uses_sasl:
        kp += [
            f'security_protocol="{protocol}"',
            f'sasl_mechanism="{mechanism}"',
            'sasl_plain_username="USER"',
            'sasl_plain_password="PASSWORD"',
        ]
        ck += [
            f'"security.protocol": "{protocol}"',
            f'"sasl.mechanism": "{mechanism}"',
            '"sasl.username": "USER"',
            '"sasl.password": "PASSWORD"',
        ]
        cli += [f"-S {protocol}", f"-M {mechanism}", "-U USER", "-P PASSWORD"]
    if config.security_protocol.uses_tls:
        kp.append(f'ssl_cafile="{config.tls_cert}"')
        ck.append(f'"ssl.ca.location": "{config.tls_cert}"')
    return [
        f"kafka-python     KafkaAdminClient({', '.join(kp)})",
        f"confluent-kafka  AdminClient({{{', '.join(ck)}}})",
        f"command line     python -m kafka.admin {' '.join(cli)} acls describe",
    ]


def _notes(info: ListenerInfo, config: ServerConfig) -> list[str]:
    """Who a client is here and who may administer."""
    if config.security_protocol.uses_sasl and info.user_mechanisms:
        notes = [
            "SCRAM users log in as User:<name> with a mechanism they hold (here: "
            f"{', '.join(info.user_mechanisms)})."
        ]
    elif config.security_protocol.uses_sasl:
        notes = [
            "SCRAM users log in as User:<name>. Create the first one before starting: "
            "aclog users set USER --mechanism SCRAM-SHA-256 --password-stdin --data-dir "
            f"{config.data_dir}"
        ]
    else:
        notes = [
            "Every client is User:ANONYMOUS here; admin requests need --super-users "
            "User:ANONYMOUS or ACLs for it."
        ]
    if not config.super_users:
        notes.append("No --super-users: admin requests need ALTER/DESCRIBE ACLs on the cluster.")
    if config.controller:
        notes.append(
            f"Controller: shared data directory; node {info.node_id} leads when elected, else "
            f"stands by (heartbeat {config.heartbeat_ms} ms, election timeout "
            f"{config.election_timeout_ms} ms). Clients are sent to the active node."
        )
    return notes


def _say(line: str) -> None:
    out.print(line, markup=False)
