//! A reader that hands out its bytes a few at a time.

use std::io::Read;

/// Hands out at most `n` bytes per `read`, so that a streaming reader refills its buffer at
/// every boundary a slice reader never sees: between items and inside them.
pub struct Dribble<'a> {
    /// What is left to hand out.
    pub data: &'a [u8],
    /// The most bytes one `read` returns.
    pub n: usize,
}

impl<'a> Dribble<'a> {
    /// A reader over `data` returning at most `n` bytes per call.
    pub fn new(data: &'a [u8], n: usize) -> Self {
        Dribble { data, n }
    }
}

impl Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}
