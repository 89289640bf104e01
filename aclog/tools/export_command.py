"""``aclog export --format yaml``: the state of a data directory (now, or ``--at-time``) or a
cluster as a desired-state file, so a team can start managing what it has as code.

Thin: parse, read the state, call :func:`aclog.desired.export_yaml`; ``--json`` prints the same
document as JSON. Reads only (``--out`` aside); never a password, salt or key.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import EXIT_USAGE, app, fail, fail_os, print_json
from aclog.tools.params import AtTime, BootstrapServer, CommandConfig, JsonFlag, OptionalDataDir
from aclog.tools.visible import visible


@app.command("export")
def export_command(
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    output_format: Annotated[
        str, typer.Option("--format", help="yaml: a desired-state file (docs/as-code.md).")
    ] = "yaml",
    at_time: AtTime = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write to FILE, not stdout.", readable=False)
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Write the ACLs and SCRAM users as a desired-state file (owns: all; no passwords)."""
    from aclog.desired import export_dict, export_yaml  # noqa: PLC0415 - on a run, not --help
    from aclog.tools.as_code import read_target_state, target_name  # noqa: PLC0415
    from aclog.tools.remote import choose_target, data_dir_only  # noqa: PLC0415

    if output_format.strip().lower() != "yaml":
        fail(f"unknown --format {output_format!r}; use yaml", EXIT_USAGE)
    target = choose_target(data_dir, bootstrap_server, command_config)
    if at_time is not None:
        data_dir_only(target, "--at-time", "a cluster shows only its present state")
    current = read_target_state(target, "aclog export", at_time)
    if json_output:
        print_json(export_dict(current))
        return
    point = f" as of {at_time}" if at_time else ""
    text = export_yaml(current, visible(f"exported from {target_name(target)}{point}"))
    if out is None:
        # Not print_line: its escapes would change what the YAML says ('aclog export >
        # acls.yaml' renamed every ACL on a name with a tab or a bidi override). The export
        # escapes every character a terminal would not draw, in YAML's own syntax.
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as error:
        fail_os("write", error)
