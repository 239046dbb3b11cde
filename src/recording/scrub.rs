//! Scrubbing through the entry point: names replaced by pseudonyms, chat and credentials
//! removed, as the shared [`ScrubOptions`] ask, by each format's own scrub.

use super::{Error, Format, Operation, Recording};
use crate::scrub::{ChatFilter, Mapping, Pseudonyms, ScrubOptions};
use crate::source::scrub::{ScrubError as SourceScrubError, ScrubReport as SourceScrubReport};
use crate::teehistorian::scrub::{
    ScrubError as TeehistorianScrubError, ScrubReport as TeehistorianScrubReport,
};
use crate::twdemo::edit::scrub::{ScrubError as DemoScrubError, ScrubReport as DemoScrubReport};
use std::io::Write;

/// What [`Recording::scrub`] changed, in the format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum ScrubReport {
    /// A demo's scrub.
    TwDemo(DemoScrubReport),
    /// A teehistorian file's scrub.
    Teehistorian(TeehistorianScrubReport),
    /// A Source demo's scrub.
    Source(SourceScrubReport),
}

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
        match self.format {
            Format::Teehistorian => ScrubOptions::all(key),
            _ => ScrubOptions {
                names: Some(Pseudonyms { key }),
                chat: Some(ChatFilter::All),
                server: true,
                ..ScrubOptions::default()
            },
        }
    }

    /// Writes the recording scrubbed as `options` ask to `out`. Options the format cannot
    /// carry (credentials in a demo) are [`Error::Argument`]; nothing is written when the
    /// recording does not read to its end.
    pub fn scrub<W: Write>(
        &self,
        options: &ScrubOptions,
        mut out: W,
    ) -> Result<ScrubReport, Error> {
        let failed = |offset: Option<u64>, error: &dyn std::fmt::Display| match offset {
            Some(offset) => Error::Invalid {
                offset,
                message: format!("cannot scrub: {error}"),
                truncated: false,
                io: false,
            },
            None => Error::Argument {
                operation: Operation::Scrub,
                message: error.to_string(),
            },
        };
        match self.format {
            Format::TwDemo => {
                // Read twice as a stream (to check it and find the names, then to write),
                // so memory does not grow with the file; nothing is written before the
                // first reading has checked it all.
                let open = || self.reader().map_err(std::io::Error::other);
                let report = crate::twdemo::edit::scrub::scrub_reader(open, options, &mut out)
                    .map_err(|e| match e {
                        DemoScrubError::Write {
                            source: crate::twdemo::WriteError::Io(e),
                            ..
                        } => Error::write(e),
                        DemoScrubError::Options(_) => failed(None, &e),
                        e => failed(e.offset(), &e),
                    })?;
                Ok(ScrubReport::TwDemo(report))
            }
            Format::Teehistorian => {
                // Read twice as a stream (to check it and find the names, then to write),
                // so memory does not grow with the file; nothing is written before the
                // first reading has checked it all.
                let open = || self.reader().map_err(std::io::Error::other);
                let report = crate::teehistorian::scrub::scrub_reader(open, options, &mut out)
                    .map_err(|e| match e {
                        TeehistorianScrubError::Write {
                            source: crate::teehistorian::WriteError::Io(e),
                            ..
                        } => Error::write(e),
                        e => failed(e.offset(), &e),
                    })?;
                Ok(ScrubReport::Teehistorian(report))
            }
            Format::SourceDemo => {
                // Read twice as a stream, as the others.
                let open = || self.reader().map_err(std::io::Error::other);
                let report = crate::source::scrub::scrub_reader(open, options, &mut out).map_err(
                    |e| match e {
                        SourceScrubError::Write {
                            source: crate::source::WriteError::Io(e),
                            ..
                        } => Error::write(e),
                        SourceScrubError::Options(_) => failed(None, &e),
                        // A branch the scrub cannot rewrite yet: refused as an operation a
                        // format lacks is.
                        SourceScrubError::Unsupported(_) => Error::Refused {
                            operation: Operation::Scrub,
                            message: e.to_string(),
                        },
                        e => failed(e.offset(), &e),
                    },
                )?;
                Ok(ScrubReport::Source(report))
            }
            _ => Err(self.unsupported(Operation::Scrub)),
        }
    }
}
