//! Trimming through the entry point: a range of ticks, given as ticks, seconds or
//! timeline markers ([`RangeBound`]), cut out of a demo or a teehistorian file by the
//! format's own trim.

use super::{Error, Format, Operation, Recording};
use crate::teehistorian::trim as th_trim;
use crate::time::RangeBound;
use crate::twdemo::edit::trim as tw_trim;
use std::io::Write;

/// What [`Recording::trim`] kept, in the format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum TrimReport {
    /// A demo's trim.
    TwDemo(tw_trim::TrimReport),
    /// A teehistorian file's trim.
    Teehistorian(th_trim::TrimReport),
    /// A Source demo's trim.
    Source(crate::source::trim::TrimReport),
}

impl Recording {
    /// Writes the part of the recording from `from` to `to` (both included; `None`: its
    /// start or end) to `out`, as a recording of its own that plays or reads like the
    /// original over that range. A bound outside the recording, a marker it does not have
    /// or an empty range is [`Error::Argument`].
    pub fn trim<W: Write>(
        &self,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        mut out: W,
    ) -> Result<TrimReport, Error> {
        let argument = |e: &dyn std::fmt::Display| Error::Argument {
            operation: Operation::Trim,
            message: e.to_string(),
        };
        match self.format {
            Format::TwDemo => {
                // Read as streams (the range's end, then the two runs of the trim, whose
                // first finds the header's fields), so that memory does not grow with the
                // file.
                let range = tw_trim::resolve_range_reader(self.reader()?, from, to).map_err(
                    |e| match e {
                        tw_trim::RangeError::Read(e) => e.into(),
                        tw_trim::RangeError::NoTicks => Error::refused(Operation::Trim, e),
                        usage => argument(&usage),
                    },
                )?;
                let open = || self.reader().map_err(std::io::Error::other);
                let report = tw_trim::trim_reader(open, range, &mut out).map_err(|e| match e {
                    tw_trim::TrimError::Write(crate::twdemo::WriteError::Io(e)) => Error::write(e),
                    other => Error::refused(Operation::Trim, other),
                })?;
                Ok(TrimReport::TwDemo(report))
            }
            Format::Teehistorian => {
                // Read as streams (the range's end, then the two passes of the cut), so that
                // memory does not grow with the file.
                let range = th_trim::resolve_range_reader(self.reader()?, from, to).map_err(
                    |e| match e {
                        th_trim::RangeError::Read(e) => e.into(),
                        usage => argument(&usage),
                    },
                )?;
                let open = || self.reader().map_err(std::io::Error::other);
                let report = th_trim::trim_reader(open, range, &mut out).map_err(|e| match e {
                    th_trim::TrimError::Header(e) => e.into(),
                    th_trim::TrimError::Read(e) => Error::Invalid {
                        offset: e.offset,
                        message: format!(
                            "cannot trim: the file does not read up to tick {}: {}",
                            range.from, e.kind
                        ),
                        truncated: crate::read::ErrorKind::is_truncation(&e.kind),
                        io: crate::read::ErrorKind::is_io(&e.kind),
                    },
                    th_trim::TrimError::State { offset, tick, kind } => Error::Invalid {
                        offset,
                        message: format!("cannot trim: at tick {tick}: {kind}"),
                        truncated: false,
                        io: false,
                    },
                    th_trim::TrimError::Write(crate::teehistorian::WriteError::Io(e)) => {
                        Error::write(e)
                    }
                    other => Error::refused(Operation::Trim, other),
                })?;
                Ok(TrimReport::Teehistorian(report))
            }
            Format::SourceDemo => {
                use crate::source::trim::{TrimError, trim_reader};
                // A Source demo's range is in its own ticks; read as streams (the state at
                // the cut, then the frames).
                let range = self
                    .range_for(Operation::Trim, from, to)?
                    .unwrap_or(crate::time::TickRange::new(i32::MIN, i32::MAX));
                let open = || self.reader().map_err(std::io::Error::other);
                let report =
                    trim_reader(open, range.from, range.to, &mut out).map_err(|e| match e {
                        TrimError::Write(crate::source::WriteError::Io(e)) => Error::write(e),
                        TrimError::Empty { .. } => argument(&e),
                        TrimError::Read(e) => e.into(),
                        e @ TrimError::Network { .. } => Error::Invalid {
                            offset: e.offset().unwrap_or(0),
                            message: format!("cannot trim: {e}"),
                            truncated: false,
                            io: false,
                        },
                        other => Error::refused(Operation::Trim, other),
                    })?;
                Ok(TrimReport::Source(report))
            }
            _ => Err(self.unsupported(Operation::Trim)),
        }
    }
}
