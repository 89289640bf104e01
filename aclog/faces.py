"""A lazy package face: ``from aclog.<pkg> import Name`` loads only the module that defines
``Name``, not every module the package holds (PEP 562).

A package's ``__init__`` lists its face once, as imports under ``if TYPE_CHECKING:`` (what
mypy and import-linter read), and ends with ``__getattr__ = lazy_face(__name__)``. The first
lookup of a name reads those import lines from the ``__init__`` source and imports the one
module that defines the name; the value is then stored on the package, so later lookups are
plain attribute reads. A face name that is also a submodule's name (``aclog.replay.diff``, the
function, in ``diff.py``) stays the face's value when the submodule is imported, as it was when
the ``__init__`` imported it eagerly. Why: a command that needs one name of
``aclog.controller`` should not pay for numpy, pyarrow and kafka-python that other modules of
the package import (issue 37, start-up).

Thread-safe: the import system's module locks serialise the imports; two threads that look
up the same name first store the same object. Cost: one parse of the ``__init__`` source
(about a millisecond) the first time a name of the package is looked up.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType

__all__ = ["lazy_face"]


@cache
def _defining_modules(package: str) -> dict[str, tuple[str, str]]:
    """Each name the package's ``if TYPE_CHECKING:`` block imports: the module it comes
    from and its name there (``import x as y`` gives ``y`` → (module, ``x``))."""
    init = sys.modules[package].__file__
    assert init is not None, package
    tree = ast.parse(Path(init).read_text(encoding="utf-8"))
    names: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                for alias in statement.names:
                    names[alias.asname or alias.name] = (statement.module, alias.name)
    return names


class _Face(ModuleType):
    """A package with a lazy face: importing a submodule does not bind its name over a face
    name (the import system binds ``package.sub`` to the submodule after loading it)."""

    def __setattr__(self, name: str, value: object) -> None:
        shadows = isinstance(value, ModuleType) and value.__name__ == f"{self.__name__}.{name}"
        if shadows and name in _defining_modules(self.__name__):
            return
        super().__setattr__(name, value)


def lazy_face(package: str) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package``: a name of its face, imported on first use;
    any other name raises :class:`AttributeError` as a missing attribute does."""
    sys.modules[package].__class__ = _Face

    def __getattr__(name: str) -> object:
        found = _defining_modules(package).get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, original = found
        value = getattr(importlib.import_module(module), original)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
