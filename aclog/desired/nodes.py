"""Reading YAML nodes with their line numbers: the part of loading a desired-state file that
knows YAML, so every error names ``file:line`` (``acls.yaml:12: unknown key 'operaton' (did you
mean 'operations'?)``).

PyYAML's composer gives each node the mark where it starts; values are read from the node tree
instead of a constructed dict, so a position is never lost. Errors are collected, not raised one
by one, so a user sees every mistake of a file at once.

Not thread-safe: one reader per file. Cost: O(nodes).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

STR_TAG = "tag:yaml.org,2002:str"
INT_TAG = "tag:yaml.org,2002:int"
BOOL_TAG = "tag:yaml.org,2002:bool"
NULL_TAG = "tag:yaml.org,2002:null"


class DesiredStateError(ValueError):
    """A desired-state file that cannot be used: one ``file:line: message`` per problem."""

    def __init__(self, messages: Sequence[str]) -> None:
        super().__init__("\n".join(messages))
        self.messages = list(messages)


def compose(path: str, text: str) -> Node:
    """The node tree of ``text`` (one YAML document); a syntax error names its line."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 1
        column = f", column {mark.column + 1}" if mark is not None else ""
        message = f"{path}:{line}: not valid YAML{column}: {error.problem}{_hint(error.problem)}"
        raise DesiredStateError([message]) from None
    except yaml.YAMLError as error:
        raise DesiredStateError([f"{path}: not valid YAML: {error}"]) from None
    if node is None:
        raise DesiredStateError([f"{path}:1: the file is empty; see docs/as-code.md"])
    return node


INDENT_HINT = (
    " (check this line's indentation: the keys of one entry line up under each other, "
    "and a list item's keys start two spaces after its '- ')"
)
_HINTS = {
    "expected alphabetic or numeric character": " (a bare * starts a YAML alias: quote it, as "
    'in host: "*")',
    "expected <block end>": INDENT_HINT,
    "mapping values are not allowed here": INDENT_HINT,
    "did not find expected key": INDENT_HINT,
    "did not find expected '-' indicator": INDENT_HINT,
}
"""What a person should do about PyYAML's messages, which name the parser's state instead."""


def _hint(problem: str | None) -> str:
    return next((hint for start, hint in _HINTS.items() if str(problem).startswith(start)), "")


def line_of(node: Node) -> int:
    """The 1-based line a node starts on."""
    return int(node.start_mark.line) + 1


class NodeReader:
    """Typed reads of nodes that record an error (and return ``None``) on a mismatch."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.errors: list[str] = []

    def error(self, node: Node, message: str) -> None:
        self.errors.append(f"{self.path}:{line_of(node)}: {message}")

    def raise_errors(self) -> None:
        """Raise every error found so far, in the order of their lines in the file."""
        if self.errors:
            raise DesiredStateError(sorted(self.errors, key=self._line))

    def _line(self, error: str) -> int:
        number = error[len(self.path) + 1 :].partition(":")[0]
        return int(number) if number.isdigit() else 0

    def mapping(
        self, node: Node, what: str, keys: Sequence[str], required: Sequence[str] = ()
    ) -> dict[str, Node] | None:
        """The values of a mapping by key; unknown, repeated and missing keys are errors."""
        if not isinstance(node, MappingNode):
            self.error(node, f"{what} must be a mapping of {', '.join(keys)}")
            return None
        values: dict[str, Node] = {}
        for key_node, value in node.value:
            key = key_node.value if isinstance(key_node, ScalarNode) else None
            if key is None:
                self.error(key_node, f"{what}: a key must be a plain name")
            elif key in values:
                self.error(key_node, f"{what}: key {key!r} is given twice")
            elif key not in keys:
                self.error(key_node, f"unknown key {key!r} in {what}{_suggest(key, keys)}")
            else:
                values[key] = value
        missing = [k for k in required if k not in values]
        if missing:
            self.error(node, f"{what} needs {', '.join(repr(k) for k in missing)}")
        return values

    def sequence(self, node: Node, what: str) -> list[Node]:
        """The items of a list (a missing or null list is empty)."""
        if isinstance(node, ScalarNode) and node.tag == NULL_TAG:
            return []
        if not isinstance(node, SequenceNode):
            self.error(node, f"{what} must be a list")
            return []
        return list(node.value)

    def text(self, node: Node, what: str) -> str | None:
        """A non-empty string (a number is read as its text, as in ``topic: 2024``)."""
        if not isinstance(node, ScalarNode) or node.tag in (NULL_TAG, BOOL_TAG):
            self.error(node, f"{what} must be a text value")
            return None
        if node.value == "":
            self.error(node, f"{what} must not be empty")
            return None
        return str(node.value)

    def texts(self, node: Node, what: str) -> list[str]:
        """A list of texts; a single text stands for a list of one."""
        if isinstance(node, ScalarNode) and node.tag != NULL_TAG:
            found = self.text(node, what)
            return [] if found is None else [found]
        items = [self.text(item, what) for item in self.sequence(node, what)]
        return [item for item in items if item is not None]

    def flag(self, node: Node, what: str) -> bool:
        """``true`` or ``false``."""
        if isinstance(node, ScalarNode) and node.tag == BOOL_TAG:
            return bool(yaml.safe_load(node.value))
        self.error(node, f"{what} must be true or false")
        return False

    def integer(self, node: Node, what: str) -> int | None:
        """A whole number."""
        if isinstance(node, ScalarNode) and node.tag == INT_TAG:
            value = yaml.safe_load(node.value)
            if isinstance(value, int):
                return value
        self.error(node, f"{what} must be a whole number")
        return None


def _suggest(key: str, keys: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, keys, n=1)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f"; expected one of: {', '.join(keys)}"
