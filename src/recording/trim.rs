//! Trimming through the entry point: a range of ticks, given as ticks, seconds or
//! timeline markers ([`RangeBound`]), cut out of a recording by the format's own trim.

use super::{Error, Format, Recording, RecordingFormat};
use crate::time::RangeBound;
use std::io::Write;

/// What [`Recording::trim`] kept, in the format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum TrimReport {
    /// A demo's trim.
    TwDemo(crate::twdemo::TrimReport),
    /// A teehistorian file's trim.
    Teehistorian(crate::teehistorian::TrimReport),
    /// A Source demo's trim.
    Source(crate::source::trim::TrimReport),
}

from_formats!(TrimReport, TrimReport);

impl Recording {
    /// Writes the part of the recording from `from` to `to` (both included; `None`: its
    /// start or end) to `out`, as a recording of its own that plays or reads like the
    /// original over that range. A bound outside the recording, a marker it does not have
    /// or an empty range is [`Error::Argument`]. Every format is read as streams (the
    /// range, then the passes of its trim), so memory does not grow with the file.
    pub fn trim<W: Write>(
        &self,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        mut out: W,
    ) -> Result<TrimReport, Error> {
        let input = self.input();
        forward!(self.format, F => F::trim(input, from, to, &mut out).map(Into::into))
    }
}
