"""Text as a person should see it: every character a terminal would not draw as itself is written
as an escape, so a crafted resource name, principal, host or client id can neither start a new
line, nor send terminal escape sequences, nor reorder the rest of the line.

Kafka accepts any string as a name, so the CLI's text output and the UI's pages show names
through :func:`visible`; JSON
output needs no such care (``json.dumps`` escapes controls itself) and does not use it.

- Escaped: each character :meth:`str.isprintable` rejects, the rule :func:`repr` uses: C0
  controls, DEL and C1 controls; format characters (bidi overrides and isolates such as U+202E,
  zero-width characters, U+FEFF); the line and paragraph separators U+2028 and U+2029; spaces
  other than U+0020; surrogates; private-use and unassigned code points. They are written as
  ``\\n``, ``\\r`` and ``\\t``, else ``\\xHH``, ``\\uHHHH`` or ``\\UHHHHHHHH`` (lowercase hex).
- A backslash stays single unless what follows could be read as an escape (a backslash or one
  of ``n r t x u U``, or an escaped character), and is then doubled. So GLOB patterns such as
  ``orders\\*`` print exactly as they are typed, and each output still comes from exactly one
  input.
- Left alone: printable characters that only look alike (homoglyphs) and combining marks.

Thread-safe (pure). Cost: one :meth:`str.isprintable` scan for ordinary text; otherwise one
pass that builds a piece per character.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPE_STARTS = frozenset("\\nrtxuU")
"""What may follow a backslash in an escape: a backslash before one of these is doubled."""


def visible(text: str) -> str:
    """``text`` with non-printable characters escaped (see the module docstring)."""
    if text.isprintable() and "\\" not in text:
        return text
    pieces = [_piece(char) for char in text]
    for i in range(len(pieces) - 1):
        if pieces[i] == "\\" and pieces[i + 1][0] in _ESCAPE_STARTS:
            pieces[i] = "\\\\"
    return "".join(pieces)


def _piece(char: str) -> str:
    if char.isprintable():
        return char
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
