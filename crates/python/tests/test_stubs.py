"""The type stubs (rvalue_explorer.pyi) against the module: every function and method the
stubs declare exists, with the parameters of the compiled signature (names, order, kinds and
literal defaults). The keyword lists are written twice, in the Rust bindings and in the stubs, so
this is what keeps them the same."""

import ast
import inspect
from pathlib import Path

import rvalue_explorer

STUBS = Path(__file__).resolve().parents[1] / "rvalue_explorer.pyi"

KINDS = {
    "posonly": inspect.Parameter.POSITIONAL_ONLY,
    "args": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "kwonly": inspect.Parameter.KEYWORD_ONLY,
}


def stub_parameters(fn: ast.FunctionDef) -> list[tuple[str, inspect._ParameterKind, object]]:
    """(name, kind, default) of a stub's parameters; the default is `inspect.Parameter.empty`
    when there is none and `...` when the stub does not spell it."""
    a = fn.args
    out = []
    positional = [(p, "posonly") for p in a.posonlyargs] + [(p, "args") for p in a.args]
    defaults = [inspect.Parameter.empty] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for (p, kind), d in zip(positional, defaults):
        out.append((p.arg, KINDS[kind], d))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, KINDS["kwonly"], inspect.Parameter.empty if d is None else d))
    if a.kwarg is not None:
        out.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty))
    return [(n, k, default_value(d)) for n, k, d in out if n != "self"]


def default_value(d):
    if d is inspect.Parameter.empty:
        return d
    try:
        return ast.literal_eval(d)
    except ValueError:
        return ...


def declared():
    """(qualified name, stub) of every function and method the stubs declare."""
    tree = ast.parse(STUBS.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node, getattr(rvalue_explorer, node.name)
        elif isinstance(node, ast.ClassDef) and hasattr(rvalue_explorer, node.name):
            cls = getattr(rvalue_explorer, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    yield f"{node.name}.{item.name}", item, getattr(cls, item.name)


def test_every_stub_has_the_modules_signature():
    checked = 0
    for name, stub, runtime in declared():
        want = stub_parameters(stub)
        have = [
            (p.name, p.kind, p.default)
            for p in inspect.signature(runtime).parameters.values()
            if p.name != "self"
        ]
        assert [w[:2] for w in want] == [h[:2] for h in have], name
        for (pname, _, sd), (_, _, rd) in zip(want, have):
            # A default the stub spells must be the module's (the module's `...` is a default
            # computed in Rust, such as every method).
            if sd is not ... and rd is not ...:
                assert sd == rd, f"{name}({pname}): stub {sd!r}, module {rd!r}"
        checked += 1
    assert checked >= 8, checked


def typed_dict_keys(name: str, required: bool = False) -> list[str]:
    """The keys a TypedDict of the stubs declares, in order; with `required`, without the
    `NotRequired[...]` ones."""
    tree = ast.parse(STUBS.read_text())

    def optional(item):
        a = item.annotation
        return isinstance(a, ast.Subscript) and getattr(a.value, "id", None) == "NotRequired"

    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            items = [item for item in node.body if isinstance(item, ast.AnnAssign)]
            return [item.target.id for item in items if not (required and optional(item))]
    raise AssertionError(f"the stubs declare no {name}")


def test_summary_rows_and_records_have_the_stubs_keys():
    import numpy as np

    d = np.load(Path(__file__).resolve().parents[3] / "assets" / "digits_wbb.npz")
    rows = rvalue_explorer.conformal(d["scores"], d["labels"], 0.1, splits=2, methods=["cp"])
    assert list(rows[0]) == typed_dict_keys("SummaryRow", required=True)
    per_class = rvalue_explorer.conformal(d["scores"], d["labels"], 0.1, splits=2, methods=["aps"],
                                          coverage="per-class")
    assert list(per_class[0]) == typed_dict_keys("SummaryRow")
    assert list(rows[0]["size_strata"][0]) == typed_dict_keys("Stratum")
    records = rvalue_explorer.conformal(d["scores"], d["labels"], 0.1, splits=2, methods=["cp"], per_split=True)
    assert list(records[0]) == typed_dict_keys("SplitRecord")
