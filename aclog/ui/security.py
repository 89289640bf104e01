"""What keeps the UI safe to open: which addresses it may listen on without a token, the token
check (an ``Authorization: Bearer`` header, or a login that sets a cookie holding a value
derived from the token, never the token itself), and the headers every response carries (a
strict Content-Security-Policy: scripts, styles and data from this origin only, no inline
script, no framing).

Thread-safe (immutable after construction). Cost: one HMAC per request when a token is set.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from pathlib import Path

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
"""The Content-Security-Policy of every response."""

COOKIE = "aclog_ui_session"
"""The login cookie's name."""

OPEN_PATHS = ("/login", "/static/")
"""What answers without a token: the login form and the assets, which hold no data."""


class TokenError(ValueError):
    """A token file that cannot be used; the message names it and says why."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is reachable only from this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name that may resolve anywhere


def host_of(header: str) -> str:
    """The host part of a ``Host`` header: ``127.0.0.1:8080`` → ``127.0.0.1``, ``[::1]:80``
    → ``::1``."""
    header = header.strip()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def read_token(path: Path) -> str:
    """The token in ``path`` (surrounding whitespace stripped); :class:`TokenError` when the
    file is missing, not UTF-8, empty or shorter than 16 characters (too easy to guess);
    ``OSError`` when it exists but cannot be read."""
    if not path.is_file():
        raise TokenError(f"no token file at {path}: it does not exist or is not a file")
    try:
        token = path.read_text(encoding="utf-8").strip()
    except UnicodeDecodeError:
        raise TokenError(f"the token file {path} is not UTF-8 text") from None
    if len(token) < 16:
        raise TokenError(
            f"the token file {path} holds {len(token)} characters; use at least 16 "
            "(e.g. the output of: python3 -c 'import secrets; print(secrets.token_urlsafe())')"
        )
    return token


def session_value(token: str) -> str:
    """The login cookie's value: an HMAC of a fixed label under the token, so the cookie
    proves the login without carrying the token."""
    return hmac.new(token.encode(), b"aclog ui session", hashlib.sha256).hexdigest()


def token_matches(token: str, given: str) -> bool:
    """Whether ``given`` is ``token``, compared in constant time."""
    return hmac.compare_digest(token.encode(), given.encode())


class Guard(BaseHTTPMiddleware):
    """Adds the security headers to every response and, with a token, answers requests that
    carry neither the token nor the login cookie with 401 (the API) or the login form."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        super().__init__(app)
        self.token = token
        self.session = None if token is None else session_value(token)

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if self.token is None and not is_loopback(host_of(request.headers.get("host", ""))):
            # Without a token the server listens on loopback only; a page elsewhere whose name
            # was made to resolve to 127.0.0.1 (DNS rebinding) must not read it either.
            response: Response = PlainTextResponse(
                "this server answers only to a loopback address (127.0.0.1, localhost)", 403
            )
        elif self.allowed(request):
            response = await call_next(request)
        elif request.url.path.startswith("/api/"):
            response = JSONResponse({"error": "log in: send Authorization: Bearer TOKEN"}, 401)
        else:
            response = RedirectResponse("/login", 303)
        headers = response.headers
        headers["Content-Security-Policy"] = CSP
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Referrer-Policy"] = "no-referrer"
        headers["X-Frame-Options"] = "DENY"
        if not request.url.path.startswith("/static/"):
            headers["Cache-Control"] = "no-store"
        return response

    def allowed(self, request: Request) -> bool:
        """Whether ``request`` may see data: no token is set, it goes to an open path, or it
        carries the token or the login cookie."""
        if self.token is None or request.url.path.startswith(OPEN_PATHS):
            return True
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token_matches(self.token, given.strip()):
            return True
        cookie = request.cookies.get(COOKIE, "")
        return self.session is not None and hmac.compare_digest(cookie, self.session)
