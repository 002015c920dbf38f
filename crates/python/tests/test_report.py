"""save_html: one self-contained HTML file of the page, the data and the settings. Bad input
raises as the package's other functions do and writes nothing; unknown settings raise
TypeError naming them; the file stays within its size bound; hostile class names survive the
file's data block (and the CLI's outputs on that data) exactly. The file drawn in Chromium:
e2e/report.test.mjs."""

import base64
import csv
import io
import json
import re
from urllib.parse import parse_qs

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import run_cli

HOSTILE = [
    '<img src=x onerror="window.__pwned=1;alert(1)">',
    "</script><script>window.__pwned=2;alert(2)</script>",
    '"><svg onload="window.__pwned=3;alert(3)">',
    'comma, "quote"\\ and \'apostrophe\'',
]


def blocks(path):
    """The base64 blocks of a report, decoded, by id."""
    text = path.read_text(encoding="utf-8")
    found = re.findall(r'<script type="application/octet-stream" id="([a-z-]+)">([A-Za-z0-9+/=]*)</script>', text)
    return {k: base64.b64decode(v) for k, v in found}


def test_a_report_holds_the_data_and_settings_and_keeps_a_policy(tmp_path, digits):
    scores, labels = digits
    path = tmp_path / "r.html"
    rx.save_html(path, scores, labels, alpha=0.2, rvalue="pooled", splits=3, item=5, panel="coverage",
                 never_empty=True)
    b = blocks(path)
    assert b["report-settings"].decode() == "alpha=0.2&kind=pooled&splits=3&item=5&embed=coverage&never-empty=1"
    d = np.load(io.BytesIO(b["report-data"]))
    assert np.array_equal(d["scores"], scores) and d["scores"].dtype == scores.dtype
    assert np.array_equal(d["labels"], labels)
    assert b["report-wasm"][:4] == b"\0asm"
    text = path.read_text(encoding="utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text).group(1)
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    assert "script-src 'wasm-unsafe-eval' 'sha256-" in policy and "default-src 'none'" in policy
    # One script runs: the module, allowed by its hash; nothing is loaded from anywhere.
    assert len(re.findall(r"<script type=\"module\">", text)) == 1
    assert not re.search(r"<(script|link)[^>]* (src|href)=\"(?!data:)", text)


def test_the_size_stays_within_its_bound(tmp_path, digits):
    scores, labels = digits
    path = tmp_path / "r.html"
    rx.save_html(path, scores, labels)
    data = scores.nbytes + labels.nbytes
    size = path.stat().st_size
    print(f"report of the digits sample: {size} bytes for {data} bytes of data")
    assert size <= 2.5e6 + 1.4 * data


def test_data_over_256_mib_is_refused_with_one_sentence(tmp_path):
    # A broadcast view: its nbytes are the array's, its memory a single float.
    big = np.broadcast_to(np.float32(0), (70_000, 10, 100))
    path = tmp_path / "big.html"
    with pytest.raises(ValueError, match=r"^the data is 26\d\.\d MiB; a saved report holds at most 256 MiB"):
        rx.save_html(path, big, np.zeros(70_000, dtype=np.int64))
    assert not path.exists()


@pytest.mark.parametrize("bad", [
    lambda s, l: (s.astype(str), l),
    lambda s, l: (s[:, 0, 0], l),
    lambda s, l: (np.where(np.arange(s.size).reshape(s.shape) == 7, np.nan, s), l),
    lambda s, l: (s, np.where(np.arange(len(l)) == 3, s.shape[2], l)),
    lambda s, l: (s, l[:-1]),
    lambda s, l: (s, None),
])
def test_bad_data_raises_the_packages_message_and_writes_nothing(tmp_path, digits, bad):
    scores, labels = bad(*digits)
    with pytest.raises(ValueError) as want:
        rx.conformal(scores, labels, splits=1, methods="cp")
    path = tmp_path / "bad.html"
    with pytest.raises(ValueError) as got:
        rx.save_html(path, scores, labels)
    assert str(got.value) == str(want.value)
    assert not path.exists()


def test_unknown_settings_raise_type_error_naming_them(tmp_path, digits):
    path = tmp_path / "r.html"
    with pytest.raises(TypeError, match=r"unknown settings: colour, mode, k;"):
        rx.save_html(path, *digits, alpha=0.1, colour="red", mode="toy", k=3)
    assert not path.exists()


@pytest.mark.parametrize("setting, why", [
    ({"alpha": 2}, "'alpha=2'"),
    ({"rvalue": "best"}, "'kind=best'"),
    ({"panel": "nope"}, "'embed=nope' is not a panel"),
    ({"name": "x" * 10_000}, "longer than 200 characters"),
    ({"name": "abc\u202egpj.npz"}, r"bidirectional control character \(U\+202E\)"),
])
def test_bad_setting_values_raise_value_error(tmp_path, digits, setting, why):
    path = tmp_path / "r.html"
    with pytest.raises(ValueError, match=why):
        rx.save_html(path, *digits, **setting)
    assert not path.exists()


@pytest.mark.parametrize("name, why", [
    ("x" * 10_000, "class_names: name 3 is longer than 200 characters"),
    ("abc\u202egpj", r"class_names: name 3 holds a bidirectional control character \(U\+202E\)"),
    ("a\nb", "class_names: name 3 holds a control character"),
])
def test_bad_class_names_are_refused_with_a_sentence(tmp_path, digits, name, why):
    names = [str(i) for i in range(10)]
    names[3] = name
    path = tmp_path / "r.html"
    with pytest.raises(ValueError, match=why):
        rx.save_html(path, *digits, class_names=names)
    assert not path.exists()


def test_hostile_names_round_trip_through_the_report_and_the_clis_outputs(tmp_path, digits):
    scores, labels = digits
    names = [HOSTILE[i % len(HOSTILE)] + f" {i}" for i in range(10)]
    path = tmp_path / "r.html"
    rx.save_html(path, scores, labels, class_names=names, name=HOSTILE[0])
    b = blocks(path)
    assert parse_qs(b["report-settings"].decode())["name"] == [HOSTILE[0]]
    data = tmp_path / "from_report.npz"
    data.write_bytes(b["report-data"])
    assert np.load(data)["class_names"].tolist() == names
    # The CLI reads the same file; its outputs carry no text from it (numbers and method names),
    # and they parse as CSV and JSON to the same numbers.
    args = ["--scores", data, "--alpha", "0.1", "--splits", "2", "--method", "cp", "--coverage", "per-class"]
    rows = list(csv.DictReader(io.StringIO(run_cli("conformal", *args))))
    records = json.loads(run_cli("conformal", *args, "--format", "json"))
    assert [r["method"] for r in rows] == [r["method"] for r in records] == ["cp"]
    assert float(rows[0]["coverage_mean"]) == records[0]["coverage_mean"]
    assert len(records[0]["class_coverage"]) == len(names)
