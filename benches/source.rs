//! Source demo container scan (being written by a helper).
fn main() {}
