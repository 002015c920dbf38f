"""One default r-value for every call, the stub's text in `help`, and `methods` as one name."""

import ast
import pickle
import pydoc

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import ASSETS, assert_rows_equal, csv_rows, run_cli

STUB = ast.parse((ASSETS.parent / "crates" / "python" / "rvalue_explorer.pyi").read_text())
DOCUMENTED = [n.name for n in STUB.body if isinstance(n, ast.FunctionDef)]


def test_calibrate_conformal_and_sets_share_the_clis_default(digits, tmp_path):
    scores, labels = digits
    cal = rx.calibrate(scores[:600], labels[:600])
    assert (cal.rvalue, cal.prior) == ("parametric", "pooled")
    explicit = rx.calibrate(scores[:600], labels[:600], rvalue="parametric", prior="pooled")
    assert np.array_equal(cal.predict(scores[600:]), explicit.predict(scores[600:]))
    want = csv_rows(run_cli("conformal", "--scores", ASSETS / "digits_wbb.npz", "--alpha", "0.1",
                            "--method", "cp-r", "--splits", "4", "--device", "cpu"))
    assert_rows_equal(rx.conformal(scores, labels, 0.1, methods="cp-r", splits=4), want)
    assert_rows_equal(rx.conformal(scores, labels, 0.1, methods=["cp-r"], splits=4, rvalue="parametric",
                                   prior="pooled"), want)
    mask = np.arange(len(labels)) < 450
    a = rx.sets(scores, labels, mask, methods="cp-r")
    b = rx.sets(scores, labels, mask, methods=["cp-r"], rvalue="parametric", prior="pooled")
    assert list(a) == list(b) and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("name", DOCUMENTED)
def test_help_shows_the_stubs_docstring(name):
    node = next(n for n in STUB.body if isinstance(n, ast.FunctionDef) and n.name == name)
    text = pydoc.render_doc(getattr(rx, name), renderer=pydoc.plaintext)
    # pydoc indents the docstring: compare its words.
    assert " ".join(ast.get_docstring(node).split()) in " ".join(text.split()), name
    for p in node.args.args + node.args.kwonlyargs:
        assert p.arg in text, f"{name}: parameter {p.arg}"


CALIBRATION = next(n for n in STUB.body if isinstance(n, ast.ClassDef) and n.name == "Calibration")


@pytest.mark.parametrize("name", [None] + [n.name for n in CALIBRATION.body if isinstance(n, ast.FunctionDef)])
def test_help_of_calibration_and_its_methods_is_the_stubs(name):
    node = CALIBRATION if name is None else next(n for n in CALIBRATION.body if getattr(n, "name", None) == name)
    shown = rx.Calibration if name is None else getattr(rx.Calibration, name)
    assert " ".join(shown.__doc__.split()) == " ".join(ast.get_docstring(node).split()), name


def test_help_shows_defaults_and_the_module_text():
    text = pydoc.render_doc(rx.calibrate, renderer=pydoc.plaintext)
    for default in ["alpha=0.1", "method='cp-r'", "rvalue='parametric'", "prior='pooled'", "ties='exchangeable'"]:
        assert default in text, default
    assert rx.__doc__ == ast.get_docstring(STUB)
    assert pickle.loads(pickle.dumps(rx.calibrate)) is rx.calibrate


def test_methods_is_one_name_or_several_and_a_bad_type_names_the_parameter(digits):
    scores, labels = digits
    one = rx.conformal(scores, labels, 0.1, methods="cp", splits=2)
    assert [r["method"] for r in one] == ["cp"]
    assert_rows_equal(one, rx.conformal(scores, labels, 0.1, methods=("cp",), splits=2))
    with pytest.raises(TypeError, match="methods"):
        rx.conformal(scores, labels, 0.1, methods=3, splits=2)
    with pytest.raises(TypeError, match="alpha"):
        rx.calibrate(scores[:600], labels[:600], alpha="0.1")
    with pytest.raises(ValueError, match="method"):
        rx.conformal(scores, labels, 0.1, methods="cp-x", splits=2)


def test_warnings_name_the_callers_line(digits):
    scores, labels = digits
    with pytest.warns(UserWarning) as seen:
        rx.conformal(scores, labels, 0.0001, methods="cp", splits=2)
    assert seen and all(w.filename == __file__ for w in seen), [w.filename for w in seen]
