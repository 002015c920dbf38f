//! Split conformal prediction (SPEC §5). (Stub: being written.)
