"""The ``state`` job in DuckDB over the ``records`` Parquet: what a user might pick on one machine.

The same rules as :mod:`aclog.pipeline.state` in SQL: an ACL addition is present when no removal
of its id follows it; a credential is present when the newest of its (user, mechanism)'s
records (by offset, then position) sets it. The answer is written as Parquet (ACLs and
credentials), as ``aclog pipeline state --out`` writes it. DuckDB is a development dependency,
used only here as a benchmark baseline.

Thread-safe (one connection per call). Cost: DuckDB's scan, anti join and window over the
records, on every core.
"""

from __future__ import annotations

from pathlib import Path

_ACLS = """
    SELECT a.acl_id, a.resource_type, a.resource_name, a.pattern_type, a.principal, a.host,
           a.operation, a.permission_type, a."offset" AS created_offset
    FROM records a
    WHERE a.type = 'AccessControlEntryRecord'
      AND NOT EXISTS (
          SELECT 1 FROM records d
          WHERE d.type = 'RemoveAccessControlEntryRecord'
            AND d.acl_id = a.acl_id AND d."offset" > a."offset")
"""
_USERS = """
    SELECT "user", mechanism, iterations FROM (
        SELECT "user", mechanism, iterations, type, row_number() OVER (
            PARTITION BY "user", mechanism ORDER BY "offset" DESC, position DESC) AS newest
        FROM records
        WHERE type IN ('UserScramCredentialRecord', 'RemoveUserScramCredentialRecord'))
    WHERE newest = 1 AND type = 'UserScramCredentialRecord'
"""


def duckdb_state(records: Path, out: Path) -> tuple[set[str], set[tuple[str, str, int]]]:
    """Write the state of the ``records`` Parquet folder to ``out`` (``acls.parquet``,
    ``users.parquet``) and return the ACL ids and the (user, mechanism, iterations) written."""
    import duckdb

    out.mkdir(parents=True, exist_ok=True)
    with duckdb.connect() as db:
        source = str(records / "*.parquet").replace("'", "''")
        db.execute(f"CREATE VIEW records AS SELECT * FROM read_parquet('{source}')")
        for name, query in (("acls", _ACLS), ("users", _USERS)):
            target = str(out / f"{name}.parquet").replace("'", "''")
            db.execute(f"COPY ({query}) TO '{target}' (FORMAT parquet)")
        ids = {row[0] for row in db.execute(f"SELECT acl_id FROM ({_ACLS})").fetchall()}
        users = {(u, m, int(i)) for u, m, i in db.execute(_USERS).fetchall()}
    return ids, users
