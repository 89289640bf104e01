"""The pipeline's errors: what every job and the session raise when they cannot run as asked."""

from __future__ import annotations


class PipelineError(Exception):
    """The pipeline cannot run as asked; the message says what to change."""


class JavaMissingError(PipelineError):
    """No Java to start Spark with; the message says how to install it."""
