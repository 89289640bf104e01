"""The lazy package faces (:mod:`aclog.faces`): ``from aclog.<pkg> import Name`` gives what the
defining module defines, whichever submodules were imported before, and a name that is not on
the face is an ordinary AttributeError."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

from aclog.faces import _defining_modules
from tests.fresh_interpreter import fresh_output

ROOT = Path(__file__).resolve().parents[1]
LAZY = sorted(
    path.parent.name
    for path in (ROOT / "aclog").glob("*/__init__.py")
    if "lazy_face(__name__)" in path.read_text()
)


def test_the_packages_a_command_reads_through_are_lazy() -> None:
    read_through = {"controller", "desired", "image", "kraft", "log", "questions", "replay"}
    assert read_through <= set(LAZY)


@pytest.mark.parametrize("package", LAZY)
def test_every_name_of_a_lazy_face_is_the_defining_modules_value(package: str) -> None:
    face = importlib.import_module(f"aclog.{package}")
    table = _defining_modules(face.__name__)
    assert set(face.__all__) <= set(table) | set(vars(face)), package
    # every submodule imported first: one named like a face name must not take its place
    for info in pkgutil.iter_modules(face.__path__):
        importlib.import_module(f"{face.__name__}.{info.name}")
    for name, (module, original) in table.items():
        assert getattr(face, name) is getattr(importlib.import_module(module), original), name


def test_a_submodule_named_like_a_face_name_does_not_replace_it() -> None:
    probe = (
        "import types, aclog.replay.diff, aclog.questions.reach; "
        "from aclog.replay import diff; from aclog.questions import reach; "
        "print(isinstance(diff, types.ModuleType), isinstance(reach, types.ModuleType), "
        "diff.__module__, reach.__module__)"
    )
    assert _run(probe) == ["False", "False", "aclog.replay.diff", "aclog.questions.reach"]


def test_a_name_not_on_the_face_is_a_plain_attribute_error() -> None:
    face = importlib.import_module("aclog.controller")
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchName'"):
        face.NoSuchName  # noqa: B018
    with pytest.raises(ImportError, match="cannot import name 'NoSuchName'"):
        exec("from aclog.controller import NoSuchName", {})


def test_one_name_loads_its_module_not_the_package() -> None:
    probe = (
        "import sys; from aclog.controller import CLUSTER_NAME; "
        "print(CLUSTER_NAME, 'aclog.controller.controller' in sys.modules, 'numpy' in sys.modules)"
    )
    assert _run(probe) == ["kafka-cluster", "False", "False"]


def _run(probe: str) -> list[str]:
    """The words ``probe`` prints, run in a fresh interpreter (nothing imported yet)."""
    return fresh_output(probe).split()
