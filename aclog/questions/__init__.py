"""What security teams ask of the ACLs, answered on the authorizer's public face
(:mod:`aclog.authorizer`'s ``__all__``): the hygiene of the ACLs and the SCRAM
credentials of a data directory (:func:`lint_directory`), when a principal gained or lost an
operation (:func:`timeline`), and the impact of a change on an inventory (:func:`impact_of_adding`).

The authorizer answers one request fast; this package asks it many, or reads the log around it,
and never reaches into its index. Sits above :mod:`aclog.authorizer`, :mod:`aclog.replay` and
:mod:`aclog.image`, and below :mod:`aclog.tools`, :mod:`aclog.pipeline` and
:mod:`aclog.desired`, which render and distribute its answers.
"""

from aclog.questions.findings import Finding, LintReport, Severity
from aclog.questions.hygiene import DEFAULT_MIN_ITERATIONS, lint_directory
from aclog.questions.impact import (
    ANY_OTHER_HOST,
    ResourceImpact,
    impact_of_adding,
    impact_of_changing,
)
from aclog.questions.timeline import BEGINNING, Question, timeline, timelines
from aclog.questions.timeline_result import ADDED, Flip, Timeline

__all__ = [
    "ADDED",
    "ANY_OTHER_HOST",
    "BEGINNING",
    "DEFAULT_MIN_ITERATIONS",
    "Finding",
    "LintReport",
    "Severity",
    "Flip",
    "Question",
    "Timeline",
    "ResourceImpact",
    "impact_of_adding",
    "impact_of_changing",
    "lint_directory",
    "timeline",
    "timelines",
]
