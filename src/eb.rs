//! Normal–Normal empirical Bayes (SPEC §2). (Stub: being written.)
