//! One definition per option. Every user-facing choice (the r-value kind, the prior, the tie
//! order, `--device`, …) is declared once with [`options!`](crate::options!): the enum, its
//! values' names, `ALL`, `name`, `Display`, `FromStr` and [`Choice`] all come from that one
//! list, so links, the page, the JavaScript API and the command line spell it alike.

use crate::{Error, Result};

/// A closed set of named values, declared with [`options!`](crate::options!). Generic code
/// (the link reader, the CLI's value parsers) works through it.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// What the option is called in an error message ("prior", "tie order").
    const OPTION: &'static str;
    /// Every value, in the order `--help` and error messages list them.
    fn all() -> &'static [Self];
    /// The value's name in links, the page, the JavaScript API and the command line.
    fn name(self) -> &'static str;
}

/// The names of `T`'s values, in order.
pub fn names<T: Choice>() -> Vec<&'static str> {
    T::all().iter().map(|&v| v.name()).collect()
}

/// Why `T`'s names do not round-trip, if they do not: each value's `Display` is its name and
/// its name parses back to it, and no two values share a name. What every option declared with
/// [`options!`](crate::options!) must satisfy, for the tests of each crate that declares some.
pub fn names_round_trip<T>() -> std::result::Result<(), String>
where
    T: Choice + std::str::FromStr + std::fmt::Display + std::fmt::Debug,
{
    for &v in T::all() {
        if v.to_string() != v.name() {
            return Err(format!("{}: {v:?} displays as {v}, not {}", T::OPTION, v.name()));
        }
        if v.name().parse::<T>().ok() != Some(v) {
            return Err(format!("{}: '{}' does not parse back to {v:?}", T::OPTION, v.name()));
        }
    }
    let mut sorted = names::<T>();
    sorted.sort_unstable();
    sorted.dedup();
    match sorted.len() == T::all().len() {
        true => Ok(()),
        false => Err(format!("{}: two values share a name", T::OPTION)),
    }
}

/// The names of `T`'s values as a phrase: "a, b or c".
pub fn expected<T: Choice>() -> String {
    let names = names::<T>();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The value of `T` named `s`, or an error naming the option and the names allowed: what
/// `FromStr` does for every option.
pub fn parse<T: Choice>(s: &str) -> Result<T> {
    T::all().iter().copied().find(|&v| v.name() == s).ok_or_else(|| Error::InvalidOption {
        option: T::OPTION.to_string(),
        value: s.to_string(),
        expected: expected::<T>(),
    })
}

/// Declares option enums: each variant with the name it has in links, the page, the JavaScript
/// API and the command line, and the option's name for error messages.
///
/// ```
/// rvalue_core::options! {
///     /// How loud.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
///     pub enum Volume("volume") {
///         #[default]
///         Low = "low",
///         High = "high",
///     }
/// }
/// assert_eq!(Volume::ALL, [Volume::Low, Volume::High]);
/// assert_eq!(Volume::High.to_string(), "high");
/// assert_eq!("low".parse::<Volume>(), Ok(Volume::Low));
/// assert!("max".parse::<Volume>().unwrap_err().to_string().contains("unknown volume 'max' (expected low or high)"));
/// ```
///
/// The enum must derive `Clone`, `Copy` and `PartialEq`.
#[macro_export]
macro_rules! options {
    ($(
        $(#[$meta:meta])*
        $vis:vis enum $T:ident ($option:literal) {
            $( $(#[$vmeta:meta])* $V:ident = $name:literal ),+ $(,)?
        }
    )+) => {$(
        $(#[$meta])*
        $vis enum $T {
            $( $(#[$vmeta])* $V ),+
        }

        impl $T {
            /// Every value, in the order `--help` and error messages list them.
            pub const ALL: [$T; <[&str]>::len(&[$($name),+])] = [$($T::$V),+];

            /// The name used in links, the page, the JavaScript API and the command line.
            pub const fn name(self) -> &'static str {
                match self {
                    $($T::$V => $name),+
                }
            }
        }

        impl $crate::options::Choice for $T {
            const OPTION: &'static str = $option;
            fn all() -> &'static [Self] {
                &Self::ALL
            }
            fn name(self) -> &'static str {
                $T::name(self)
            }
        }

        impl ::core::fmt::Display for $T {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::core::str::FromStr for $T {
            type Err = $crate::Error;
            /// The inverse of `name`; an unknown name is an error naming the option and the
            /// names allowed.
            fn from_str(s: &str) -> ::core::result::Result<Self, $crate::Error> {
                $crate::options::parse(s)
            }
        }
    )+};
}

#[cfg(test)]
mod tests {
    use super::{names_round_trip, Choice};
    use crate::conformal::{Method, Prior, RvalueKind};
    use crate::rvalue::{Algorithm, LambdaRule, TieOrder};
    use crate::tensor::VarianceKind;
    use crate::Error;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn round_trips<T: Choice + std::str::FromStr + std::fmt::Display + std::fmt::Debug>() {
        assert_eq!(names_round_trip::<T>(), Ok(()));
    }

    #[test]
    fn every_option_reads_back_its_names() {
        round_trips::<Method>();
        round_trips::<RvalueKind>();
        round_trips::<Prior>();
        round_trips::<VarianceKind>();
        round_trips::<Algorithm>();
        round_trips::<LambdaRule>();
        round_trips::<TieOrder>();
        round_trips::<crate::conformal::Coverage>();
    }

    #[test]
    fn unknown_names_are_errors_that_list_the_names() {
        let e = "global".parse::<Prior>().unwrap_err();
        assert!(matches!(&e, Error::InvalidOption { option, value, expected }
            if option == "prior" && value == "global" && expected == "per-item or pooled"));
        let e = e.to_string();
        assert_eq!(e, "invalid argument: unknown prior 'global' (expected per-item or pooled)");
        let e = "x".parse::<Method>().unwrap_err().to_string();
        assert_eq!(e, "invalid argument: unknown method 'x' (expected cp, cp-avg, cp-r, aps, raps or saps)");
        let e = "grid".parse::<RvalueKind>().unwrap_err().to_string();
        assert!(
            e.contains("unknown r-value kind 'grid' (expected parametric, nonparametric or pooled)"),
            "{e}"
        );
    }
}
