//! The bundled samples a link may name ([`SAMPLES`]), and those the page makes rather than downloads ([`SYNTHETIC_CIFAR`], [`SYNTHETIC_TOY`]):
//! neither ships as a file, which keeps the page's bundle small.

use rvalue_core::io::Dataset;
use rvalue_core::toy::{self, ToyParams};
use rvalue_core::Result;

/// The bundled samples a link may name: files under the app's `assets/`, and `toy` and `cifar`,
/// made in the page (the toy's first repeat, a CIFAR-100-shaped tensor). A closed list, so a
/// link cannot make the page fetch an arbitrary path.
pub const SAMPLES: [&str; 5] =
    ["digits_wbb.npz", "clip_paraphrases.npz", "small_long.csv", SYNTHETIC_TOY, SYNTHETIC_CIFAR];
/// The CIFAR-100-shaped sample, generated in the page rather than fetched.
pub const SYNTHETIC_CIFAR: &str = "cifar";
/// The toy's first repeat at its defaults, simulated in the page.
pub const SYNTHETIC_TOY: &str = "toy";

/// The sample named `name`, with the label the page shows: the benchmarks' seeded
/// CIFAR-100-shaped logits ([`rvalue_core::samples::cifar_like`], a large input), or the toy's
/// first repeat at its defaults ([`toy::simulate`]) as an upload, so that pooled r-values and
/// random splits apply to it. `None` for a name that is not a made sample (a bundled file).
pub fn synthetic(name: &str) -> Option<(&'static str, Result<Dataset>)> {
    let (label, made) = match name {
        SYNTHETIC_TOY => ("toy defaults, repeat 1 (seed 1)", toy::simulate(&ToyParams::default(), 0)),
        SYNTHETIC_CIFAR => ("synthetic CIFAR-100 shape (seed 1)", Ok(rvalue_core::samples::cifar_like(1))),
        _ => return None,
    };
    Some((label, made.map(|(scores, labels)| Dataset { scores, labels: Some(labels), single_draw: false })))
}

#[cfg(test)]
mod tests;
