#!/usr/bin/env bash
# Writes the seeded files of the authors' ImageNet layout under target/pooled-bench/: a float16
# pool of true-label draws [40000, M] and float16 test items [T, M, 1000] with their labels,
# the same scores as `cargo bench -p rvalue-cli --bench pooled` times. Usage:
#   scripts/pooled_layout.sh [T=200] [M=1000]
set -euo pipefail
cd "$(dirname "$0")/.."
RVALUE_POOLED_GENERATE=1 RVALUE_POOLED_ITEMS="${1:-200}" RVALUE_POOLED_DRAWS="${2:-1000}" \
	cargo bench -p rvalue-cli --bench pooled
