//! What the tools of every format report in the same shape.

/// Where a repair cut a file, and why: the first byte it dropped, at the start of the
/// element (demo chunk, teehistorian message) that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Cut {
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
