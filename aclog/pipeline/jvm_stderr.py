"""Keeps the JVM's own start-up notice off stderr.

Spark's launcher always adds ``--add-modules=jdk.incubator.vector``, so the JVM prints
``WARNING: Using incubator modules: jdk.incubator.vector`` on its stderr, which it inherits from
this process; no JVM or log4j setting removes it. While :func:`filtered_jvm_stderr` is open,
file descriptor 2 is a pipe: the JVM (and every process it starts) inherits the pipe for its
whole life, and a daemon thread copies what arrives to the real stderr without that line, so
Spark's own errors still show. When the block ends this process's fd 2 is the real stderr again.

Not thread-safe: swaps the process-wide fd 2 (other threads' stderr output passes through the
copy while the block is open). Cost: one pipe and one thread per JVM start; a copy of the
JVM's stderr bytes.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

NOTICE = re.compile(rb"WARNING: Using incubator modules: [^\n]*\n")
"""The line dropped."""


@contextmanager
def filtered_jvm_stderr() -> Iterator[None]:
    """Processes started inside the block write their stderr through the filter."""
    try:
        real = os.dup(2)
    except OSError:  # no stderr at all: nothing to filter
        yield
        return
    read_end, write_end = os.pipe()
    sys.stderr.flush()
    os.dup2(write_end, 2)
    os.close(write_end)
    threading.Thread(
        target=_copy, args=(read_end, real), name="aclog-jvm-stderr", daemon=True
    ).start()
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(real, 2)


def _copy(source: int, target: int) -> None:
    """Copy ``source`` to ``target`` without the notice, until every writer has closed it."""
    with os.fdopen(source, "rb", buffering=0) as pipe:
        while chunk := pipe.read(65536):
            data = NOTICE.sub(b"", chunk)
            try:
                while data:
                    data = data[os.write(target, data) :]
            except OSError:
                return  # the real stderr is gone; the JVM's writes are dropped
