#!/usr/bin/env bash
# Installs everything `make test` and `make serve` need, at pinned versions.
# Idempotent: each step checks first and skips what is already there, so `make` can run it every time.
# Fails loudly: any error stops the script with a message naming the step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# trunk 0.22 needs a newer rustc than our stable; --locked makes its dependency set reproducible.
TRUNK_VERSION='~0.21'
TRUNK_SERIES='0.21.'
# Debian bookworm's binaryen; Trunk.toml pins the same (`wasm_opt = "version_108"`).
WASM_OPT_VERSION='108'
APT_PACKAGES=(chromium chromium-driver mesa-vulkan-drivers binaryen)

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
die() { printf '\033[1;31msetup: error:\033[0m %s\n' "$*" >&2; exit 1; }
trap 'die "failed at line $LINENO: $BASH_COMMAND"' ERR

# wasm-bindgen's CLI must match the library version exactly (the wasm ABI changes between
# patch releases), so read the version from Cargo.lock rather than pinning it twice.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[[ -n "$WASM_BINDGEN_VERSION" ]] || die "no wasm-bindgen in Cargo.lock (run cargo generate-lockfile?)"
# Trunk runs offline and uses the system wasm-bindgen only if Trunk.toml names the same version.
grep -q "^wasm_bindgen = \"$WASM_BINDGEN_VERSION\"" Trunk.toml ||
  die "Trunk.toml [tools] wasm_bindgen must be \"$WASM_BINDGEN_VERSION\" (the version in Cargo.lock)"

# Another `cargo install` of the same tool (e.g. a provisioning job) would compile it a second
# time on a small machine; wait for it instead.
wait_for_other_install() {
  local pids
  while pids=$(pgrep -f "cargo install $1( |$)"); do
    say "another 'cargo install $1' is running (pid $(echo $pids)); waiting for it"
    sleep 10
  done
}

# --- 1. System packages: headless Chromium + its WebDriver, a software Vulkan driver (lavapipe,
#        so WebGPU/WebGL have a backend without a GPU) and binaryen's wasm-opt.
have_apt_packages() {
  command -v chromium >/dev/null && command -v chromedriver >/dev/null &&
    command -v wasm-opt >/dev/null && compgen -G '/usr/share/vulkan/icd.d/lvp_icd.*.json' >/dev/null
}
if have_apt_packages; then
  say "apt packages present: $(chromium --version 2>/dev/null | head -n1); wasm-opt $(wasm-opt --version | awk '{print $3}')"
else
  command -v apt-get >/dev/null || die "need ${APT_PACKAGES[*]} but apt-get is missing; install them by hand"
  SUDO=()
  [[ $EUID -eq 0 ]] || SUDO=(sudo)
  say "installing ${APT_PACKAGES[*]} with apt-get"
  "${SUDO[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
  have_apt_packages || die "apt-get finished but chromium/chromedriver/wasm-opt/lavapipe are still missing"
fi
# Trunk refuses a wasm-opt of another version when offline; say so now, not in the middle of a build.
wasm-opt --version | grep -q "version $WASM_OPT_VERSION\b" ||
  die "wasm-opt is '$(wasm-opt --version)', Trunk.toml expects version $WASM_OPT_VERSION"

# --- 2. The Rust wasm target.
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rust target wasm32-unknown-unknown present"
else
  say "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# --- 3. trunk (builds and serves the page).
wait_for_other_install trunk
if trunk --version 2>/dev/null | grep -q "^trunk $TRUNK_SERIES"; then
  say "$(trunk --version) present"
else
  say "installing trunk $TRUNK_VERSION (cargo install --locked; takes ~7 minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

# --- 4. wasm-bindgen-cli: wasm-bindgen for trunk, wasm-bindgen-test-runner for the wasm tests.
wait_for_other_install wasm-bindgen-cli
if [[ "$(wasm-bindgen --version 2>/dev/null)" == "wasm-bindgen $WASM_BINDGEN_VERSION" ]] &&
  command -v wasm-bindgen-test-runner >/dev/null; then
  say "wasm-bindgen-cli $WASM_BINDGEN_VERSION present"
else
  # No --locked: its lockfile pins a crate version the registry index no longer has.
  say "installing wasm-bindgen-cli =$WASM_BINDGEN_VERSION (cargo install; takes ~2 minutes)"
  cargo install wasm-bindgen-cli --version "=$WASM_BINDGEN_VERSION"
fi

# --- 5. playwright-core and axe-core for the browser end-to-end tests (e2e/), at the versions
#        e2e/package-lock.json pins (axe-core audits the page's accessibility). playwright drives
#        Debian's Chromium from step 1: it never downloads a browser of its own.
#        Node and npm come with the machine. npm writes node_modules/.package-lock.json on every
#        install, so a lock file newer than it means package-lock.json changed since.
command -v npm >/dev/null || die "npm is missing (the e2e tests need Node.js 20 and npm)"
if [[ -d e2e/node_modules/playwright-core && -d e2e/node_modules/axe-core && ! e2e/package-lock.json -nt e2e/node_modules/.package-lock.json ]]; then
  say "playwright-core $(node -p "require('./e2e/node_modules/playwright-core/package.json').version") present"
else
  say "installing e2e/ npm packages (npm ci: playwright-core, axe-core, no browser download)"
  npm ci --prefix e2e --no-audit --no-fund
fi

# --- 6. Python's venv module for `make test-python` (Debian ships it apart from python3); the
#        virtual environment and its pinned packages are the Makefile's.
command -v python3 >/dev/null || die "python3 is missing (make test-python needs Python 3.9 or newer)"
if python3 -c 'import venv, ensurepip' 2>/dev/null; then
  say "python3 $(python3 -c 'import platform; print(platform.python_version())') with venv present"
else
  command -v apt-get >/dev/null || die "python3 has no venv module and apt-get is missing; install python3-venv"
  SUDO=()
  [[ $EUID -eq 0 ]] || SUDO=(sudo)
  say "installing python3-venv with apt-get"
  "${SUDO[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y --no-install-recommends python3-venv
fi

say "ok"
