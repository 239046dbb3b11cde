//! What the streamed editors share: a reader that counts what goes through it (and keeps the
//! file's first bytes), and a copy of a file's bytes with a few of them replaced, so that an
//! editor that only patches the header writes a file of any size without holding it.

use crate::twdemo::container::error::{ReadError, ReadErrorKind};
use std::io::{self, Read, Write};

/// How many of a file's first bytes [`Counting::keeping`] keeps: more than the longest
/// prelude (header, timeline markers and SHA-256 block, 484 bytes), so that what the
/// prelude of a patched copy reads as can be checked from them alone.
pub(crate) const HEAD: usize = 1024;

/// Counts the bytes read through it, and keeps the first of them.
pub(crate) struct Counting<R> {
    /// The reader read from.
    pub(crate) inner: R,
    /// Bytes read so far.
    pub(crate) count: u64,
    /// The first bytes read, up to `keep`.
    pub(crate) head: Vec<u8>,
    keep: usize,
}

impl<R: Read> Counting<R> {
    /// Counts what is read from `inner`.
    pub(crate) fn new(inner: R) -> Self {
        Counting::keeping(inner, 0)
    }

    /// Counts what is read from `inner` and keeps its first `keep` bytes.
    pub(crate) fn keeping(inner: R, keep: usize) -> Self {
        Counting {
            inner,
            count: 0,
            head: Vec::new(),
            keep,
        }
    }

    /// Reads on to the end: the length of the whole input. A reader over it (which reads
    /// ahead into its buffer) must be dropped first.
    pub(crate) fn len_to_end(&mut self) -> io::Result<u64> {
        Ok(self.count + io::copy(&mut self.inner, &mut io::sink())?)
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        let room = self.keep.saturating_sub(self.head.len()).min(n);
        self.head.extend(buf.iter().take(room));
        Ok(n)
    }
}

/// The error of an input that could not be opened (again): at offset 0.
pub(crate) fn open_failed(e: io::Error) -> ReadError {
    ReadError::new(0, ReadErrorKind::Io(e))
}

/// Why [`copy_patched`] stopped.
#[derive(Debug)]
pub(crate) enum CopyError {
    /// The input failed, or ended before `len` bytes (it changed since it was first read).
    Read(ReadError),
    /// The output failed.
    Write(io::Error),
}

/// Copies the first `len` bytes of `input` to `out`, each of `patches` (an offset and the
/// bytes to write there) written over them, a buffer at a time. A patch that does not fit
/// inside the `len` bytes whole is not written, as one over a copy in memory would not be.
pub(crate) fn copy_patched<R: Read, W: Write>(
    mut input: R,
    len: u64,
    patches: &[(u64, &[u8])],
    mut out: W,
) -> Result<(), CopyError> {
    let mut buf = vec![0u8; (64 * 1024).min(len as usize)];
    let mut pos = 0u64;
    while pos < len {
        let want = buf.len().min((len - pos) as usize);
        // `want` is at most the buffer's length.
        let window = buf.get_mut(..want).unwrap_or_default();
        let n = match input.read(window) {
            Ok(0) => {
                return Err(CopyError::Read(ReadError::new(
                    pos,
                    ReadErrorKind::UnexpectedEnd {
                        expected: "the bytes the first reading found",
                        needed: len - pos,
                        available: 0,
                    },
                )));
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(ReadError::new(pos, ReadErrorKind::Io(e)))),
        };
        let end = pos + n as u64;
        for &(offset, bytes) in patches {
            let patch_end = offset + bytes.len() as u64;
            if patch_end > len {
                continue;
            }
            let (from, to) = (offset.max(pos), patch_end.min(end));
            // `from..to` lies inside both the patch and the bytes read.
            if from < to
                && let Some(dst) = buf.get_mut((from - pos) as usize..(to - pos) as usize)
                && let Some(src) = bytes.get((from - offset) as usize..(to - offset) as usize)
            {
                dst.copy_from_slice(src);
            }
        }
        // A reader returns at most the length it was given.
        let read = buf.get(..n).unwrap_or(&buf);
        out.write_all(read).map_err(CopyError::Write)?;
        pos = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_land_across_buffers_and_a_short_input_is_an_error() {
        let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let patches: &[(u64, &[u8])] = &[(3, &[9, 9]), (65_535, &[7, 7, 7]), (199_999, &[1, 1])];
        let mut out = Vec::new();
        copy_patched(&data[..], 150_000, patches, &mut out).unwrap();
        let mut expected = data[..150_000].to_vec();
        expected[3..5].copy_from_slice(&[9, 9]);
        expected[65_535..65_538].copy_from_slice(&[7, 7, 7]);
        assert!(out == expected);
        let Err(CopyError::Read(e)) = copy_patched(&data[..10], 11, &[], io::sink()) else {
            panic!("a short input")
        };
        assert_eq!(e.offset, 10);
        let mut counting = Counting::keeping(&data[..], 5);
        let mut first = [0u8; 100];
        counting.read_exact(&mut first).unwrap();
        assert_eq!(counting.head, data[..5]);
        assert_eq!(counting.len_to_end().unwrap(), 200_000);
    }
}
