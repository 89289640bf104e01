"""The PySpark pipeline: the only package that imports pyspark.

- :mod:`~aclog.pipeline.source`: ``spark.read.format("aclog").load(DIR)``, a Python data source
  with one partition per segment piece (and per snapshot when asked), decoded by the one decoder;
- :mod:`~aclog.pipeline.session`: the SparkSession factory the CLI, tests and benchmarks share,
  with :mod:`~aclog.pipeline.settings` (``--conf`` pairs, the driver's address on a cluster);
- :mod:`~aclog.pipeline.records_files`: every record as Parquet, written by the tasks that
  decode them (pyarrow; no row crosses into the JVM);
- :mod:`~aclog.pipeline.load`: records as of a point, or for a history, in either format
  (snapshot choice as in ``rebuild_image``): every job's input;
- :mod:`~aclog.pipeline.kraft_source`: ``spark.read.format("aclog-kraft")``, Kafka's own KRaft
  metadata log as the same rows, and :mod:`~aclog.pipeline.kraft_load`, which of them a job
  reads (checkpoint choice as in ``aclog replay --format kraft``);
- jobs, each a lazy DataFrame -> DataFrame function in its module (exported as modules, so
  ``pipeline.state.state``): :mod:`~aclog.pipeline.state` (``aclog replay`` as an anti join of
  ACL additions against later removals, and last-record-wins for credentials),
  :mod:`~aclog.pipeline.history` (ACL and credential lifetimes),
  :mod:`~aclog.pipeline.state_files` (a state written as Parquet, its two jobs run together),
  :mod:`~aclog.pipeline.state_tasks` (the same state kept by the decoding tasks, no row in the
  JVM: what ``aclog pipeline state`` runs over a data directory, see
  :mod:`~aclog.pipeline.state_answer`),
  :mod:`~aclog.pipeline.access` (every principal x resource x operation decision, with the
  deciding ACL; which patterns apply to which names in :mod:`~aclog.pipeline.pattern_matches`,
  which principals and hosts an ACL covers in :mod:`~aclog.pipeline.covered`),
  :mod:`~aclog.pipeline.orphans`, :mod:`~aclog.pipeline.questions` (who can, reach, timeline,
  lint over many points) and :mod:`~aclog.pipeline.diff` (two points' states);
- :mod:`~aclog.pipeline.plot`: the history picture (matplotlib, Agg);
- the plumbing every ``aclog pipeline`` command shares, once: :mod:`~aclog.pipeline.failures`
  (the command's session, and Spark's, py4j's and the pipeline's errors as a
  :class:`JobFailure` whose kind says whose fault it was), :mod:`~aclog.pipeline.inputs` (what a
  command reads, as a :class:`Source`, the :class:`Job` that reads it in its session, and the
  rows it collects or writes) and :mod:`~aclog.pipeline.commands` (each command's job as one
  call, the session included).

Requires the ``spark`` extra (pyspark, pyarrow, pandas, matplotlib) and Java 17+.
"""

from aclog.pipeline import (
    access,
    commands,
    diff,
    failures,
    history,
    inputs,
    kraft_load,
    kraft_source,
    load,
    orphans,
    plot,
    questions,
    records_files,
    settings,
    state,
    state_answer,
    state_files,
    state_tasks,
)
from aclog.pipeline.access import AccessQuestion
from aclog.pipeline.errors import JavaMissingError, PipelineError
from aclog.pipeline.failures import JobFailure, command_session
from aclog.pipeline.inputs import Job, Source
from aclog.pipeline.load import (
    Records,
    read_parquet_records,
    read_records,
    records_as_of,
    records_for_history,
)
from aclog.pipeline.schema import RECORD_SCHEMA
from aclog.pipeline.session import make_spark, spark_session
from aclog.pipeline.source import AclogDataSource
from aclog.pipeline.state import State

__all__ = [
    "RECORD_SCHEMA",
    "AccessQuestion",
    "AclogDataSource",
    "JavaMissingError",
    "Job",
    "JobFailure",
    "PipelineError",
    "Records",
    "Source",
    "State",
    "access",
    "command_session",
    "commands",
    "diff",
    "failures",
    "history",
    "inputs",
    "kraft_load",
    "kraft_source",
    "load",
    "make_spark",
    "orphans",
    "plot",
    "questions",
    "read_parquet_records",
    "read_records",
    "records_as_of",
    "records_files",
    "records_for_history",
    "settings",
    "spark_session",
    "state",
    "state_answer",
    "state_files",
    "state_tasks",
]
