"""``aclog ui``: a read-only web view of a data directory's history — the state as of any
moment, the committed changes with who made them, why a request is decided, and a timeline —
answered through the same library functions as the CLI (:mod:`aclog.questions`,
:mod:`aclog.replay`, :mod:`aclog.authorizer`). An app layer beside :mod:`aclog.tools`: it
imports the library's faces; only the ``aclog ui`` command imports it.
"""

from aclog.ui.app import create_app
from aclog.ui.security import TokenError, is_loopback, read_token
from aclog.ui.server import bind, serve_ui

__all__ = ["TokenError", "bind", "create_app", "is_loopback", "read_token", "serve_ui"]
