//! Scrubbing through the entry point: names replaced by pseudonyms, chat and credentials
//! removed, as the shared [`ScrubOptions`] ask, by each format's own scrub.

use super::{Error, Format, Recording, RecordingFormat};
use crate::scrub::{Mapping, ScrubOptions};
use std::io::Write;

/// What [`Recording::scrub`] changed, in the format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum ScrubReport {
    /// A demo's scrub.
    TwDemo(crate::twdemo::ScrubReport),
    /// A teehistorian file's scrub.
    Teehistorian(crate::teehistorian::ScrubReport),
    /// A Source demo's scrub.
    Source(crate::source::scrub::ScrubReport),
}

from_formats!(ScrubReport, ScrubReport);

impl ScrubReport {
    /// Original -> pseudonym of every name replaced: what undoes the scrub, so it goes
    /// only where its caller sends it.
    pub fn mapping(&self) -> &Mapping {
        match self {
            ScrubReport::TwDemo(report) => &report.mapping,
            ScrubReport::Teehistorian(report) => &report.mapping,
            ScrubReport::Source(report) => &report.mapping,
        }
    }
}

impl Recording {
    /// The options that scrub everything this recording's format can carry that names or
    /// identifies someone: names and clans (pseudonyms keyed by `key`, or counted when
    /// `None`), all chat and the server's identity ([`ScrubOptions::server`]), and for a
    /// teehistorian file also credentials and drop reasons.
    pub fn scrub_everything(&self, key: Option<Vec<u8>>) -> ScrubOptions {
        let options: Result<ScrubOptions, Error> =
            forward!(self.format, F => Ok(F::scrub_everything(key)));
        options.unwrap_or_default()
    }

    /// Writes the recording scrubbed as `options` ask to `out`. Options the format cannot
    /// carry (credentials in a demo) are [`Error::Argument`]; nothing is written when the
    /// recording does not read to its end (each format reads it twice as a stream: to
    /// check it and find the names, then to write).
    pub fn scrub<W: Write>(
        &self,
        options: &ScrubOptions,
        mut out: W,
    ) -> Result<ScrubReport, Error> {
        let input = self.input();
        forward!(self.format, F => F::scrub(input, options, &mut out).map(Into::into))
    }
}
