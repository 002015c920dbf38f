//! Score and label files (SPEC §8): `.npy`, `.npz` and long-form CSV.
//! (Stub: being written.)
