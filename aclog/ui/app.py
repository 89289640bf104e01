"""The web app of ``aclog ui``: routes for each view's page (``/state``, ``/changes``,
``/explain``, ``/who-can``, ``/reach``, ``/diff``, ``/lint``, ``/timeline``) and its JSON
(``/api/<view>``, the same data), the login form, and the packaged static assets. Every
failure is a page (or JSON) with a 4xx status and a message saying what to change; an
unexpected one is a 500 page naming only its type, logged on stderr; the server keeps
serving either way.

Thread-safe: handlers run on Starlette's thread pool over one :class:`LogSource`. Cost: see
:mod:`aclog.ui.views`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, parse_qsl, quote, urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from aclog.image import MetadataImage
from aclog.records import parse_kafka_uuid
from aclog.replay import time_text
from aclog.text import visible
from aclog.ui.access import diff_data, reach_data, who_can_data
from aclog.ui.memory import released_when_slow
from aclog.ui.queries import ACL_OPERATIONS, RESOURCE_TYPES, BadQuery, Moment, moment
from aclog.ui.security import COOKIE, Guard, session_value, token_matches
from aclog.ui.source import LogProblem, LogSource
from aclog.ui.views import (
    Authorizers,
    changes_data,
    checked_state,
    explain_data,
    state_data,
    timeline_data,
)

HERE = Path(__file__).parent

ROWS_SHOWN = 500
"""Rows of a Diff or Lint page, at most (their JSON lists all): a diff across a bulk import
lists hundreds of thousands of changes, which no page renders fast or a person reads."""

Answer = Callable[[Request, Moment], tuple[dict[str, Any], dict[str, Any]]]
"""A view: from the request and its moment, (the JSON data, extra page context)."""

Question = Callable[[MetadataImage, Authorizers, Mapping[str, str]], dict[str, Any] | None]
"""A question asked of a state (``None``: the form is empty)."""


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["visible"] = visible
    env.filters["time"] = time_text
    env.filters["q"] = lambda value: quote(str(value), safe="")
    env.globals["href"] = lambda path, params: path + ("?" + urlencode(params) if params else "")
    env.globals["operations"] = [op.name for op in ACL_OPERATIONS]
    env.globals["resource_types"] = [rt.name for rt in RESOURCE_TYPES]
    env.globals["rows_shown"] = ROWS_SHOWN
    return env


def with_kept(params: dict[str, str]) -> dict[str, str]:
    """``params`` with those the moment form kept (``keep``: a view's other parameters,
    URL-encoded so that any name, NUL and newlines too, survives the form) merged under them."""
    kept = params.pop("keep", "")
    return {**dict(parse_qsl(kept, keep_blank_values=True)), **params} if kept else params


class Site:
    """The handlers of one app over one data directory (see the module's docstring)."""

    def __init__(self, data_dir: Path, token: str | None) -> None:
        self.data_dir, self.token = data_dir, token
        self.source = LogSource(data_dir)
        self.env = _environment()
        self.authorizers = Authorizers()

    def render(self, request: Request, template: str, code: int, **context: Any) -> Response:
        """The page ``template`` with ``context`` and what every page shows."""
        context.setdefault("moment", Moment())
        context.setdefault("params", {})
        context.update(request=request, data_dir=str(self.data_dir), login=self.token is not None)
        return HTMLResponse(self.env.get_template(template).render(**context), code)

    def problem(self, request: Request, message: str, status: int) -> Response:
        """A failure as JSON (``/api/``) or as a page, with ``status``."""
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status)
        return self.render(request, "problem.html", status, message=message, status=status)

    def view(self, name: str, answer: Answer) -> Callable[[Request], Response]:
        """The handler of view ``name``: its JSON under ``/api/``, else its page."""

        def handle(request: Request) -> Response:
            params = with_kept(dict(request.query_params))
            try:
                with released_when_slow():  # what a build dropped (aclog.ui.memory)
                    at = moment(params)
                    data, extra = answer(request, at)
            except BadQuery as error:
                return self.problem(request, str(error), 400)
            except LogProblem as error:
                return self.problem(request, str(error), error.status)
            if request.url.path.startswith("/api/"):
                return JSONResponse(data)
            kept = {k: v for k, v in params.items() if k not in ("at_time", "at_offset", "page")}
            context = {"view": name, "moment": at, "data": data, "params": params, **extra}
            context["keep"] = urlencode(kept)
            return self.render(request, f"{name}.html", 200, **context)

        return handle

    def state(self, request: Request, at: Moment) -> tuple[dict[str, Any], dict[str, Any]]:
        return state_data(checked_state(self.source, at), request.query_params), {}

    def changes(self, request: Request, at: Moment) -> tuple[dict[str, Any], dict[str, Any]]:
        if not at.is_now:
            checked_state(self.source, at)
        return changes_data(self.source, at, request.query_params), {}

    def question(self, ask: Question, empty: str) -> Answer:
        """A view that asks ``ask`` of the state as of the moment; a JSON request with the
        form left empty is a 400 saying ``empty``."""

        def answer(request: Request, at: Moment) -> tuple[dict[str, Any], dict[str, Any]]:
            image = checked_state(self.source, at)
            data = ask(image, self.authorizers, request.query_params)
            if data is None and request.url.path.startswith("/api/"):
                raise BadQuery(empty)
            return data or {}, {"state_offset": image.provenance.last_offset}

        return answer

    def diff(self, request: Request, at: Moment) -> tuple[dict[str, Any], dict[str, Any]]:
        api = request.url.path.startswith("/api/")
        data = diff_data(self.source, request.query_params, None if api else ROWS_SHOWN)
        if data is None and request.url.path.startswith("/api/"):
            raise BadQuery("from and to are empty: give two offsets or times")
        return data or {}, {}

    def lint(self, request: Request, at: Moment) -> tuple[dict[str, Any], dict[str, Any]]:
        image = checked_state(self.source, at)
        data = self.source.lint(at.offset, at.time_ms)
        return data, {"state_offset": image.provenance.last_offset}

    def timeline(self, request: Request, at: Moment) -> tuple[dict[str, Any], dict[str, Any]]:
        return timeline_data(self.source, request.query_params), {}

    def end(self, request: Request, at: Moment) -> tuple[dict[str, Any], dict[str, Any]]:
        """Where the log ends now: what a page of "now" polls to reload on a new commit."""
        summaries = self.source.summaries()
        return {"last_offset": summaries[-1].last_offset if summaries else -1}, {}

    def acl_origin(self, request: Request) -> Response:
        """A redirect to the change that added the ACL named in the path."""
        text = request.path_params["acl_id"]
        try:
            with released_when_slow():  # the first read of every batch's origins
                base = self.source.origin_of(parse_kafka_uuid(text))
        except ValueError:
            return self.problem(request, f"{text!r} is not an ACL id", 400)
        except LogProblem as error:
            return self.problem(request, str(error), error.status)
        if base is None:
            return self.problem(request, "no batch in the log added that ACL (a snapshot did)", 404)
        return RedirectResponse(f"/changes?start={base}#b{base}", 303)

    async def login(self, request: Request) -> Response:
        """The login form; a right token sets the session cookie (not the token)."""
        if self.token is None:
            return RedirectResponse("/state", 303)
        if request.method == "GET":
            return self.render(request, "login.html", 200, failed=False)
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        if not token_matches(self.token, form.get("token", [""])[0]):
            return self.render(request, "login.html", 401, failed=True)
        response = RedirectResponse("/state", 303)
        response.set_cookie(COOKIE, session_value(self.token), httponly=True, samesite="strict")
        return response

    def not_found(self, request: Request, error: Exception) -> Response:
        return self.problem(request, f"there is no page at {request.url.path}", 404)

    def crashed(self, request: Request, error: Exception) -> Response:
        """An unexpected failure: its type on the page, the message on stderr only."""
        print(f"aclog ui: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return self.problem(request, f"internal error ({type(error).__name__}); see the log", 500)


def create_app(data_dir: Path, token: str | None = None, *, warm: bool = False) -> Starlette:
    """The app over ``data_dir`` (read-only); with ``token``, every data route needs it;
    with ``warm``, the state at the log's end is built on a thread from now on
    (:meth:`LogSource.warm`: a server starts so; a test asks when it wants)."""
    site = Site(data_dir, token)
    if warm:
        site.source.warm_in_background()
    routes: list[BaseRoute] = [Route("/", lambda request: RedirectResponse("/state", 303))]
    views: list[tuple[str, Answer]] = [
        ("state", site.state),
        ("changes", site.changes),
        ("explain", site.question(explain_data, "principal is empty: name one, e.g. User:alice")),
        ("who-can", site.question(who_can_data, "operation is empty: name one, e.g. READ")),
        ("reach", site.question(reach_data, "principal is empty: name one, e.g. User:alice")),
        ("diff", site.diff),
        ("lint", site.lint),
        ("timeline", site.timeline),
    ]
    for name, answer in views:
        routes += [
            Route(f"/{name}", site.view(name, answer)),
            Route(f"/api/{name}", site.view(name, answer)),
        ]
    routes += [
        Route("/api/end", site.view("end", site.end)),
        Route("/changes/acl/{acl_id}", site.acl_origin),
        Route("/login", site.login, methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(Guard, token=token)],
        exception_handlers={404: site.not_found, Exception: site.crashed},
    )
