# rvalue-explorer: `make serve` to try it in a browser, `make test` to check everything.
# Each target that needs tools runs scripts/setup.sh first; it skips what is installed.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := test

# The wasm tests run in headless Chromium, driven by wasm-bindgen-test-runner via chromedriver.
# The runner picks the first driver named by *_REMOTE, then GECKODRIVER / SAFARIDRIVER /
# CHROMEDRIVER, then whatever is on PATH: unset the others so it is always Chromium.
# Browser flags live in webdriver.json (chromedriver gives each session a fresh temp profile).
# The timeout is generous because a cold Chromium on a busy 2-core machine is slow.
# The runner stops chromedriver without ending the session, so each run leaves its ~9 MB temp
# profile behind: point TMPDIR at a directory under target/ that test-wasm wipes first.
WASM_TEST_TMP := $(CURDIR)/target/wasm-test-tmp
WASM_TEST_ENV := env \
	-u GECKODRIVER -u SAFARIDRIVER -u MSEDGEDRIVER \
	-u GECKODRIVER_REMOTE -u SAFARIDRIVER_REMOTE -u CHROMEDRIVER_REMOTE -u MSEDGEDRIVER_REMOTE \
	-u NO_HEADLESS -u WASM_BINDGEN_TEST_ADDRESS \
	CHROMEDRIVER=/usr/bin/chromedriver \
	WASM_BINDGEN_TEST_WEBDRIVER_JSON=$(CURDIR)/webdriver.json \
	WASM_BINDGEN_TEST_TIMEOUT=300 \
	TMPDIR=$(WASM_TEST_TMP)

.PHONY: setup serve test test-native python-venv wheel test-python test-wasm test-page test-e2e build bench bench-wasm bench-page fmt clippy

setup:
	./scripts/setup.sh

# Builds the page (optimised, as measured: a debug build analyses about five times slower) and
# serves it on http://127.0.0.1:8080/, rebuilding on changes (Trunk.toml); reload by hand.
serve: setup
	trunk serve --release

# Native tests of every crate (lib, bins, integration tests, doc tests), the Python package's,
# the page's, the web crate's, the core's, the model's and the GPU crate's tests compiled to
# wasm in headless Chromium (the CLI is native only), then a dev build of the page and the
# browser tests on it.
test: setup
	$(MAKE) --no-print-directory test-native test-python test-wasm test-e2e

# The core's optional `ndarray` conversions are off in every build above; their tests run here.
test-native:
	cargo test --workspace
	cargo test -p rvalue-core --features ndarray --lib tensor::

# The Python package (crates/python) in a virtual environment under target/: pinned maturin,
# numpy, pytest, tqdm, dask[distributed], scikit-learn, mkdocs (e2e/mkdocs.test.mjs serves the
# README's MkDocs site with it), anywidget and jupyterlab (e2e/notebook.test.mjs runs `explore` in
# it); pip skips what is there. `make wheel` builds the
# package once, in release mode, as an abi3 wheel (one wheel for every CPython from 3.9) into
# target/wheels/; test-python installs that very wheel in the venv, as a colleague would, and
# runs its pytest suite, which compares its numbers with the rvalue binary built here, runs
# examples/dask_splits.py on a two-process LocalCluster and installs the wheel again in a fresh
# venv of its own (RVALUE_WHEEL).
PY_VENV := $(CURDIR)/target/python-venv
PY_PACKAGES := 'maturin==1.16.0' 'numpy==2.4.6' 'pytest==9.2.0' 'tqdm==4.70.1' 'dask[distributed]==2026.8.0' \
	'scikit-learn==1.9.1' 'mapie==1.6.0' 'mkdocs==1.6.1' 'anywidget==0.11.0' 'jupyterlab==4.6.6'
PIP := $(PY_VENV)/bin/pip --disable-pip-version-check --quiet
WHEELS := $(CURDIR)/target/wheels

python-venv:
	[[ -x $(PY_VENV)/bin/python ]] || python3 -m venv $(PY_VENV)
	$(PIP) install $(PY_PACKAGES)

# The directory is emptied first, so that it holds exactly this build's wheel. The page is built
# first: the wheel carries it for save_html (crates/python/build.rs reads dist/).
wheel: python-venv test-page
	rm -f $(WHEELS)/rvalue_explorer-*.whl
	$(PY_VENV)/bin/maturin build --release --manifest-path crates/python/Cargo.toml \
		--interpreter $(PY_VENV)/bin/python --out $(WHEELS)

