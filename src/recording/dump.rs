//! Every record of a recording as it is stored, through the entry point: a demo's chunks
//! (with their decoded payloads), a teehistorian file's messages, a Source demo's frames.
//! What `demokit dump` lists: in JSON each format's serde form, in text one aligned line a
//! record under a header line ([`DumpRecord::header`]), each format's `Display`.

use super::{DumpEnd, Error, Format, GameWalk, Recording, RecordingFormat};
use crate::source::FrameAt;
use crate::teehistorian::MessageAt;
use crate::twdemo::operations::DemoChunk;
use crate::twdemo::snapshot::replay::ReplayedTick;

/// One stored record, in its format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum DumpRecord<'a> {
    /// A demo's chunk.
    TwDemo(DemoChunk<'a>),
    /// A teehistorian file's message: its place, size, `kind` (and `ex`) and fields.
    Teehistorian(MessageAt<'a>),
    /// A Source demo's frame.
    Source(FrameAt<'a>),
}

from_formats!(DumpRecord<'a>, Record);

impl Recording {
    /// Hands every stored record to `each`, in file order. Every format is read as a
    /// stream: memory does not grow with the file.
    pub fn dump(&self, mut each: impl FnMut(DumpRecord<'_>)) -> Result<DumpEnd, Error> {
        let input = self.input();
        forward!(self.format, F => F::dump(input, &mut |record| each(record.into())))
    }

    /// Hands a demo's full snapshot at every tick to `each`, its items sorted by type and
    /// id (as DDNet's player rebuilds them from keyframes and deltas).
    pub fn snapshots(&self, mut each: impl FnMut(ReplayedTick<'_>)) -> Result<GameWalk, Error> {
        self.require(super::Operation::Snapshots)?;
        let input = self.input();
        forward!(self.format, F => F::snapshots(input, &mut |tick| each(tick.into())))
    }
}

impl DumpRecord<'_> {
    /// The tick the record belongs to: a demo's tick marker's own, a data chunk's last
    /// marker's (`None` before the first), a teehistorian message's, a Source frame's.
    pub fn tick(&self) -> Option<i32> {
        match self {
            DumpRecord::TwDemo(chunk) => chunk.tick(),
            DumpRecord::Teehistorian(item) => Some(item.tick),
            DumpRecord::Source(item) => Some(item.frame.tick),
        }
    }

    /// The header line of a text dump of a recording of `format` (without its newline).
    pub fn header(format: Format) -> String {
        let columns: Result<&str, Error> = forward!(format, F => Ok(F::DUMP_COLUMNS));
        columns.unwrap_or_default().to_owned()
    }
}

/// The text line of a record: offset, tick and kind, then what the record holds. A
/// teehistorian message's fields are its serde fields, so this needs the `serde` feature.
#[cfg(feature = "serde")]
impl std::fmt::Display for DumpRecord<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DumpRecord::TwDemo(chunk) => chunk.fmt(f),
            DumpRecord::Teehistorian(item) => item.fmt(f),
            DumpRecord::Source(item) => item.fmt(f),
        }
    }
}
