"""explore: the widget's state and its refusals. Its page is the file save_html writes; the
sliders' values are the page's scale (a value set snaps to the position a link would give).
The widget shown in a real JupyterLab, both ways: e2e/notebook.test.mjs."""

import base64
import io
import re

import numpy as np
import pytest

import rvalue_explorer as rx

DATA = re.compile(rb'(<script type="application/octet-stream" id="report-data">)([A-Za-z0-9+/=]*)')


def without_data(html):
    """The page with its data block emptied, and the block's bytes."""
    found = DATA.search(html)
    return DATA.sub(rb"\1", html, count=1), base64.b64decode(found.group(2))


def same_npz(a, b):
    """Same members, same arrays (an .npz's bytes hold the time it was written)."""
    a, b = np.load(io.BytesIO(a)), np.load(io.BytesIO(b))
    return sorted(a.files) == sorted(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)


def test_the_widget_holds_the_report_save_html_writes(tmp_path, digits):
    scores, labels = digits
    w = rx.explore(scores, labels, alpha=0.2, panel="coverage")
    path = tmp_path / "r.html"
    rx.save_html(path, scores, labels, alpha=0.2, panel="coverage")
    w.save_html(tmp_path / "w.html")
    ours, theirs = (without_data(p.read_bytes()) for p in (tmp_path / "w.html", path))
    assert ours[0] == theirs[0] and same_npz(ours[1], theirs[1])
    # The page's data goes as the widget's buffer, its block left empty.
    assert without_data(w._html)[1] == b"" and same_npz(w._data, theirs[1])
    assert w.summary == []  # no page has drawn it yet


def test_slider_values_move_positions_and_snap_as_the_page_does(digits):
    w = rx.explore(*digits)
    w.alpha = 0.2
    assert w._positions == {"alpha": 40} and w.alpha == 0.2
    w.alpha = 0.123
    assert w._positions["alpha"] == 25 and w.alpha == 0.125
    w.sigma2 = 1000
    assert w._positions["sigma2"] == 161 and w.sigma2 == 1000
    w.beta = 0.1
    assert w._positions["beta"] == 133 and w.beta == 0.1
    # The page's side: a position the reader moved to reads back as the value it shows.
    w._positions = {**w._positions, "alpha": 41, "beta": 0}
    assert (w.alpha, w.beta) == (0.205, 0.001)


def test_bad_input_raises_as_save_html_does_and_makes_no_widget(digits):
    scores, labels = digits
    with pytest.raises(ValueError, match="NaN|nan|finite"):
        bad = scores.copy()
        bad[0, 0] = np.nan
        rx.explore(bad, labels)
    with pytest.raises(ValueError):
        rx.explore(scores, labels + 100)
    with pytest.raises(TypeError, match=r"explore\(\).*nope"):
        rx.explore(scores, labels, nope=1)


def test_data_over_the_limit_is_refused_in_one_sentence(digits):
    # A broadcast view reports the size of the array it stands for without holding it.
    big = np.broadcast_to(np.float64(-1.0), (8 * 2**20, 9))
    with pytest.raises(ValueError, match="explore holds at most 512 MiB"):
        rx.explore(big, np.zeros(8 * 2**20, dtype=np.int64))


def test_a_path_is_mapped_and_shown_as_the_array(tmp_path, digits):
    scores, labels = digits
    np.save(tmp_path / "s.npy", scores)
    assert same_npz(rx.explore(tmp_path / "s.npy", labels)._data, rx.explore(scores, labels)._data)


def test_method_options_go_both_ways_by_the_pages_control_ids(digits):
    import traitlets

    w = rx.explore(*digits)
    w.rvalue = "pooled"
    w.never_empty = True
    assert w._options == {"kind": "pooled", "never-empty": True}
    with pytest.raises(traitlets.TraitError):
        w.rvalue = "best"
    w._options = {**w._options, "kind": "nonparametric", "coverage": "per-class"}
    assert (w.rvalue, w.coverage, w.never_empty) == ("nonparametric", "per-class", True)
