//! rvalue-cli: the `rvalue` command line (docs/method.md §9): `rank`, `conformal`, `sets`,
//! `predict` and `toy`. [`main`] is the entry point (the `rvalue` bin calls it); the numbers come
//! from `rvalue-core`, `--device` routes rank-based r-values through `rvalue-gpu`.
//!
//! Exit status 0 on success; on any bad input one line `rvalue: <message>` on stderr and status 2
//! (clap's own usage errors included); `--help` on every subcommand prints to stdout, status 0.
//!
//! `args` defines the command line, `inputs` reads and checks what the commands are given,
//! `device` routes rank-based r-values to the GPU or the CPU; each command is a module of its
//! own (`rank`, `conformal`, `sets`, `predict`, `toy`); `streamed` reads score files a block at
//! a time, `true_draws` takes calibration given as true-label draws alone.

mod args;
mod calibration_true;
mod conformal;
mod device;
mod inputs;
mod interrupt;
mod output;
mod predict;
mod rank;
mod sets;
mod streamed;
mod toy;
mod units;

use std::fmt;
use std::io::Write;
use std::path::Path;

use clap::Parser;

use args::{Cli, Command, DataArgs, OneMethod, ScoreArgs};
use device::{for_each_split, Pass, Probe};
use inputs::{facts, labels_of, labels_or, no_labels, read_scores_file, warn_data};
use output::Progress;

/// A one-line message for the user; `main` prints it as `rvalue: <message>` and exits 2.
#[derive(Debug)]
struct CliError(String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the source said.
        let one: Vec<&str> = self.0.split(['\n', '\r']).map(str::trim).filter(|l| !l.is_empty()).collect();
        f.write_str(&one.join(" "))
    }
}

impl From<rvalue_core::Error> for CliError {
    fn from(e: rvalue_core::Error) -> Self {
        CliError(e.to_string())
    }
}

type CliResult<T> = std::result::Result<T, CliError>;

fn fail<T>(msg: impl Into<String>) -> CliResult<T> {
    Err(CliError(msg.into()))
}
/// Runs the command line; returns the process exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    // The commands that write files remove their partial output on Ctrl-C or SIGTERM; the
    // others keep the default (the process ends at once, with nothing to clean up).
    if matches!(cli.command, Command::Sets(_) | Command::Predict(_)) {
        interrupt::install();
    }
    let result = match cli.command {
        Command::Rank(a) => rank::run_rank(&a),
        Command::Conformal(a) => conformal::run_conformal(&a),
        Command::Sets(a) => sets::run_sets(&a),
        Command::Predict(a) => predict::run(&a),
        Command::Toy(a) => toy::run_toy(&a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rvalue: {e}");
            2
        }
    }
}

/// Help and version go to stdout with status 0; every other clap error becomes one line, status 2.
fn clap_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            0
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprintln!(
                "rvalue: no command given; expected rank, conformal, sets, predict or toy (see rvalue --help)"
            );
            2
        }
        _ => {
            // Point at the help of the subcommand in use, if any.
            let sub = std::env::args()
                .skip(1)
                .find(|a| ["rank", "conformal", "sets", "predict", "toy"].contains(&a.as_str()))
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            eprintln!("rvalue: {} (see rvalue{sub} --help)", clap_message(&e.render().to_string()));
            2
        }
    }
}

/// Clap's multi-line error as one line: its text up to the usage, without `error:`, tips and
/// the "for more information" hint.
fn clap_message(rendered: &str) -> String {
    let mut parts = Vec::new();
    for line in rendered.lines().map(str::trim) {
        if line.starts_with("Usage:") {
            break;
        }
        if line.is_empty() || line.starts_with("tip:") || line.starts_with("For more information") {
            continue;
        }
        parts.push(line.strip_prefix("error:").unwrap_or(line).trim());
    }
    parts.join(" ")
}

fn read_file(path: &Path) -> CliResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| CliError(format!("{}: cannot read: {e}", path.display())))
}

/// Writes `bytes` to `path` whole or not at all ([`interrupt::write`]).
fn write_file(path: &Path, bytes: &[u8]) -> CliResult<()> {
    Ok(interrupt::write(path, bytes)?)
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// Writes all of `text` to stdout; a closed pipe (`| head`) is not an error.
fn print_stdout(text: &str) -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => fail(format!("writing to stdout: {e}")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
