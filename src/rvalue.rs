//! r-values (SPEC §2–4). (Stub: being written.)
