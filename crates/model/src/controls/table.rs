//! The one table of the page's controls: for each setting of [`Controls`], its key (the link's
//! parameter and the form element's id alike), its name in messages, how the page shows it and
//! which values it takes. Links ([`crate::url`]), the page's reading and writing of its form and
//! the workers' messages (which are links) are all derived from [`CONTROLS`], so a setting is
//! added, renamed or re-ranged in one place. The defaults are [`Controls::default`]'s.
//!
//! A control reads and writes its value as text: the text a link holds and a form element shows.
//! Numbers are written with Rust's shortest round-trip formatting, so a value read back from its
//! text is the same `f64` bit for bit.

use super::{Controls, Mode, ALPHA_RANGE, BETA_RANGE, SIGMA2_RANGE};
use crate::scales;
use crate::CutFrom;
use rvalue_core::conformal::{Coverage, Prior, RvalueKind};
use rvalue_core::options::{self, Choice};
use rvalue_core::probability::ScoresAre;
use rvalue_core::rvalue::{Algorithm, LambdaRule, TieOrder};
use rvalue_core::tensor::VarianceKind;
use std::fmt;

/// How the page shows a control.
#[derive(Debug, Clone, Copy)]
pub enum Input {
    /// A range input whose integer positions map to values (and back) through a scale of
    /// [`scales`]; its readout is the element `{key}-value`; `page` is where PageUp (`true`)
    /// and PageDown take a position.
    Slider { at: fn(u32) -> f64, position: fn(f64) -> u32, page: fn(u32, bool) -> u32 },
    /// An `<input type="number">`.
    Number,
    /// A `<select>` of the option's names.
    Select,
    /// A checkbox: checked is the value `1`.
    Checkbox,
    /// One radio button per value, with ids `{key}-{name}`.
    Radio,
    /// No element: the setting is only ever set by a link.
    LinkOnly,
}

