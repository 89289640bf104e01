"""Every ``aclog`` command, in the order ``aclog --help`` lists them: the module that registers
each and the line of help the listing shows, so the listing (and completing a command name)
imports no command (a group's module holds its own table the same way: :mod:`aclog.tools.acls`,
:mod:`aclog.tools.users`, :mod:`aclog.tools.snapshots`, :mod:`aclog.tools.pipeline.app`). A new
command is registered in its module as before and added here;
``tests/tools/test_startup_imports.py`` fails when this table and the commands disagree.

Data only; thread-safe. Cost: nothing.
"""

from __future__ import annotations

from aclog.tools.lazy import Lazy

COMMANDS = {
    "apply": Lazy(
        "aclog.tools.apply_command",
        "Apply FILE: add and remove ACLs and credentials inside what it owns.",
    ),
    "dump": Lazy(
        "aclog.tools.dump", "Print every record with its offset, epoch, time, type and author."
    ),
    "replay": Lazy(
        "aclog.tools.history",
        "Print the ACLs and SCRAM users as of a point (default: the end of the log).",
    ),
    "verify": Lazy(
        "aclog.tools.history",
        "Check every batch and snapshot, and that snapshot + tail equals a full replay.",
    ),
    "diff": Lazy(
        "aclog.tools.diff_command",
        "ACLs and SCRAM credentials added, removed and changed between two points, with who "
        "changed them and when. --from must not come after --to.",
    ),
    "demo": Lazy(
        "aclog.tools.demo",
        "Write a short example history to an empty data directory, then print it.",
    ),
    "explain": Lazy(
        "aclog.tools.explain",
        "Decide one request against the committed ACLs and say why (exit 0 either way).",
    ),
    "export": Lazy(
        "aclog.tools.export_command",
        "Write the ACLs and SCRAM users as a desired-state file (owns: all; no passwords).",
    ),
    "follow": Lazy(
        "aclog.tools.follow_command",
        "Poll a cluster's ACLs and SCRAM users and record every observed change in DIR.",
    ),
    "import": Lazy(
        "aclog.tools.kraft_import",
        "Import the ACLs and SCRAM credentials of a KRaft metadata log into a new aclog log, "
        "keeping record order, epochs and timestamps (read-only on the KRaft side).",
    ),
    "who-can": Lazy(
        "aclog.tools.questions",
        "Every principal allowed an operation on a resource (and those a DENY takes out), by "
        'host, with the deciding ACL; "any principal" is User:*.',
    ),
    "reach": Lazy(
        "aclog.tools.questions",
        "What a principal can reach: every resource pattern (or inventory resource) its ACLs "
        "grant it something on, with the operations, the deciding ACLs and the DENY exceptions.",
    ),
    "lint": Lazy(
        "aclog.tools.lint_command",
        "Hygiene findings: redundant ACLs, ALLOWs a DENY overrides, risky grants, weak or stale "
        "SCRAM credentials; each with a kind, a severity and the ACLs or user concerned.",
    ),
    "plan": Lazy(
        "aclog.tools.plan_command",
        "Show what apply would add and remove inside what FILE owns (reads only).",
    ),
    "quickstart": Lazy(
        "aclog.tools.quickstart",
        "Start a listener, drive it with kafka-python, show the log and explain decisions.",
    ),
    "serve": Lazy(
        "aclog.tools.serve",
        "Serve the Kafka protocol: admin clients manage ACLs and SCRAM users and log in.",
    ),
    "timeline": Lazy(
        "aclog.tools.timeline",
        "When PRINCIPAL gained or lost OPERATION on the resource: the answer at --from, then "
        "each batch up to --to that flipped it, with its offset, time, author and ACL changes.",
    ),
    "ui": Lazy(
        "aclog.tools.ui_command",
        "Serve a read-only web view of the log: the state at any moment, changes, explain, "
        "who-can, reach, diff, lint and a timeline.",
    ),
    "acls": Lazy(
        "aclog.tools.acls",
        "Add, remove and list ACLs (options as in kafka-acls), in a data directory "
        "(--data-dir) or on a Kafka cluster (--bootstrap-server; Kafka has no ACL ids, so JSON "
        'shows "id": null).',
    ),
    "snapshot": Lazy("aclog.tools.snapshots", "Create, list and verify snapshots."),
    "pipeline": Lazy(
        "aclog.tools.pipeline",
        "Spark jobs over a data directory: records, state, history, access, orphans, who-can, "
        "reach, timeline, diff, lint.",
    ),
    "users": Lazy(
        "aclog.tools.users",
        "Manage SCRAM users (salts and keys are never shown) in a data directory (--data-dir) "
        "or on a Kafka cluster (--bootstrap-server).",
    ),
}
"""The ``aclog`` commands (see the module docstring)."""
