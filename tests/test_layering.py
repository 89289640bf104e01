"""The apps (the tools and the UI) import packages' public faces, not their internals
(docs/architecture.md).

import-linter states which package may import which; it cannot say "only through ``__all__``".
This test reads every module under ``aclog/tools`` with :mod:`ast` and each package's
``__init__.py`` the same way (nothing is imported, so pyspark is never loaded), and names every
``file:line`` that reaches past a face: ``aclog.<pkg>.<module>`` imported directly, or a name that
``aclog.<pkg>.__all__`` does not list. Tools importing other tools modules is fine, as is
``import aclog.<pkg>``; the same holds for ``aclog/ui`` and its own modules.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "aclog"
APPS = ("tools", "ui")
"""The packages held to the rule: each may import its own modules."""


@cache
def face(package: str) -> frozenset[str]:
    """The names ``aclog/<package>/__init__.py`` lists in ``__all__`` (a literal list)."""
    init = ROOT / package / "__init__.py"
    if not init.is_file():
        return frozenset()
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            value = ast.literal_eval(node.value)
            return frozenset(value)
    return frozenset()


def _violations_of(node: ast.Import | ast.ImportFrom, own: str) -> list[str]:
    """What one import statement reaches past a face, as messages (empty when it does not)."""
    if isinstance(node, ast.Import):
        modules = [alias.name for alias in node.names]
        return [
            f"import {name}: import the package aclog.{name.split('.')[1]} and use its face"
            for name in modules
            if _is_internal(name, own)
        ]
    if node.level or node.module is None:
        return []
    parts = node.module.split(".")
    if parts[0] != "aclog" or len(parts) < 2 or parts[1] == own:
        return []
    if len(parts) > 2:
        return [f"from {node.module} import ...: import from aclog.{parts[1]} (its __all__)"]
    missing = sorted(alias.name for alias in node.names if alias.name not in face(parts[1]))
    face_text = f"aclog.{parts[1]}.__all__"
    return [f"from {node.module} import {name}: not in {face_text}" for name in missing]


def _is_internal(module: str, own: str) -> bool:
    parts = module.split(".")
    return parts[0] == "aclog" and len(parts) > 2 and parts[1] != own


def face_violations(source: str, where: str, own: str = "tools") -> list[str]:
    """Every import in ``source`` that reaches past a package's face, as ``where:line: why``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found += [f"{where}:{node.lineno}: {why}" for why in _violations_of(node, own)]
    return found


@pytest.mark.parametrize("app", APPS)
def test_apps_import_only_public_faces(app: str) -> None:
    found = []
    for path in sorted((ROOT / app).rglob("*.py")):
        found += face_violations(path.read_text(), str(path.relative_to(ROOT.parent)), app)
    assert not found, f"{app} reaches past a package's face:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from aclog.log.segment import list_segments\n", ["x.py:1: from aclog.log.segment"]),
        ("import aclog.replay.rebuild\n", ["x.py:1: import aclog.replay.rebuild"]),
        ("def f():\n    from aclog.records import nope\n", ["x.py:2: from aclog.records import"]),
        ("from aclog.records import encode, decode\nimport aclog.log\n", []),
        ("from aclog.tools.common import something\nfrom . import sibling\n", []),
    ],
)
def test_the_check_catches_internals_and_allows_faces(source: str, expected: list[str]) -> None:
    found = face_violations(source, "x.py")
    assert len(found) == len(expected)
    for message, prefix in zip(found, expected, strict=True):
        assert message.startswith(prefix)


def test_faces_are_real() -> None:
    """Every name a face lists exists in its ``__init__`` (so the check reads real faces); a
    lazy face (:mod:`aclog.faces`) binds its names under ``if TYPE_CHECKING:``."""
    for init in sorted(ROOT.glob("*/__init__.py")):
        tree = ast.parse(init.read_text())
        lazy = [
            node
            for top in tree.body
            if isinstance(top, ast.If) and ast.unparse(top.test) == "TYPE_CHECKING"
            for node in top.body
        ]
        bound = {
            alias.asname or alias.name
            for node in [*tree.body, *lazy]
            if isinstance(node, ast.ImportFrom | ast.Import)
            for alias in node.names
        } | {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        assert face(init.parent.name) <= bound, f"{init}: __all__ lists unbound names"


MAX_MODULE_LINES = 400


def test_no_module_in_aclog_is_over_400_lines() -> None:
    """Modules stay small enough to read whole; a longer one is split by concept."""
    long = [
        f"{path.relative_to(ROOT.parent)}: {lines} lines"
        for path in sorted(ROOT.rglob("*.py"))
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    ]
    assert not long, f"split these by concept (at most {MAX_MODULE_LINES} lines):\n" + "\n".join(
        long
    )