/// The values a control takes.
#[derive(Debug, Clone, Copy)]
pub enum Range {
    /// A finite number in `[lo, hi]`, or in `(lo, hi)` when `open`.
    Real { lo: f64, hi: f64, open: bool },
    /// A whole number at least `min`.
    AtLeast(usize),
    /// Any whole number (a seed, an index).
    Whole,
    /// One of the option's names.
    Choice(fn() -> Vec<&'static str>),
    /// `1` or `0`.
    Flag,
}

/// Why a text is not a value of a control, phrased to follow the text ("'2' is outside …").
#[derive(Debug, Clone)]
pub enum Problem {
    NotNumber,
    Outside(Range),
    TooSmall(usize),
    NotOneOf(Vec<&'static str>),
    NotFlag,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotNumber => write!(f, "is not a valid number"),
            Problem::Outside(Range::Real { lo, hi, open: true }) => write!(f, "is outside ({lo}, {hi})"),
            Problem::Outside(Range::Real { lo, hi, .. }) => write!(f, "is outside [{lo}, {hi}]"),
            Problem::Outside(_) => write!(f, "is out of range"),
            Problem::TooSmall(min) => write!(f, "must be at least {min}"),
            Problem::NotOneOf(names) => write!(f, "is not one of {}", names.join(", ")),
            Problem::NotFlag => write!(f, "is neither 1 nor 0"),
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Control {
    /// The link's parameter and the id of the form's element (radio buttons: its prefix).
    pub key: &'static str,
    /// The setting's name in messages ("α", "n_cal").
    pub name: &'static str,
    pub input: Input,
    pub range: Range,
    /// The mode whose section of the form holds the control (`None`: both). A control of the
    /// other mode is kept, and checked, but does not apply.
    pub mode: Option<Mode>,
    text: fn(&Controls) -> String,
    set: fn(&mut Controls, &str) -> Result<(), Problem>,
    check: fn(&Controls) -> Result<(), Problem>,
    real: fn(&Controls) -> Option<f64>,
}

impl Control {
    /// The value in `c`, as a link and the form write it.
    pub fn text(&self, c: &Controls) -> String {
        (self.text)(c)
    }

    /// Sets the value `text` stands for, if it is one of the control's values; `c` is left
    /// unchanged otherwise.
    pub fn set(&self, c: &mut Controls, text: &str) -> Result<(), Problem> {
        (self.set)(c, text)
    }

    /// Whether `c`'s value is one the control takes (what [`Control::set`] would accept).
    pub fn check(&self, c: &Controls) -> Result<(), Problem> {
        (self.check)(c)
    }

    /// The value in `c` of a control whose values are numbers ([`Range::Real`]: the sliders).
    pub fn real(&self, c: &Controls) -> Option<f64> {
        (self.real)(c)
    }

    /// The values of a [`Range::Choice`] or [`Input::Radio`] control; empty for others.
    pub fn names(&self) -> Vec<&'static str> {
        match self.range {
            Range::Choice(names) => names(),
            _ => Vec::new(),
        }
    }
}

/// A type a control's value can have: read from and written to text within a [`Range`].
trait Field: Sized {
    fn parse(text: &str) -> Result<Self, Problem>;
    fn write(&self) -> String;
    /// Whether the value is within `range` (a type without ranges has every value).
    fn check(&self, _: Range) -> Result<(), Problem> {
        Ok(())
    }
    /// The value as a number, for the reals only.
    fn real(&self) -> Option<f64> {
        None
    }
    fn read(text: &str, range: Range) -> Result<Self, Problem> {
        let x = Self::parse(text)?;
        x.check(range)?;
        Ok(x)
    }
}

impl Field for f64 {
    fn parse(text: &str) -> Result<f64, Problem> {
        text.parse().map_err(|_| Problem::NotNumber)
    }
    fn write(&self) -> String {
        self.to_string()
    }
    fn check(&self, range: Range) -> Result<(), Problem> {
        let x = *self;
        let inside = match range {
            Range::Real { lo, hi, open: true } => x > lo && x < hi,
            Range::Real { lo, hi, open: false } => x >= lo && x <= hi,
            _ => true,
        };
        if x.is_finite() && inside {
            Ok(())
        } else {
            Err(Problem::Outside(range))
        }
    }
    fn real(&self) -> Option<f64> {
        Some(*self)
    }
}

impl Field for usize {
    fn parse(text: &str) -> Result<usize, Problem> {
        text.parse().map_err(|_| Problem::NotNumber)
    }
    fn write(&self) -> String {
        self.to_string()
    }
    fn check(&self, range: Range) -> Result<(), Problem> {
        match range {
            Range::AtLeast(min) if *self < min => Err(Problem::TooSmall(min)),
            _ => Ok(()),
        }
    }
}

impl Field for u64 {
    fn parse(text: &str) -> Result<u64, Problem> {
        text.parse().map_err(|_| Problem::NotNumber)
    }
    fn write(&self) -> String {
        self.to_string()
    }
}

impl Field for bool {
    fn parse(text: &str) -> Result<bool, Problem> {
        match text {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(Problem::NotFlag),
        }
    }
    fn write(&self) -> String {
        u8::from(*self).to_string()
    }
}

/// The option enums are fields through their names.
macro_rules! choice_fields {
    ($($T:ty),+) => {$(
        impl Field for $T {
            fn parse(text: &str) -> Result<$T, Problem> {
                options::parse(text).map_err(|_| Problem::NotOneOf(options::names::<$T>()))
            }
            fn write(&self) -> String {
                self.name().to_string()
            }
        }
    )+};
}
choice_fields!(
    Mode,
    RvalueKind,
    Prior,
    VarianceKind,
    Algorithm,
    LambdaRule,
    TieOrder,
    Coverage,
    ScoresAre,
    CutFrom
);

/// A row of [`CONTROLS`]: `control!(key, name, input, range, mode, c => place of the value in c)`.
macro_rules! control {
    ($key:literal, $name:literal, $input:expr, $range:expr, $mode:expr, $c:ident => $place:expr) => {
        Control {
            key: $key,
            name: $name,
            input: $input,
            range: $range,
            mode: $mode,
            text: |$c| Field::write(&$place),
            set: |$c, text| {
                $place = Field::read(text, $range)?;
                Ok(())
            },
            check: |$c| Field::check(&$place, $range),
            real: |$c| Field::real(&$place),
        }
    };
}

const fn real((lo, hi): (f64, f64)) -> Range {
    Range::Real { lo, hi, open: false }
}

const ANY_REAL: Range = real((f64::MIN, f64::MAX));
const UNIT: Range = real((0.0, 1.0));
const NON_NEGATIVE: Range = real((0.0, f64::MAX));
const OPEN_UNIT: Range = Range::Real { lo: 0.0, hi: 1.0, open: true };

const fn choice<T: Choice>() -> Range {
    Range::Choice(options::names::<T>)
}

const ALPHA: Input =
    Input::Slider { at: scales::alpha_at, position: scales::alpha_position, page: scales::alpha_paged };
const BETA: Input =
    Input::Slider { at: scales::beta_at, position: scales::beta_position, page: scales::beta_paged };
const SIGMA2: Input =
    Input::Slider { at: scales::sigma2_at, position: scales::sigma2_position, page: scales::sigma2_paged };

/// The key of the mode, which chooses the other controls' defaults ([`Controls::for_mode`]).
pub const MODE: &str = "mode";

/// Every control, in the order links write them.
pub static CONTROLS: [Control; 36] = {
    use Input::*;
    const TOY: Option<Mode> = Some(Mode::Toy);
    const SCORES: Option<Mode> = Some(Mode::Scores);
    [
        control!("mode", "mode", Radio, choice::<Mode>(), None, c => c.mode),
        control!("alpha", "α", ALPHA, real(ALPHA_RANGE), None, c => c.alpha),
        control!("beta", "β", BETA, real(BETA_RANGE), None, c => c.beta),
        control!("sigma2", "σ²", SIGMA2, real(SIGMA2_RANGE), None, c => c.sigma2),
        control!("kind", "CP_r's r-value", Select, choice::<RvalueKind>(), None, c => c.score.kind),
        control!("prior", "prior", Select, choice::<Prior>(), None, c => c.score.prior),
        control!("variance", "variance", Select, choice::<VarianceKind>(), None, c => c.score.variance),
        control!("algorithm", "algorithm", LinkOnly, choice::<Algorithm>(), None, c => c.score.algorithm),
        control!("lambda", "λ rule", LinkOnly, choice::<LambdaRule>(), None, c => c.score.lambda),
        control!("cp-draw", "CP's draw", Number, Range::Whole, None, c => c.score.cp_draw),
        control!("ties", "tie order", Select, choice::<TieOrder>(), None, c => c.score.ties),
        control!("coverage", "coverage", Select, choice::<Coverage>(), None, c => c.score.coverage),
        control!("never-empty", "never-empty sets", Checkbox, Range::Flag, None, c => c.never_empty),
        control!("aps", "APS", Checkbox, Range::Flag, None, c => c.baselines[0]),
        control!("raps", "RAPS", Checkbox, Range::Flag, None, c => c.baselines[1]),
        control!("saps", "SAPS", Checkbox, Range::Flag, None, c => c.baselines[2]),
        control!("raps-lambda", "RAPS's λ", Number, NON_NEGATIVE, None, c => c.score.baseline.raps_lambda),
        control!("raps-kreg", "RAPS's k_reg", Number, NON_NEGATIVE, None, c => c.score.baseline.raps_kreg),
        control!("saps-lambda", "SAPS's λ", Number, NON_NEGATIVE, None, c => c.score.baseline.saps_lambda),
        control!("randomized", "randomized baselines", Checkbox, Range::Flag, None, c => c.score.baseline.randomized),
        control!("whole-curve", "whole curve", Checkbox, Range::Flag, None, c => c.whole_curve),
        control!("cut", "panel 5's threshold", Select, choice::<CutFrom>(), None, c => c.cut),
        control!("k", "K", Number, Range::AtLeast(2), TOY, c => c.toy.k),
        control!("m", "M", Number, Range::AtLeast(1), TOY, c => c.toy.m),
        control!("n-cal", "n_cal", Number, Range::AtLeast(1), TOY, c => c.toy.n_cal),
        control!("n-test", "n_test", Number, Range::AtLeast(1), TOY, c => c.toy.n_test),
        control!("repeats", "repeats", Number, Range::AtLeast(1), TOY, c => c.toy.repeats),
        control!("mu-p", "μp", Number, ANY_REAL, TOY, c => c.toy.mu_p),
        control!("sigma2-p", "σp²", Number, real((0.0, f64::MAX)), TOY, c => c.toy.sigma2_p),
        control!("mu-q", "μq", Number, ANY_REAL, TOY, c => c.toy.mu_q),
        control!("high-var", "high-variance fraction", Number, UNIT, TOY, c => c.toy.high_var_fraction),
        control!("toy-seed", "seed", Number, Range::Whole, TOY, c => c.toy.seed),
        control!("splits", "random splits", Number, Range::AtLeast(1), SCORES, c => c.splits),
        control!("cal-fraction", "calibration fraction", Number, OPEN_UNIT, SCORES, c => c.cal_fraction),
        control!("split-seed", "split seed", Number, Range::Whole, SCORES, c => c.seed),
        control!("scores-are", "scores read as", Select, choice::<ScoresAre>(), SCORES, c => c.score.scores_are),
    ]
};

/// The control with link key `key`.
pub fn control(key: &str) -> Option<&'static Control> {
    CONTROLS.iter().find(|c| c.key == key)
}

#[cfg(test)]
mod tests;
