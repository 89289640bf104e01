"""``aclog pipeline ...``: the Spark jobs of :mod:`aclog.pipeline` as commands.

Each command reads a data directory (or, with ``--records``, the Parquet that ``aclog pipeline
records`` wrote), runs one job, writes Parquet under ``--out`` and, for small results, prints a
table or ``--json``. Spark runs locally on two cores unless ``--master`` (or
``$ACLOG_SPARK_MASTER``) names a cluster; every command also takes ``--conf KEY=VALUE`` (repeat)
and ``--driver-host`` (the address a cluster's executors reach the driver at). ``aclog.pipeline``
(and pyspark) is imported only when a pipeline command runs, so the rest of the CLI works
without the ``spark`` extra.

Exit codes as everywhere: 1 the job failed on the data (a corrupt log, no usable snapshot), 2 a
usage error, 3 no Java, no pyspark, or an I/O or Spark failure.

The package parses, calls one function of :mod:`aclog.pipeline.commands` (which runs the job
in its Spark session) and renders: :mod:`~aclog.tools.pipeline.app` holds the ``pipeline``
command group, :mod:`~aclog.tools.pipeline.options` the options every command shares and
:func:`~aclog.tools.pipeline.options.pipeline_command`, which adds them to a command,
:mod:`~aclog.tools.pipeline.shared` those options parsed (the library's job built from them, its
failures as exits), :mod:`~aclog.tools.pipeline.asking` what a question names,
:mod:`~aclog.tools.pipeline.output` tables and lines. Each command is a module of its own,
imported only when it runs (``aclog pipeline --help`` lists them from the table in
:mod:`~aclog.tools.pipeline.app`); to add one, write the module (``@pipeline_command("name",
...)`` with the shared options it takes) and add it to that table, in the order the help lists
it.
"""

from __future__ import annotations

from aclog.tools.pipeline.app import pipeline_app

__all__ = ["pipeline_app"]
