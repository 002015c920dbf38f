"""`save_html`: one self-contained HTML file holding the explorer page, the data and the
settings, which a browser opens from disk with no network.

Part of the compiled module (its text is built in and run at import). The page's files are
built into the module too (``_page``); the checks of the inputs are the package's and the page's
own (``_report_query``), made before anything is written. In the file, the page's JavaScript
glue and a loader are one inline module script, allowed by its hash in the page's
Content-Security-Policy; the wasm, the data (an ``.npz``) and the settings (a link's query) are
base64 in ``<script type="application/octet-stream">`` blocks, which browsers never run and
which no text inside them can close.
"""

import base64
import hashlib
import io
import os
import re

import numpy as np

MAX_DATA_BYTES = 256 * 1024 * 1024

_native = None


def _bind(module):
    global _native
    _native = module


# save_html and report_inputs are documented in the stub (rvalue_explorer.pyi), whose text
# `help` shows (docs.py puts it on them).
def report_inputs(scores, labels=None, *, class_names=None, **settings):
    return inputs(scores, labels, class_names, settings, "a saved report", MAX_DATA_BYTES)


def inputs(scores, labels, class_names, settings, holder, limit):
    """report_inputs, with what holds the data and its limit in bytes, for the refusal."""
    if isinstance(scores, (str, os.PathLike)):
        # A path is mapped, not read: its size is checked before any of it is read.
        scores = np.load(scores, mmap_mode="r", allow_pickle=False)
    if getattr(getattr(scores, "dtype", None), "kind", None) in tuple("fiu"):
        _check_size(scores, labels, holder, limit)  # before a copy of scores too large to keep
    pairs = [(k, _text(v)) for k, v in settings.items()]
    names = None if class_names is None else [str(n) for n in class_names]
    query = _native._report_query(scores, labels, names, pairs)
    scores = np.asarray(scores)
    if scores.dtype not in (np.float16, np.float32, np.float64):
        scores = scores.astype(np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    _check_size(scores, labels, holder, limit)
    members = {"scores": np.ascontiguousarray(scores), "labels": labels}
    if names is not None:
        members["class_names"] = np.array(names, dtype=np.str_)
    buf = io.BytesIO()
    np.savez(buf, **members)
    return buf.getvalue(), query


def _check_size(scores, labels, holder, limit):
    size = scores.nbytes + getattr(labels, "nbytes", 0)
    if size > limit:
        raise ValueError(f"the data is {size / 2**20:.1f} MiB; {holder} holds at most {limit >> 20} MiB "
                         "(give the page the file instead, or fewer items)")


def _text(v):
    """A setting's value as a link writes it."""
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    return str(v)


def save_html(path, scores, labels=None, *, class_names=None, **settings):
    data, query = report_inputs(scores, labels, class_names=class_names, **settings)
    html = page_html(data, query.encode())
    with open(path, "wb") as f:
        for part in html:
            f.write(part)


def _b64(raw):
    return base64.b64encode(raw)


def _sha256(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# Runs after the glue in the same module script: the wasm from its block, as bytes (a page
# opened from disk cannot fetch), then the page as trunk's loader starts it.
LOADER = """
const text = document.getElementById('report-wasm').textContent;
const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(text) : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
await %s({ module_or_path: bytes });
"""


def page_html(data, query):
    """The report's file as a list of byte strings, to write one after the other."""
    page = _native._page()
    glue = page["script"]
    init = re.search(r"export\s*\{\s*initSync,\s*(\w+) as default\s*\};", glue)
    if init is None or re.search(r"</script|<!--", glue, re.I) or re.search(r"</style", page["style"], re.I):
        raise RuntimeError("the built page cannot be inlined (its script or style sheet changed form)")
    script = glue + LOADER % init.group(1)
    policy = ("default-src 'none'; script-src 'wasm-unsafe-eval' " + _sha256(script) +
              "; style-src " + _sha256(page["style"]) + "; img-src data: blob:; connect-src 'none'; "
              "object-src 'none'; base-uri 'none'; form-action 'none'")
    html = page["html"]
    html = re.sub(r'content="default-src[^"]*"', lambda _: f'content="{policy}"', html, count=1)
    html = re.sub(r'<script type="module">.*?</script>\s*', "", html, count=1, flags=re.S)
    html = re.sub(r'<link rel="(modulepreload|preload)"[^>]*>', "", html)
    head, body_end = html.split('<link rel="stylesheet" href="www/style.css" />', 1)
    body, tail = body_end.rsplit("</body>", 1)
    block = lambda id_: f'<script type="application/octet-stream" id="{id_}">'.encode()
    return [
        head.encode(), b"<style>", page["style"].encode(), b"</style>", body.encode(),
        block("report-settings"), _b64(query), b"</script>\n",
        block("report-data"), _b64(data), b"</script>\n",
        block("report-wasm"), _b64(page["wasm"]), b"</script>\n",
        b'<script type="module">', script.encode(), b"</script>\n</body>", tail.encode(),
    ]