test-python: wheel
	cargo build --release --bin rvalue
	$(PIP) install --no-deps --force-reinstall $(WHEELS)/rvalue_explorer-*.whl
	RVALUE_BIN=$(CURDIR)/target/release/rvalue RVALUE_WHEEL=$$(ls $(WHEELS)/rvalue_explorer-*.whl) \
		$(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider crates/python/tests

test-wasm:
	rm -rf $(WASM_TEST_TMP) && mkdir -p $(WASM_TEST_TMP)
	$(WASM_TEST_ENV) cargo test --target wasm32-unknown-unknown -p rvalue-explorer -p rvalue-core -p rvalue-model -p rvalue-plot -p rvalue-gpu -p rvalue-wasm-api -p rvalue-web --lib --tests

# An optimised build of the page into dist/ (the browser tests run the default toy analysis,
# which a debug build makes ten times slower).
test-page:
	trunk build --release

# Browser end-to-end tests (e2e/*.test.mjs): node's test runner drives Debian's Chromium through
# playwright-core (scripts/setup.sh installs it) against the dist/ that test-page just built.
# The TAP reporter, whatever stdout is, so the log always ends with `# pass N` / `# fail N`;
# node exits non-zero when a test fails, and so does make. The shell glob (not a directory
# argument) works with node 20 and newer alike. e2e/pool.test.mjs compares the page with the
# release `rvalue`; e2e/api-node.test.mjs runs the API module in Node itself, beside that binary
# and the Python package test-python installed (saved calibrations go both ways);
# e2e/mkdocs.test.mjs serves the README's MkDocs site with the venv's mkdocs, and
# e2e/notebook.test.mjs runs `explore` in the venv's JupyterLab (RVALUE_SKIP_NOTEBOOK=1 skips it).
test-e2e: test-page python-venv
	@[[ -d e2e/node_modules/playwright-core ]] || { echo 'test-e2e: run make setup first (npm ci in e2e/)' >&2; exit 1; }
	cargo build --release --bin rvalue
	node --test --test-reporter=tap e2e/*.test.mjs

# Optimised page in dist/, and the JavaScript API alone in dist/api/ (a hook in Trunk.toml).
build: setup
	trunk build --release

# Native benchmarks (the core, the explorer's steps, the GPU kernels against their CPU twins,
# whole `rvalue` commands as one process each, with their peak memory; pooled CP_r on the
# authors' ImageNet layout, beside their procedure when RVALUE_AUTHORS_DIR names it and
# target/authors-venv holds numpy and numba), then the same core workloads as optimised wasm in headless Chromium, then the page's own speed
# in headless Chromium.
bench: setup
	cargo bench -p rvalue-bench --bench core
	cargo bench -p rvalue-model --bench explorer
	cargo bench -p rvalue-gpu --bench gpu
	cargo bench -p rvalue-cli --bench commands
	cargo bench -p rvalue-cli --bench big
	cargo bench -p rvalue-cli --bench pooled
	$(MAKE) --no-print-directory bench-wasm
	$(MAKE) --no-print-directory bench-page

bench-wasm:
	rm -rf $(WASM_TEST_TMP) && mkdir -p $(WASM_TEST_TMP)
	$(WASM_TEST_ENV) RUSTFLAGS='--cfg rvalue_bench -C target-feature=+simd128' CARGO_TARGET_DIR=target/bench-wasm \
		cargo test -p rvalue-explorer --release --target wasm32-unknown-unknown --test wasm_bench -- --nocapture

# Speed figures of the optimised page in dist/ (e2e/bench.mjs, Debian's Chromium through
# playwright-core): cold loads (first panel drawn and painted, gzipped transfer size), α slider
# from a real click to the painted frame on the synthetic CIFAR-100-shaped pooled results and the
# toy defaults (with Chromium's Event Timing as a cross-check), toy re-analysis after a parameter
# change, sample load times.
# It prints figures and asserts none; it fails on page errors or a step that never finishes.
# About three minutes.
bench-page: test-page
	@[[ -d e2e/node_modules/playwright-core ]] || { echo 'bench-page: run make setup first (npm ci in e2e/)' >&2; exit 1; }
	node e2e/bench.mjs

fmt:
	cargo fmt --all

# Both targets: the bins and tests have wasm-only code paths (the API crate is wasm only). The
# command line (crates/cli) is native only, so the wasm pass names the packages that run in the page.
clippy:
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy -p rvalue-core --features ndarray --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown -p rvalue-explorer -p rvalue-core -p rvalue-model -p rvalue-plot -p rvalue-gpu -p rvalue-wasm-api -p rvalue-web --lib --bins --tests -- -D warnings
