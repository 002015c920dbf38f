//! The toy setting of the paper's §2.2 (SPEC §6). (Stub: being written.)
