//! The standard normal distribution. (Stub: being written.)
