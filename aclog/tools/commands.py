"""Every ``aclog`` command, in the order ``aclog --help`` lists them: the module that registers
each and the line of help the listing shows, so the listing (and completing a command name)
imports no command. A new command is registered in its module as before and added here;
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

ACLS_COMMANDS = {
    "add": Lazy(
        "aclog.tools.acls_add",
        "Add ACLs. Adding an ACL that already exists succeeds and writes nothing.",
    ),
    "list": Lazy(
        "aclog.tools.acls_list",
        "List ACLs; with --resource-pattern-type match, every ACL that applies to the resource.",
    ),
    "remove": Lazy(
        "aclog.tools.acls_remove",
        "Remove the ACLs that match; without principals, every ACL on the named resources.",
    ),
}
"""The ``aclog acls`` commands."""

USERS_COMMANDS = {
    "set": Lazy(
        "aclog.tools.users_set",
        "Create or replace USER's credential for one mechanism (a missing data directory is "
        "created).",
    ),
    "delete": Lazy("aclog.tools.users_delete", "Delete USER's credential for one mechanism."),
    "list": Lazy(
        "aclog.tools.users_list",
        "List users with their mechanisms and iteration counts (reads without locking).",
    ),
}
"""The ``aclog users`` commands."""

SNAPSHOT_COMMANDS = {
    "create": Lazy(
        "aclog.tools.snapshot_command",
        "Write a snapshot of the committed state now (takes the writer lock).",
    ),
    "list": Lazy(
        "aclog.tools.snapshot_command",
        "List snapshots, oldest first, with whether each one verifies; exit 1 if any is corrupt.",
    ),
    "verify": Lazy(
        "aclog.tools.snapshot_command", "Verify every snapshot; exit 1 if any is corrupt."
    ),
}
"""The ``aclog snapshot`` commands."""

_PIPELINE = "aclog.tools.pipeline."
PIPELINE_COMMANDS = {
    "records": Lazy(
        _PIPELINE + "records",
        "Every record with offset, epoch, time, author, type and fields (no salts or keys); a "
        "KRaft log's records have no author, and each of its other records is one UNKNOWN row.",
    ),
    "state": Lazy(
        _PIPELINE + "state",
        "ACLs and SCRAM users (no secrets) as of a point; the same answer as 'aclog replay'.",
    ),
    "history": Lazy(
        _PIPELINE + "history",
        "One row per ACL lifetime and per SCRAM credential lifetime: created, rotated, removed "
        "(a KRaft log records no authors: the by/from columns are empty).",
    ),
    "access": Lazy(
        _PIPELINE + "access",
        "Every principal x resource x operation decision and its deciding ACL, as 'explain'.",
    ),
    "orphans": Lazy(
        _PIPELINE + "orphans",
        "ACLs naming users without credentials, credentials no ACL names, ACLs on nothing.",
    ),
    "who-can": Lazy(
        _PIPELINE + "questions",
        "'aclog who-can' for every resource and operation asked, as one job.",
    ),
    "reach": Lazy(_PIPELINE + "questions", "'aclog reach' for every principal asked, as one job."),
    "timeline": Lazy(
        _PIPELINE + "timeline",
        "'aclog timeline' for every principal x resource x operation asked, as one job.",
    ),
    "diff": Lazy(
        _PIPELINE + "changes",
        "'aclog diff' as a job: ACLs and credentials added, removed and changed, with who and "
        "when (a KRaft log records no authors: \"author\" is null, as in 'aclog diff').",
    ),
    "lint": Lazy(
        _PIPELINE + "changes",
        "'aclog lint' as a job: the ACLs linted per resource type in tasks, credentials dated.",
    ),
}
"""The ``aclog pipeline`` commands."""
