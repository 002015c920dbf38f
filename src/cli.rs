//! The `rvalue` command line (SPEC §9). (Stub: being written.)

/// Runs the command line; returns the process exit status.
pub fn main() -> i32 {
    0
}
