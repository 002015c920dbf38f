use super::*;
use crate::args::{parse_alpha, parse_hyper, parse_method};
use crate::device::Ranker;
use crate::inputs::methods_of;
use rvalue_core::conformal::{Method, Prepared, RvalueKind, ScoreOptions, SplitMetrics, SplitPlan};
use rvalue_core::eb::Hyper;
use rvalue_core::rvalue::HyperChoice;
use rvalue_gpu as gpu;

#[test]
fn command_definition_is_consistent() {
    use clap::CommandFactory;
    Cli::command().debug_assert();
}

#[test]
fn hyper_values() {
    assert_eq!(parse_hyper("estimate"), Ok(HyperChoice::Estimate));
    assert_eq!(parse_hyper(" 0.5, 2 "), Ok(HyperChoice::Fixed(Hyper { mu: 0.5, tau2: 2.0 })));
    assert!(parse_hyper("1,-1").unwrap_err().contains("τ²"));
    assert!(parse_hyper("1").is_err());
    assert!(parse_hyper("a,b").is_err());
}

#[test]
fn alpha_and_methods() {
    assert_eq!(parse_alpha("0.1"), Ok(0.1));
    assert!(parse_alpha("1.5").is_err() && parse_alpha("0").is_err() && parse_alpha("x").is_err());
    assert_eq!(parse_method("cp-avg"), Ok(Method::CpAvg));
    assert!(parse_method("lac").is_err());
    assert_eq!(methods_of(&[]).unwrap(), Method::PAPER);
    assert!(methods_of(&[Method::Cp, Method::Cp]).unwrap_err().0.contains("twice"));
}

#[test]
fn clap_errors_become_one_line() {
    let e = Cli::try_parse_from(["rvalue", "conformal", "--scores", "s.npy"]).unwrap_err();
    let m = clap_message(&e.render().to_string());
    assert!(!m.contains('\n') && m.contains("--alpha"), "{m}");
    let e = Cli::try_parse_from(["rvalue", "conformal", "--scores", "s", "--alpha", "1.5"]).unwrap_err();
    let m = clap_message(&e.render().to_string());
    assert!(m.contains("'1.5'") && m.contains("(0, 1)"), "{m}");
    assert_eq!(CliError("a\n  b\r\n".into()).to_string(), "a b");
}

/// A GPU that fails in the middle of a run (its device destroyed after opening): under
/// `auto` the CPU computes the splits instead and nothing changes; under `gpu` it is an
/// error. Needs an adapter (lavapipe), like the `gpu` module's tests.
#[cfg(feature = "gpu")]
#[test]
fn a_gpu_failing_mid_run_falls_back_to_the_cpu() {
    let g = match gpu::Gpu::new() {
        Ok(g) => g,
        Err(_) if std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1") => return,
        Err(e) => {
            panic!("no GPU adapter ({e}); install mesa-vulkan-drivers or set RVALUE_SKIP_GPU_TESTS=1")
        }
    };
    g.destroy_device();
    let (t, labels) = rvalue_core::samples::logits(40, 6, 5, 3).unwrap();
    let splits = SplitPlan::Random { count: 3, cal_fraction: 0.5, seed: 1 }.splits(t.n()).unwrap();
    let prep = Prepared::new(&t, &labels, false).unwrap();
    let keys = gpu::keys::Keys::of_tensor(&t);
    let mut ranker = Ranker { gpu: Some((g, keys)), required: false };
    for kind in [RvalueKind::Nonparametric, RvalueKind::Pooled] {
        let opts = ScoreOptions { kind, ..ScoreOptions::default() };
        let want: Vec<SplitMetrics> = prep
            .calibrate(Method::CpR, &opts, &splits)
            .unwrap()
            .iter()
            .map(|c| c.metrics(0.2, false))
            .collect();
        let mut got = Vec::new();
        let pass = Pass { t: &t, labels: &labels, order: None };
        for_each_split(&pass, &mut ranker, Method::CpR, &opts, &splits, 1, &mut Progress::new(), |c| {
            got.push(c.metrics(0.2, false))
        })
        .unwrap();
        assert_eq!(got, want, "{kind:?}");
        assert!(ranker.gpu.is_none(), "the failed GPU is dropped");
        // Put a failing GPU back for the next kind, this time required.
        let g = gpu::Gpu::new().unwrap();
        g.destroy_device();
        ranker.gpu = Some((g, gpu::keys::Keys::of_tensor(&t)));
    }
    ranker.required = true;
    let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
    let pass = Pass { t: &t, labels: &labels, order: None };
    let e = for_each_split(&pass, &mut ranker, Method::CpR, &opts, &splits, 1, &mut Progress::new(), |_| {})
        .unwrap_err();
    assert!(e.0.starts_with("GPU: "), "{}", e.0);
}

/// A GPU that fails while it ranks a streamed file's pooled CP_r: under `auto` the CPU ranks
/// every block from then on and the calibrations are the CPU's; under `gpu` it is an error.
#[cfg(feature = "gpu")]
#[test]
fn a_gpu_failing_on_streamed_pooled_blocks_falls_back_to_the_cpu() {
    use rvalue_core::conformal::streamed::{calibrate_streamed, Streaming};
    let failing = |required: bool| -> Option<streamed::GpuBlocks> {
        let g = match gpu::Gpu::new() {
            Ok(g) => g,
            Err(_) if std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1") => return None,
            Err(e) => {
                panic!("no GPU adapter ({e}); install mesa-vulkan-drivers or set RVALUE_SKIP_GPU_TESTS=1")
            }
        };
        g.destroy_device();
        streamed::GpuBlocks::of((Some(g), required))
    };
    let Some(auto) = failing(false) else { return };
    let (t, labels) = rvalue_core::samples::logits(40, 6, 5, 3).unwrap();
    let splits = SplitPlan::Random { count: 3, cal_fraction: 0.5, seed: 1 }.splits(t.n()).unwrap();
    let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
    let go = |ranker: Option<&streamed::GpuBlocks>| {
        let run = Streaming { block_bytes: 1, ..streamed::streaming(1, ranker) };
        let mut got = Vec::new();
        calibrate_streamed(
            &t,
            &labels,
            &[Method::CpR],
            &opts,
            &splits,
            &run,
            &mut |_, _, _| {},
            &mut |_, _, c| {
                got.push(c.metrics(0.2, false));
                Ok(())
            },
        )
        .map(|()| got)
    };
    assert_eq!(go(Some(&auto)).unwrap(), go(None).unwrap());
    let e = go(failing(true).as_ref()).unwrap_err();
    assert!(matches!(e, rvalue_core::Error::Gpu { .. }), "{e}");
}
