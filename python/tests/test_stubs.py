"""The stubs (memplan/_memplan.pyi) tell the truth: they name exactly what the native module
has (functions, classes, each class's methods and properties), with the same parameters."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import memplan
from memplan import _memplan

STUB = Path(memplan.__file__).with_name("_memplan.pyi")


def stub_tree():
    tree = ast.parse(STUB.read_text())
    functions, classes, variables = {}, {}, set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = [a.arg for a in node.args.args]
        elif isinstance(node, ast.ClassDef):
            members = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members[item.name] = [a.arg for a in item.args.args]
            classes[node.name] = members
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if not node.target.id.startswith("_") or node.target.id == "__version__":
                variables.add(node.target.id)
    return functions, classes, variables


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_the_package_ships_stubs_and_py_typed():
    assert STUB.is_file()
    assert Path(memplan.__file__).with_name("py.typed").is_file()


def test_stubs_name_what_the_module_has():
    functions, classes, variables = stub_tree()
    module = {name for name in dir(_memplan) if not name.startswith("__") or name == "__version__"}
    stubbed = set(functions) | set(classes) | variables
    assert stubbed == module


def test_stub_functions_have_the_modules_parameters():
    functions, _, _ = stub_tree()
    for name, params in functions.items():
        actual = list(inspect.signature(getattr(_memplan, name)).parameters)
        assert params == actual, name


def test_stub_classes_have_the_modules_members():
    _, classes, _ = stub_tree()
    for name, members in classes.items():
        cls = getattr(_memplan, name)
        has = vars(cls)
        actual = public(has) | ({"__len__"} & set(has)) | ({"__init__"} if "__new__" in has else set())
        assert set(members) == actual, name
        for member, params in members.items():
            if member.startswith("__") or isinstance(has[member], property) or inspect.isdatadescriptor(has[member]):
                continue
            actual_params = list(inspect.signature(getattr(cls, member)).parameters)
            assert params == actual_params, f"{name}.{member}"


def test_the_package_exports_what_it_lists():
    for name in memplan.__all__:
        assert hasattr(memplan, name), name
