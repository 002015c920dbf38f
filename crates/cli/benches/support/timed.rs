//! One run of a command, timed: wall time, and under `/usr/bin/time` (where the machine has it)
//! user CPU time and peak RSS, for the benches' rows.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// What one run cost.
pub struct Timed {
    /// Wall-clock seconds.
    pub seconds: f64,
    /// User CPU seconds (a loaded machine's comparable figure); NaN without `/usr/bin/time`.
    #[allow(dead_code)] // read by the pooled bench only: each bench includes this module
    pub user: f64,
    /// Peak resident set size in kB, when measured.
    pub kb: Option<u64>,
}

impl Timed {
    /// The peak RSS in MB, or a dash.
    pub fn rss(&self) -> String {
        self.kb.map_or("—".to_string(), |kb| format!("{} MB", kb / 1000))
    }
}

/// Runs `args` (the program, then its arguments) once; panics if it fails.
pub fn run(args: &[String]) -> Timed {
    let timer = Path::new("/usr/bin/time");
    let mut cmd = if timer.exists() {
        let mut c = Command::new(timer);
        c.args(["-f", "%M %U"]).args(args);
        c
    } else {
        let mut c = Command::new(&args[0]);
        c.args(&args[1..]);
        c
    };
    let start = Instant::now();
    let out = cmd.output().expect("the command runs");
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{} failed: {stderr}", args.join(" "));
    let last: Vec<&str> = stderr.lines().last().unwrap_or("").split_whitespace().collect();
    let kb: Option<u64> = last.first().and_then(|x| x.parse().ok()).filter(|_| timer.exists());
    let user: f64 = last.get(1).and_then(|x| x.parse().ok()).unwrap_or(f64::NAN);
    Timed { seconds, user, kb }
}
