""":func:`visible`: what a person sees of a name has no control characters, maps back to exactly
one name, and leaves ordinary names alone."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from aclog.tools.visible import visible

_WIDTH = {"x": 2, "u": 4, "U": 8}
_NAMED = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}


def unescape(shown: str) -> str:
    """The reader's side, written from the documented rules: ``\\\\``, ``\\n``, ``\\r``,
    ``\\t``, ``\\xHH``, ``\\uHHHH``, ``\\UHHHHHHHH``; any other backslash is itself."""
    chars: list[str] = []
    i = 0
    while i < len(shown):
        lead = shown[i + 1] if shown[i] == "\\" and i + 1 < len(shown) else ""
        if lead in _NAMED:
            chars.append(_NAMED[lead])
            i += 2
        elif lead in _WIDTH:
            width = _WIDTH[lead]
            digits = shown[i + 2 : i + 2 + width]
            assert len(digits) == width and digits == digits.lower(), shown
            chars.append(chr(int(digits, 16)))
            i += 2 + width
        else:
            chars.append(shown[i])
            i += 1
    return "".join(chars)


TRICKY = st.sampled_from([*"\\nrtxuU0a*", "\x00", "\x1b", "\x7f", "\x85", "\u202e", "\n"])
ANY_TEXT = st.text() | st.text(TRICKY) | st.text(st.characters(codec="utf-8") | TRICKY)


@given(ANY_TEXT)
@example("\x00\r\n\t\x1b[2J\x7f\x9b\u2028\u2029\u202e\u200b\ufeff\ud800\U000e0001\xa0")
def test_shown_text_has_no_control_characters_and_reads_back(text: str) -> None:
    shown = visible(text)
    assert shown.isprintable()  # no C0/C1, DEL, format, separator or other invisible character
    assert unescape(shown) == text  # so distinct names never look the same


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("\n", "\\n"),
        ("\x1b", "\\x1b"),
        ("\\", "\\\\"),
        ("\\\n", "\\n"),
        ("\u202e", "\\u202e"),
        ("a\\", "a\\\\"),
    ],
)
def test_an_escape_and_its_spelling_look_different(first: str, second: str) -> None:
    assert visible(first) != visible(second)


@given(st.text(st.characters(exclude_characters="\\")).filter(str.isprintable))
@example("orders.eu-1 Ünïcode 名前 [bold]x[/] :thumbs_up:")
def test_printable_names_are_unchanged(name: str) -> None:
    assert visible(name) == name


@pytest.mark.parametrize("name", ["orders\\*", "a\\?b", "DOMAIN\\bob", "end\\"])
def test_a_backslash_that_starts_no_escape_stays_single(name: str) -> None:
    assert visible(name) == name


def test_the_documented_spellings() -> None:
    assert visible("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert visible("\x00\x1b[2J\x7f\x9b") == "\\x00\\x1b[2J\\x7f\\x9b"
    assert visible("\u202eevil\u2028") == "\\u202eevil\\u2028"
    assert visible("\U000e0001") == "\\U000e0001"
    assert visible("C:\\new\\x") == "C:\\\\new\\\\x"
