//! What the readers of every format share: the shape of a read error (what went wrong, at
//! which byte) and the input buffer of the streaming readers.
//!
//! Each format has its own error kinds (`twdemo::ReadErrorKind`,
//! `teehistorian::ReadErrorKind`, `source::ReadErrorKind`) and names its error type as
//! [`ReadError`] of those kinds. Nothing here knows a format.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use std::io::{self, Read};

/// A file could not be read past `offset`, for the reason `kind` (one format's error kinds).
#[derive(Debug, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct ReadError<K> {
    /// Offset from the start of the file where the failing element starts (for a
    /// teehistorian message or a demo chunk, its first byte).
    pub offset: u64,
    /// What went wrong.
    pub kind: K,
}

impl<K> ReadError<K> {
    pub(crate) fn new(offset: u64, kind: K) -> Self {
        ReadError { offset, kind }
    }
}

impl<K: ErrorKind> ReadError<K> {
    /// Whether the input simply ended early: a file cut short, or one still being written.
    /// Each format's [`ErrorKind::is_truncation`] says which of its kinds count.
    pub fn is_truncation(&self) -> bool {
        self.kind.is_truncation()
    }
}

/// What every format's read error kinds can say about themselves.
pub trait ErrorKind {
    /// Whether the input ended inside an element (rather than holding bytes that do not
    /// read as one).
    fn is_truncation(&self) -> bool;

    /// Whether the reader's source failed (an I/O error while streaming), rather than the
    /// bytes being wrong.
    fn is_io(&self) -> bool;

    /// The I/O error the reader's source failed with, when it did (a compressed stream
    /// that does not decompress carries the codec's error in it).
    fn io_error(&self) -> Option<&io::Error> {
        None
    }
}

/// Bytes as an error message shows them: hex pairs separated by spaces (`00 07 0e 15`),
/// with the text they spell in quotes when they are all printable ASCII (`54 57 44 45
/// ("TWDE")`), so that a user sees a sentence rather than a debug list.
pub(crate) struct HexBytes<T>(pub T);

impl<T: AsRef<[u8]>> std::fmt::Display for HexBytes<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bytes = self.0.as_ref();
        if bytes.is_empty() {
            return f.write_str("nothing");
        }
        for (i, b) in bytes.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{b:02x}")?;
        }
        if bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
            write!(f, " (\"{}\")", String::from_utf8_lossy(bytes))?;
        }
        Ok(())
    }
}

/// Marks bytes of a [`Refill`] as read: see [`Refill::split`].
pub(crate) struct Consume<'a>(&'a mut usize);

impl Consume<'_> {
    /// Marks the first `n` bytes of the split-off rest as read.
    #[inline]
    pub(crate) fn consume(self, n: usize) {
        *self.0 += n;
    }
}

/// How much a streaming reader asks of its source at a time, at least.
const READ_CHUNK: usize = 64 * 1024;

/// The input of a streaming reader: the unread part of what it has read so far, refilled
/// from a [`Read`] as the reader needs more.
///
/// Nothing is allocated from a length the file claims: `take` and `read_to_end` grow the
/// buffer only as bytes arrive, so a length field larger than the file costs no more
/// memory than the file.
pub(crate) struct Refill<R> {
    inner: R,
    /// `buf[start..]` is not consumed yet.
    buf: Vec<u8>,
    start: usize,
    /// File offset of `buf[0]`.
    base: u64,
    eof: bool,
}

impl<R: Read> Refill<R> {
    /// An empty buffer over `inner`, at file offset 0.
    pub(crate) fn new(inner: R) -> Self {
        Refill {
            inner,
            buf: Vec::new(),
            start: 0,
            base: 0,
            eof: false,
        }
    }

    /// The bytes not consumed yet.
    #[inline]
    pub(crate) fn rest(&self) -> &[u8] {
        // `start` never passes the end of `buf` (`consume` takes only what `rest` holds).
        self.buf.get(self.start..).unwrap_or_default()
    }

    /// Everything buffered, from file offset 0: for reading the file's header, before any
    /// [`fill`](Self::fill) has dropped consumed bytes.
    pub(crate) fn head(&self) -> &[u8] {
        debug_assert_eq!(self.base, 0);
        &self.buf
    }

    /// File offset of the first byte not consumed.
    #[inline]
    pub(crate) fn position(&self) -> u64 {
        self.base + self.start as u64
    }

    /// Whether the source has nothing more: [`rest`](Self::rest) is all there is.
    #[inline]
    pub(crate) fn eof(&self) -> bool {
        self.eof
    }

    /// [`rest`](Self::rest), and a handle that marks a prefix of it as read while it is
    /// still borrowed (a reader hands out an element that borrows these bytes).
    #[inline]
    pub(crate) fn split(&mut self) -> (&[u8], Consume<'_>) {
        let rest = self.buf.get(self.start..).unwrap_or_default();
        (rest, Consume(&mut self.start))
    }

    /// Marks the first `n` bytes of [`rest`](Self::rest) as read.
    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.buf.len() - self.start);
        self.start += n;
    }

    /// The source, for reading what follows the buffered bytes.
    pub(crate) fn inner_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Reads more input after the unread part: at least up to `need` unread bytes in total
    /// when the element's length is known, and otherwise, as well as at least, a chunk more
    /// and as much as is already buffered (so that a long element costs amortized linear
    /// work and small ones do not cost a read call each). Sets [`eof`](Self::eof) when the
    /// source has nothing more. A failing source is an [`io::Error`] at `offset`.
    pub(crate) fn fill<K: From<io::Error>>(
        &mut self,
        need: Option<usize>,
        offset: u64,
    ) -> Result<(), ReadError<K>> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.base += self.start as u64;
            self.start = 0;
        }
        let have = self.buf.len();
        let more = match need {
            Some(total) if total > have => (total - have).max(READ_CHUNK),
            _ => READ_CHUNK.max(have),
        };
        let got = (&mut self.inner)
            .take(more as u64)
            .read_to_end(&mut self.buf)
            .map_err(|e| ReadError::new(offset, K::from(e)))?;
        if got < more {
            self.eof = true;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that hands out one byte per read call.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(1).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn refill_keeps_offsets_and_never_allocates_from_a_claimed_length() {
        let data: Vec<u8> = (0..=255).collect();
        let mut input = Refill::new(Trickle(&data));
        // A length field claiming a gigabyte costs no more than the 256 bytes there are.
        input.fill::<io::Error>(Some(1 << 30), 0).unwrap();
        assert!(input.eof());
        assert_eq!(input.rest(), &data[..]);
        assert!(input.buf.capacity() < 64 * 1024, "{}", input.buf.capacity());

        let (rest, read) = input.split();
        assert_eq!(rest[..3], [0, 1, 2]);
        read.consume(3);
        input.consume(7);
        assert_eq!(input.position(), 10);
        assert_eq!(input.rest()[0], 10);
        // Refilling drops what was consumed; offsets stay those of the file.
        input.fill::<io::Error>(None, 10).unwrap();
        assert_eq!(input.position(), 10);
        assert_eq!(input.rest(), &data[10..]);
    }

    #[test]
    fn a_failing_source_is_an_error_at_the_given_offset() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("gone"))
            }
        }
        let err = Refill::new(Broken).fill::<io::Error>(None, 42).unwrap_err();
        assert_eq!(err.offset, 42);
        assert_eq!(err.kind.to_string(), "gone");
    }
}
