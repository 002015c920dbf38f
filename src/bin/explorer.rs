//! The browser entry point built by trunk. (Placeholder until the explorer lands.)

fn main() {}
