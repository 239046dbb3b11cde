//! The shapes the operations' outcomes share across formats: where a file breaks off
//! ([`BreakOff`], as a repair, a trim or a marker listing found it), and why a `rewrite`
//! stopped ([`RewriteError`]).
//!
//! The three `rewrite` functions
//! ([`twdemo::container::demo::rewrite`](crate::twdemo::container::demo::rewrite),
//! [`teehistorian::rewrite`](crate::teehistorian::rewrite),
//! [`source::rewrite`](crate::source::rewrite)) have one shape: they read a whole file and
//! write it again into a sink, `fn rewrite<W: Write>(data: &[u8], sink: W) -> Result<(W,
//! RewriteStats), (RewriteStats, RewriteError)>`, where each format's `RewriteStats` counts
//! what it wrote and how. On an error everything before the element that failed has been
//! written, and the counts say how much that is.

// No indexing or slicing that could panic.
#![deny(clippy::indexing_slicing)]

/// Where a file breaks off, and why: the first byte that does not read, at the start of
/// the element (demo chunk, teehistorian message) that could not be read; a repair drops
/// everything from there.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BreakOff {
    /// Offset of the first byte dropped: the start of the element that could not be read
    /// (or, for a teehistorian file, the byte after FINISH).
    pub offset: u64,
    /// Whether the file simply ended inside that element (a recording cut off mid-write).
    /// If false, the bytes there do not read as an element at all (for example a relative
    /// tick marker before any absolute one, an unknown message id, bytes after FINISH).
    pub truncated: bool,
    /// What the reader said there.
    pub reason: String,
}

/// Why a `rewrite` stopped: the input could not be read, or what was read could not be
/// written again (or the sink failed). Each format names it with its own error types.
#[derive(Debug, thiserror::Error)]
pub enum RewriteError<R, W> {
    /// The input could not be read (everything before the failing element was written).
    #[error(transparent)]
    Read(R),
    /// What was read could not be written again, or the sink failed.
    #[error(transparent)]
    Write(W),
}

/// For a rewrite's `map_err`: the error with the counts of what was written before it.
pub(crate) fn stopped<S, E, R, W>(stats: S) -> impl FnOnce(E) -> (S, RewriteError<R, W>)
where
    RewriteError<R, W>: From<E>,
{
    move |e| (stats, RewriteError::from(e))
}

/// Lets `?` turn a format's read and write errors into its [`RewriteError`]. (One generic
/// `From` per side would overlap where the two error types are the same.)
macro_rules! rewrite_error_from {
    ($read:ty, $write:ty) => {
        impl From<$read> for $crate::format::RewriteError<$read, $write> {
            fn from(e: $read) -> Self {
                $crate::format::RewriteError::Read(e)
            }
        }

        impl From<$write> for $crate::format::RewriteError<$read, $write> {
            fn from(e: $write) -> Self {
                $crate::format::RewriteError::Write(e)
            }
        }
    };
}
pub(crate) use rewrite_error_from;
