"""`explore`: the explorer page inline in a notebook, as an anywidget.

Part of the compiled module (its text is built in and run at import). The widget's view is an
iframe whose document is the file `save_html` writes (the page's JavaScript and wasm, the
settings, its Content-Security-Policy) but with an empty data block: the data goes to the browser
as a binary buffer of the widget's state, which the page takes from its frame (as base64 text,
half a gigabyte would not fit in one JavaScript string). No file, no server, nothing fetched. The browser side (``_widget_esm``) moves the page's
sliders as a reader would and reports the positions back; the scales between positions and
values are the page's own (``_slider_position``, ``_slider_value``), so ``w.alpha`` is always
a value the slider shows.
"""

MAX_WIDGET_BYTES = 512 * 1024 * 1024
SLIDERS = ("alpha", "beta", "sigma2")
# The method options: attribute, the page's control (its id), the values its menu offers.
OPTIONS = {
    "rvalue": ("kind", ("parametric", "nonparametric", "pooled")),
    "prior": ("prior", ("pooled", "per-item")),
    "variance": ("variance", ("per-draw", "of-mean")),
    "ties": ("ties", ("exchangeable", "index")),
    "coverage": ("coverage", ("marginal", "per-class")),
    "never_empty": ("never-empty", (False, True)),
}

_native = None
_report = None
_class = None


def _bind(module, report):
    global _native, _report
    _native, _report = module, report


# explore is documented in the stub (rvalue_explorer.pyi), whose text `help` shows.
def explore(scores, labels=None, *, class_names=None, **settings):
    try:
        import anywidget  # noqa: F401  (the optional extra; imported only when asked for)
    except ImportError as e:
        raise ImportError("explore needs anywidget: pip install 'rvalue-explorer[notebook]'") from e
    try:
        data, query = _report.inputs(scores, labels, class_names, settings, "explore", MAX_WIDGET_BYTES)
    except TypeError as e:
        raise TypeError(str(e).replace("save_html()", "explore()")) from None
    html = b"".join(_report.page_html(b"", query.encode()))
    w = _widget_class()(_html=html, _data=data)
    w._query = query
    return w


def _widget_class():
    """The widget's class, made on first use so that importing the package needs no anywidget."""
    global _class
    if _class is None:
        _class = _make_class()
    return _class


def _make_class():
    import anywidget
    import traitlets as t

    def _option(name):
        return t.Enum(OPTIONS[name][1], None, allow_none=True)

    class Explorer(anywidget.AnyWidget):
        """The explorer page on a notebook's data; ``alpha``, ``beta``, ``sigma2`` and the
        method options follow its controls both ways, ``summary`` is panel 6's rows."""

        _esm = _native._widget_esm
        _html = t.Bytes().tag(sync=True)
        _data = t.Bytes().tag(sync=True)
        # Slider positions, set by either side: the page's state.
        _positions = t.Dict().tag(sync=True)
        # The method options by the page's control ids, set by either side.
        _options = t.Dict().tag(sync=True)
        _summary = t.List().tag(sync=True)
        alpha = t.Float(None, allow_none=True).tag(sync=False)
        beta = t.Float(None, allow_none=True).tag(sync=False)
        sigma2 = t.Float(None, allow_none=True).tag(sync=False)
        rvalue = _option("rvalue")
        prior = _option("prior")
        variance = _option("variance")
        ties = _option("ties")
        coverage = _option("coverage")
        never_empty = _option("never_empty")

        @t.observe(*OPTIONS)
        def _option_set(self, change):
            control = OPTIONS[change["name"]][0]
            if change["new"] is not None and self._options.get(control) != change["new"]:
                self._options = {**self._options, control: change["new"]}

        @t.observe("_options")
        def _options_set(self, change):
            for name, (control, _) in OPTIONS.items():
                value = change["new"].get(control)
                if value is not None and getattr(self, name) != value:
                    setattr(self, name, value)

        @t.observe(*SLIDERS)
        def _value_set(self, change):
            if change["new"] is None:
                return
            p = _native._slider_position(change["name"], change["new"])
            if self._positions.get(change["name"]) != p:
                self._positions = {**self._positions, change["name"]: p}
            snapped = _native._slider_value(change["name"], p)
            if snapped != change["new"]:
                setattr(self, change["name"], snapped)

        @t.observe("_positions")
        def _positions_set(self, change):
            for name, p in change["new"].items():
                if name in SLIDERS:
                    value = _native._slider_value(name, int(p))
                    if getattr(self, name) != value:
                        setattr(self, name, value)

        @property
        def summary(self):
            """Panel 6's rows at the current settings, one dict per method (keys are the
            table's column heads), as the page shows them."""
            return [dict(row) for row in self._summary]

        def save_html(self, path):
            """Writes this widget's page (data and settings as given) as one HTML file."""
            with open(path, "wb") as f:
                for part in _report.page_html(self._data, self._query.encode()):
                    f.write(part)

    return Explorer
