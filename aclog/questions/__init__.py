"""What security teams ask of the ACLs, answered on the authorizer's public face
(:mod:`aclog.authorizer`'s ``__all__``), never on its index: who can do an operation on a
resource (:func:`who_can`), what a principal can reach (:func:`reach`), the hygiene of a data
directory's ACLs and SCRAM credentials (:func:`lint_directory`; of an image kept in memory,
:func:`lint_image`), when a principal gained or lost
an operation (:func:`timeline`), whose ACLs each batch changed (:func:`split_changes`), and
what a change would do to an inventory (:func:`impact_of_adding`).

The authorizer answers one request fast; this package asks it many, or reads the log around it
(:mod:`aclog.replay`). Sits above :mod:`aclog.authorizer`, :mod:`aclog.replay` and
:mod:`aclog.image`, and below :mod:`aclog.tools`, :mod:`aclog.pipeline` and
:mod:`aclog.desired`, which render and distribute its answers.
"""

from typing import TYPE_CHECKING

from aclog.faces import lazy_face

if TYPE_CHECKING:
    from aclog.controller.scram_limits import LINT_MIN_ITERATIONS as DEFAULT_MIN_ITERATIONS
    from aclog.questions.churn import OTHERS, ChangeSplit, SplitBy, split_changes
    from aclog.questions.findings import Finding, LintReport, Severity
    from aclog.questions.host_answers import ANY_HOST, HostAnswer
    from aclog.questions.hygiene import lint_directory, lint_image
    from aclog.questions.impact import (
        ANY_OTHER_HOST,
        ResourceImpact,
        impact_of_adding,
        impact_of_changing,
    )
    from aclog.questions.origins import AclOrigins
    from aclog.questions.pattern_text import describe_pattern, short_acl
    from aclog.questions.reach import reach
    from aclog.questions.reachable import Reach, Reachable
    from aclog.questions.timeline import BEGINNING, Question, timeline, timelines
    from aclog.questions.timeline_result import ADDED, Flip, Timeline
    from aclog.questions.who_can import PrincipalAccess, WhoCan, who_can

__all__ = [
    "ADDED",
    "AclOrigins",
    "ANY_HOST",
    "ANY_OTHER_HOST",
    "OTHERS",
    "BEGINNING",
    "ChangeSplit",
    "DEFAULT_MIN_ITERATIONS",
    "Finding",
    "Flip",
    "HostAnswer",
    "LintReport",
    "PrincipalAccess",
    "Question",
    "Reach",
    "Reachable",
    "ResourceImpact",
    "Severity",
    "SplitBy",
    "Timeline",
    "WhoCan",
    "describe_pattern",
    "impact_of_adding",
    "impact_of_changing",
    "lint_directory",
    "lint_image",
    "reach",
    "short_acl",
    "split_changes",
    "timeline",
    "timelines",
    "who_can",
]

__getattr__ = lazy_face(__name__)
