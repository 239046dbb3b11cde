//! Being written by a helper.
