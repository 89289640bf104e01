"""Option values converted without pydantic, when typer's conversion could only give them back
as they are: the fast path beside typer's own (its reference), for a command's start-up.

Typer converts every option value through a pydantic ``TypeAdapter``: importing pydantic and
building the adapters is most of what ``aclog acls list`` does before it reads a byte. This
CLI's options are plain (``str``, ``bool``, ``int`` and ``float`` with bounds, ``Path``, lists of
those); :class:`PlainValue` converts a value that is plainly valid (``"12"`` for an ``int`` in
range, a non-empty UTF-8 path) as typer would, and hands everything else to typer's own
conversion, unchanged, so every error and every edge keeps typer's wording and meaning.
``tests/tools/test_plain_values.py`` is the contract: for any value, both give the same result.

Not thread-safe (sets an attribute of a parameter once); the CLI builds its commands on one
thread. Cost: O(length of the value) per value; typer's conversion (and pydantic) only for a
value it cannot vouch for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._click.exceptions import BadParameter
from typer._coercion import RuntimeParam, build_runtime_param, resolve_type_descriptor
from typer._param_types import coerce_cli_path
from typer.core import TyperArgument, TyperOption

_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")
_PLAIN = (str, bool, int, float, Path)


class _NotPlain(Exception):
    """A value :class:`PlainValue` cannot vouch for: typer's conversion decides it."""


@dataclass(frozen=True)
class PlainValue(RuntimeParam):
    """Typer's conversion of a plain annotation, without pydantic for a plainly valid value."""

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            annotation: Any = self.annotation
            if _is_list(annotation):
                if not isinstance(value, list | tuple):
                    raise _NotPlain
                (item,) = get_args(annotation)
                return [self._one(item, v, param, ctx) for v in value]
            return self._one(annotation, value, param, ctx)
        except (_NotPlain, BadParameter, ValueError):  # typer decides, in its own words
            descriptor = resolve_type_descriptor(self.annotation, self.parameter_info)
            reference = build_runtime_param(descriptor)
            return reference._coerce_value(value, param=param, ctx=ctx)

    def _one(self, annotation: Any, value: Any, param: Any, ctx: Any) -> Any:
        if annotation is bool and isinstance(value, bool):
            return value
        if isinstance(value, str) and value and _utf8(value):
            if annotation is str:
                return value
            if annotation is int and _INT.fullmatch(value):
                return self._in_range(int(value))
            if annotation is float and _FLOAT.fullmatch(value):
                return self._in_range(float(value))
            if annotation is Path:
                info = self.parameter_info
                return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
        raise _NotPlain

    def _in_range(self, number: float) -> Any:
        info = self.parameter_info
        if info.clamp or (info.min is not None and number < info.min):
            raise _NotPlain
        if info.max is not None and number > info.max:
            raise _NotPlain
        return number


def _is_list(annotation: Any) -> bool:
    return get_origin(annotation) is list


def _utf8(value: str) -> bool:
    """Whether ``value`` holds only text (a command line may carry lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def plain(param: Any) -> None:
    """Give ``param`` (a typer argument or option) :class:`PlainValue` conversion when its
    annotation is plain; leave any other to typer."""
    if not isinstance(param, TyperArgument | TyperOption) or param._runtime_param is not None:
        return
    descriptor = param.type_descriptor
    annotation: Any = descriptor.annotation
    item = get_args(annotation)[0] if _is_list(annotation) else annotation
    info = descriptor.parameter_info
    if item not in _PLAIN or info.parser is not None or descriptor.file_annotation is not None:
        return
    if info.allow_dash or info.resolve_path or info.path_type is not None:
        return
    param._runtime_param = PlainValue(parameter_info=info, annotation=annotation)
