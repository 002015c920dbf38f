//! `--device gpu` on the authors' ImageNet layout in small: float16 true draws `[n, 1000]` and
//! float16 test items `[2, 1000, 1000]`, with more true draws than one group of draws' keys holds
//! (`rvalue_gpu::GROUP_BYTES`), so that the GPU ranks the split's calibration order in groups
//! of draws. `sets` writes the CPU's bytes, both tie orders (lavapipe here).
#![cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use rvalue_core::io::{write_npy_f16_bits, write_npy_i64};

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");

/// Seeded float16 scores in [1, 2) from 1,024 values: many ties among the true draws and with
/// the candidates.
fn bits(len: usize, salt: usize) -> Vec<u16> {
    (0..len).map(|i| 0x3c00 + ((i * 7919 + salt * 104_729) % 1024) as u16).collect()
}

#[test]
fn sets_on_the_gpu_in_groups_of_draws_are_the_cpus_bytes() {
    let (n_true, n_test, m, k) = (17_000usize, 2usize, 1000usize, 1000usize);
    assert!((n_true * m * 4) as u64 > rvalue_gpu::GROUP_BYTES, "one group of draws holds the pool");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pooled-layout-gpu");
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    std::fs::write(path("true.npy"), write_npy_f16_bits(&[n_true, m], &bits(n_true * m, 1))).unwrap();
    std::fs::write(path("test.npy"), write_npy_f16_bits(&[n_test, m, k], &bits(n_test * m * k, 2))).unwrap();
    let labels: Vec<i64> = (0..n_test).map(|i| (i * 389 % k) as i64).collect();
    std::fs::write(path("labels.npy"), write_npy_i64(&[n_test], &labels)).unwrap();
    let may_skip = std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1");
    for ties in ["exchangeable", "index"] {
        let sets = |device: &str| -> Option<Vec<u8>> {
            let out = path(&format!("sets_{ties}_{device}.csv"));
            let o = Command::new(BIN)
                .args(["sets", "--scores", &path("test.npy"), "--labels", &path("labels.npy")])
                .args(["--calibration-true", &path("true.npy"), "--method", "cp-r", "--rvalue", "pooled"])
                .args(["--alpha", "0.05", "--ties", ties, "--threads", "2", "--device", device])
                .args(["--output", &out])
                .output()
                .unwrap();
            if o.status.code() != Some(0) && may_skip && device == "gpu" {
                return None;
            }
            assert_eq!(o.status.code(), Some(0), "{device} {ties}: {}", String::from_utf8_lossy(&o.stderr));
            Some(std::fs::read(&out).unwrap())
        };
        let Some(gpu) = sets("gpu") else { return };
        let cpu = sets("cpu").unwrap();
        assert!(cpu.iter().filter(|&&b| b == b'\n').count() > n_test, "sets has rows");
        assert!(gpu == cpu, "{ties}: the GPU's sets differ from the CPU's");
    }
}
