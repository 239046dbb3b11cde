//! What every recording format is and does, stated once: the [`Format`] tag, the
//! [`RecordingFormat`] trait each format implements (`twdemo::TwDemo`,
//! `teehistorian::Teehistorian`, `source::SourceDemo`), the [`Input`] its operations read,
//! and the one [`Error`] they all return.
//!
//! The trait is the contract the compiler checks: an operation every format has is a
//! required method, so a format without it does not build; an operation only some formats
//! have (converting versions, timeline markers, an embedded map, DDNet's chat listing) has
//! an associated type that a format lacking it sets to [`Unsupported`], which is how the
//! entry point ([`crate::recording`]) knows which formats have it. Every operation reads
//! an [`Input`], which the format opens as a stream as often as it needs (once, or twice
//! for the operations whose header needs what comes last), and writes to a `dyn Write`.
//!
//! What this layer leaves to others: each format's own records, reports and error kinds
//! (its module), choosing the format of a file and wrapping the formats' types into one
//! (the entry point), and everything a front end shows.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

mod error;
mod outcome;

pub use error::{Cause, Error, MapProblem, Operation};
pub use outcome::{BreakOff, RewriteError};
pub(crate) use outcome::{rewrite_error_from, stopped};

use crate::compressed::Codec;
use crate::gamenet::summary::GameLog;
use crate::model::{GameFacts, GameOptions, GameSink};
use crate::scrub::ScrubOptions;
use crate::time::{RangeBound, TickRange};
use crate::validation::{Problem, Verdict};
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

/// A recording format demokit knows of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Format {
    /// Teeworlds/DDNet demo (`TWDEMO\0`).
    #[cfg_attr(feature = "serde", serde(rename = "twdemo"))]
    TwDemo,
    /// DDNet teehistorian (starts with its 16-byte UUID).
    #[cfg_attr(feature = "serde", serde(rename = "teehistorian"))]
    Teehistorian,
    /// Source engine demo (`HL2DEMO\0`).
    #[cfg_attr(feature = "serde", serde(rename = "source"))]
    SourceDemo,
    /// GoldSrc (Half-Life 1) demo (`HLDEMO\0`): a different format.
    #[cfg_attr(feature = "serde", serde(rename = "goldsrc"))]
    GoldSrcDemo,
    /// Source 2 demo (`PBDEMS2\0`): a different format.
    #[cfg_attr(feature = "serde", serde(rename = "source2"))]
    Source2Demo,
}

impl Format {
    /// The formats demokit reads, in the order it names them.
    pub const READ: [Format; 3] = [Format::TwDemo, Format::Teehistorian, Format::SourceDemo];

    /// The format's short name in JSON, the tables and Python ("twdemo", "teehistorian",
    /// "source", "goldsrc", "source2"): its serde name.
    pub const fn id(self) -> &'static str {
        match self {
            Format::TwDemo => "twdemo",
            Format::Teehistorian => "teehistorian",
            Format::SourceDemo => "source",
            Format::GoldSrcDemo => "goldsrc",
            Format::Source2Demo => "source2",
        }
    }

    /// Whether demokit reads recordings of this format (the others it only names).
    pub const fn is_read(self) -> bool {
        matches!(
            self,
            Format::TwDemo | Format::Teehistorian | Format::SourceDemo
        )
    }

    /// The file-name extensions recordings of this format carry (without the dot): a
    /// file found under a directory with one of them is taken as meant to be a recording,
    /// and is an error, not a file passed over, when it is none.
    pub const fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::TwDemo => &["demo"],
            Format::Teehistorian => &["teehistorian"],
            // GoldSrc and Source 2 demos are `.dem` files too.
            Format::SourceDemo | Format::GoldSrcDemo | Format::Source2Demo => &["dem"],
        }
    }

    /// The formats whose files carry the extension of `path` (compared without regard to
    /// case), if any: `.demo`, `.teehistorian` and `.dem`, also before a codec's extension
    /// (`.demo.zst`, `.teehistorian.xz`, `.dem.bz2`).
    pub fn by_extension(path: &Path) -> Option<Format> {
        let path = match Codec::by_extension(path) {
            Some(_) => Path::new(path.file_stem()?),
            None => path,
        };
        let extension = path.extension()?.to_str()?;
        Format::READ.into_iter().find(|f| {
            f.extensions()
                .iter()
                .any(|e| e.eq_ignore_ascii_case(extension))
        })
    }

    /// A human-readable name.
    pub const fn name(self) -> &'static str {
        match self {
            Format::TwDemo => "Teeworlds/DDNet demo (TWDEMO)",
            Format::Teehistorian => "DDNet teehistorian",
            Format::SourceDemo => "Source engine demo (HL2DEMO)",
            Format::GoldSrcDemo => "GoldSrc demo (HLDEMO)",
            Format::Source2Demo => "Source 2 demo (PBDEMS2)",
        }
    }
}

/// Where a recording's bytes are, as a format's operations read them: in memory, or in a
/// regular file opened again for each reading (so that a long file is streamed, never
/// held whole, by every operation that can stream).
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    source: InputSource<'a>,
}

/// Where an [`Input`]'s bytes are.
#[derive(Debug, Clone, Copy)]
enum InputSource<'a> {
    /// In memory.
    Bytes(&'a [u8]),
    /// A regular file.
    File(&'a Path),
    /// Compressed, in memory or in a regular file: decompressed as it is read, and into
    /// memory only up to `limit` bytes.
    Compressed {
        /// Where the compressed bytes are.
        stored: Stored<'a>,
        /// Their codec.
        codec: Codec,
        /// The most decompressed bytes [`Input::bytes`] holds.
        limit: u64,
    },
}

/// Where a compressed recording's compressed bytes are.
#[derive(Debug, Clone, Copy)]
// Read only by the codecs, which a build without `compressed` lacks.
#[cfg_attr(not(feature = "compressed"), allow(dead_code))]
enum Stored<'a> {
    /// In memory.
    Bytes(&'a [u8]),
    /// A regular file.
    File(&'a Path),
}

/// The buffer a file is streamed through.
const STREAM_BUFFER: usize = 64 * 1024;

impl<'a> Input<'a> {
    /// The recording in `data`.
    pub fn from_bytes(data: &'a [u8]) -> Input<'a> {
        Input {
            source: InputSource::Bytes(data),
        }
    }

    /// The recording in the regular file at `path`, opened for each reading.
    pub fn from_file(path: &'a Path) -> Input<'a> {
        Input {
            source: InputSource::File(path),
        }
    }

    /// The recording compressed with `codec` in `data`: read through a decompressing
    /// stream, and decompressed into memory ([`bytes`](Self::bytes)) up to `limit` bytes
    /// ([`Error::TooLong`] past it).
    pub fn compressed_bytes(data: &'a [u8], codec: Codec, limit: u64) -> Input<'a> {
        Input {
            source: InputSource::Compressed {
                stored: Stored::Bytes(data),
                codec,
                limit,
            },
        }
    }

    /// The recording compressed with `codec` in the regular file at `path`, opened for
    /// each reading, as [`compressed_bytes`](Self::compressed_bytes) reads it.
    pub fn compressed_file(path: &'a Path, codec: Codec, limit: u64) -> Input<'a> {
        Input {
            source: InputSource::Compressed {
                stored: Stored::File(path),
                codec,
                limit,
            },
        }
    }

    /// A reader over the recording from its start, streaming from its file.
    pub fn open(&self) -> Result<Box<dyn Read + Send + 'a>, Error> {
        self.reopen().map_err(Error::read)
    }

    /// [`open`](Self::open) with the system's error type: what the formats' readings in two
    /// passes take, as an `open` closure, to start the recording again.
    pub fn reopen(&self) -> io::Result<Box<dyn Read + Send + 'a>> {
        match self.source {
            InputSource::Bytes(data) => Ok(Box::new(data)),
            InputSource::File(path) => Ok(Box::new(BufReader::with_capacity(
                STREAM_BUFFER,
                File::open(path)?,
            ))),
            InputSource::Compressed { stored, codec, .. } => decompressing(stored, codec),
        }
    }

    /// The recording's bytes when they are in memory (a reading over a slice can be
    /// faster than one over a reader); `None` for a file.
    pub fn in_memory(&self) -> Option<&'a [u8]> {
        match self.source {
            InputSource::Bytes(data) => Some(data),
            InputSource::File(_) | InputSource::Compressed { .. } => None,
        }
    }

    /// The recording's bytes: borrowed when they are in memory, read whole from its file
    /// otherwise (a file that grows while it is read, a recording in progress, is read as
    /// far as it goes).
    pub fn bytes(&self) -> Result<Cow<'a, [u8]>, Error> {
        match self.source {
            InputSource::Bytes(data) => Ok(Cow::Borrowed(data)),
            InputSource::File(path) => {
                let file = File::open(path).map_err(Error::read)?;
                let len = file.metadata().map(|m| m.len()).unwrap_or(0);
                let mut data = Vec::new();
                data.try_reserve_exact(usize::try_from(len).unwrap_or(0))
                    .map_err(|_| Error::read(io::ErrorKind::OutOfMemory.into()))?;
                BufReader::new(file)
                    .read_to_end(&mut data)
                    .map_err(Error::read)?;
                Ok(Cow::Owned(data))
            }
            InputSource::Compressed { limit, .. } => {
                let reader = self.open()?;
                let mut data = Vec::new();
                read_bounded(reader, limit, &mut data)?;
                Ok(Cow::Owned(data))
            }
        }
    }

    /// The codec the recording is compressed with, if it is.
    pub fn codec(&self) -> Option<Codec> {
        match self.source {
            InputSource::Compressed { codec, .. } => Some(codec),
            _ => None,
        }
    }
}

/// A decompressing reader of `stored`.
#[cfg(feature = "compressed")]
fn decompressing<'a>(stored: Stored<'a>, codec: Codec) -> io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match stored {
        Stored::Bytes(data) => crate::compressed::decoder(codec, data),
        Stored::File(path) => crate::compressed::decoder(codec, File::open(path)?),
    })
}

/// Without the codecs, a compressed input cannot be opened (the entry point refuses it
/// before it gets here).
#[cfg(not(feature = "compressed"))]
fn decompressing<'a>(stored: Stored<'a>, codec: Codec) -> io::Result<Box<dyn Read + Send + 'a>> {
    let _ = stored;
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("a {codec} stream needs demokit built with the `compressed` feature"),
    ))
}

/// Reads `reader` to its end, refusing more than `limit` bytes. The buffer grows by a
/// quarter of what it holds at a time (not doubling, as `read_to_end` would), so what it
/// costs stays within 1.25 times what was read; an allocation the system refuses is an
/// error, not an abort.
pub(crate) fn read_bounded(
    mut reader: impl Read,
    limit: u64,
    data: &mut Vec<u8>,
) -> Result<(), Error> {
    const MIN_STEP: usize = 64 * 1024;
    loop {
        if data.len() as u64 > limit {
            return Err(Error::TooLong { limit });
        }
        if data.len() == data.capacity() {
            // One byte past the limit is enough to know the stream is longer.
            let room = usize::try_from(limit + 1 - data.len() as u64).unwrap_or(usize::MAX);
            let step = (data.len() / 4).max(MIN_STEP).min(room.max(1));
            data.try_reserve_exact(step)
                .map_err(|_| Error::read(io::ErrorKind::OutOfMemory.into()))?;
        }
        // Read through a window of the spare capacity, so that each byte is zeroed once.
        let filled = data.len();
        let window = (data.capacity() - filled).min(MIN_STEP * 16);
        data.resize(filled + window, 0);
        let n = loop {
            match reader.read(data.get_mut(filled..).unwrap_or_default()) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    data.truncate(filled);
                    return Err(Error::read(e));
                }
            }
        };
        data.truncate(filled + n);
        if n == 0 {
            return Ok(());
        }
    }
}

/// The result type of an operation a format does not have: it has no values, so such an
/// operation can only fail ([`Error::Unsupported`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Unsupported {}

/// Whether a result type of an optional operation is a real one: `true` for each format's
/// own result types, `false` for [`Unsupported`]. The entry point lists an operation's
/// formats from it, so that list cannot drift from the implementations.
pub trait Capability {
    /// Whether the operation that gives this type exists.
    const SUPPORTED: bool;
}

impl Capability for Unsupported {
    const SUPPORTED: bool = false;
}

/// The result types of the operations only some formats have, as a
/// [`RecordingFormat::Optional`]: each a real type where the format has the operation,
/// [`Unsupported`] where it does not ([`Unsupported`] itself is the set of a format that
/// has none of them).
pub trait OptionalResults {
    /// What [`convert`](RecordingFormat::convert) did.
    type ConvertReport: Capability;
    /// The timeline markers [`markers`](RecordingFormat::markers) lists.
    type Markers: Capability;
    /// What [`edit_markers`](RecordingFormat::edit_markers) did.
    type MarkersReport: Capability;
    /// The embedded map [`extract_map`](RecordingFormat::extract_map) gives.
    type EmbeddedMap: Capability;
    /// The chat lines [`chat`](RecordingFormat::chat) lists.
    type ChatLines: Capability;
    /// The full snapshot of a tick [`snapshots`](RecordingFormat::snapshots) hands out.
    type Snapshot<'a>: Capability;
}

impl OptionalResults for Unsupported {
    type ConvertReport = Unsupported;
    type Markers = Unsupported;
    type MarkersReport = Unsupported;
    type EmbeddedMap = Unsupported;
    type ChatLines = Unsupported;
    type Snapshot<'a> = Unsupported;
}

/// The optional results of format `F`.
type Optional<F> = <F as RecordingFormat>::Optional;

/// What a recording format does: every operation of the entry point, read from an
/// [`Input`] and written to a `dyn Write`, with the format's own result types.
///
/// The operations every format has are required methods. Those only some have come with
/// a result type of [`OptionalResults`] (the format's [`Optional`](Self::Optional)): a
/// format without the operation sets it to [`Unsupported`] and keeps the provided method,
/// which refuses; the entry point lists an operation's formats from these types.
pub trait RecordingFormat: 'static {
    /// The format's tag.
    const FORMAT: Format;
    /// The header line of a text dump: the columns of its records' `Display` lines.
    const DUMP_COLUMNS: &'static str;

    /// What [`summary`](Self::summary) gives: header facts and counts.
    type Summary;
    /// How [`rewrite`](Self::rewrite) wrote the records.
    type RewriteStats;
    /// What [`repair`](Self::repair) did.
    type RepairReport;
    /// What [`trim`](Self::trim) kept.
    type TrimReport;
    /// What [`scrub`](Self::scrub) changed.
    type ScrubReport;
    /// One stored record as [`dump`](Self::dump) hands it out.
    type Record<'a>;
    /// One game event as [`events`](Self::events) hands it out.
    type Event<'a>;
    /// One typed record of the game protocol as [`game_records`](Self::game_records)
    /// hands it out.
    type GameRecord<'a>;
    /// The results of the operations only some formats have: [`Unsupported`] for a
    /// format that has none of them.
    type Optional: OptionalResults;

    /// Reads the header (for a demo, its map too) and nothing after it.
    fn check_header(input: Input<'_>) -> Result<(), Error>;

    /// The summary, and the error that ended the scan early (everything before it counted).
    fn summary(input: Input<'_>) -> Result<(Self::Summary, Option<Error>), Error>;

    /// Every problem the program that plays or reads the recording would find, in file
    /// order.
    fn validate(input: Input<'_>) -> Result<Validation, Error>;

    /// Writes the recording again through the format's writer. A read error ends it early
    /// and comes back beside what was written; a record that cannot be written again is
    /// [`Error::Refused`], a failing `out` an [`Error::Io`].
    fn rewrite(
        input: Input<'_>,
        out: &mut dyn Write,
    ) -> Result<(Self::RewriteStats, Option<Error>), Error>;

    /// Repairs an unfinished or cut-off recording.
    fn repair(
        input: Input<'_>,
        options: &RepairOptions,
        out: &mut dyn Write,
    ) -> Result<Self::RepairReport, Error>;

    /// The ticks from `from` to `to` (a bound `None`: the recording's start or end) as
    /// the format counts them; a bound the format cannot name or an empty range is
    /// [`Error::Argument`] of `operation`.
    fn tick_range(
        input: Input<'_>,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        operation: Operation,
    ) -> Result<TickRange, Error>;

    /// Writes the part of the recording from `from` to `to` as a recording of its own.
    fn trim(
        input: Input<'_>,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        out: &mut dyn Write,
    ) -> Result<Self::TrimReport, Error>;

    /// The scrub options that remove everything this format can carry that names or
    /// identifies someone, names keyed by `key`.
    fn scrub_everything(key: Option<Vec<u8>>) -> ScrubOptions;

    /// Writes the recording scrubbed as `options` ask.
    fn scrub(
        input: Input<'_>,
        options: &ScrubOptions,
        out: &mut dyn Write,
    ) -> Result<Self::ScrubReport, Error>;

    /// Hands every stored record to `each`, in file order.
    fn dump(input: Input<'_>, each: &mut dyn FnMut(Self::Record<'_>)) -> Result<DumpEnd, Error>;

    /// The players and the chat, and the error that ended the walk early.
    fn game_log(input: Input<'_>) -> Result<(GameLog, Option<Error>), Error>;

    /// Hands every game event to `each`, in order.
    fn events(input: Input<'_>, each: &mut dyn FnMut(Self::Event<'_>)) -> Result<GameWalk, Error>;

    /// Hands every typed record of the game protocol to `each`, in order.
    fn game_records(
        input: Input<'_>,
        each: &mut dyn FnMut(Self::GameRecord<'_>),
    ) -> Result<GameWalk, Error>;

    /// Where and when the game was played, as the recording's header says (nothing after
    /// the header is read).
    fn facts(input: Input<'_>) -> Result<GameFacts, Error>;

    /// Walks the game as the [model](crate::model) states it, whatever the format: the
    /// players in the game at every tick of `options`' range, handed to `sink` tick by
    /// tick in tick order (client id order within a tick), with what else `options`
    /// asks for that the format records (inputs, protocol events, frames); then the
    /// game's facts, its log and how much was read. A read error ends the walk early;
    /// what came before it was handed out, and the error is in the [`GameEnd`].
    fn game(
        input: Input<'_>,
        options: &GameOptions,
        sink: &mut dyn GameSink,
    ) -> Result<GameEnd, Error>;

    /// The Teeworlds/DDNet map the game was played on, as a map file's bytes: `given`
    /// (checked against the recording's checksum where it has one) or the one the
    /// recording holds; `None` where there is none to draw. A map the format cannot use
    /// is [`Error::Argument`] of `operation`, a missing or wrong one [`Error::Map`].
    fn game_map(
        input: Input<'_>,
        given: Option<&[u8]>,
        operation: Operation,
    ) -> Result<Option<Vec<u8>>, Error>;

    /// Converts the recording to another `version` of the format.
    fn convert(
        input: Input<'_>,
        version: u8,
        out: &mut dyn Write,
    ) -> Result<<Optional<Self> as OptionalResults>::ConvertReport, Error> {
        let _ = (input, version, out);
        Err(Error::unsupported(Self::FORMAT, Operation::Convert))
    }

    /// The timeline markers.
    fn markers(input: Input<'_>) -> Result<<Optional<Self> as OptionalResults>::Markers, Error> {
        let _ = input;
        Err(Error::unsupported(Self::FORMAT, Operation::Markers))
    }

    /// Adds and removes timeline markers, each named as a range bound is.
    fn edit_markers(
        input: Input<'_>,
        add: &[RangeBound],
        remove: &[RangeBound],
        out: &mut dyn Write,
    ) -> Result<<Optional<Self> as OptionalResults>::MarkersReport, Error> {
        let _ = (input, add, remove, out);
        Err(Error::unsupported(Self::FORMAT, Operation::Markers))
    }

    /// The map the recording embeds, with its checksums.
    fn extract_map(
        input: Input<'_>,
    ) -> Result<<Optional<Self> as OptionalResults>::EmbeddedMap, Error> {
        let _ = input;
        Err(Error::unsupported(Self::FORMAT, Operation::ExtractMap))
    }

    /// The chat lines as the format's own chat tool lists them, and the error that ended
    /// the walk early.
    fn chat(
        input: Input<'_>,
    ) -> Result<
        (
            <Optional<Self> as OptionalResults>::ChatLines,
            Option<Error>,
        ),
        Error,
    > {
        let _ = input;
        Err(Error::unsupported(Self::FORMAT, Operation::Chat))
    }

    /// Hands the full snapshot at every tick to `each`, its items sorted by type and id.
    fn snapshots(
        input: Input<'_>,
        each: &mut dyn FnMut(<Optional<Self> as OptionalResults>::Snapshot<'_>),
    ) -> Result<GameWalk, Error> {
        let _ = (input, each);
        Err(Error::unsupported(Self::FORMAT, Operation::Snapshots))
    }
}

/// A rewrite's result as [`RecordingFormat::rewrite`] gives it, from a format's
/// `rewrite_reader`: the statistics and the read error that ended it early, or the
/// refusal of a record that cannot be written again.
pub(crate) fn rewritten<O, S, R: Into<Error>, W: std::fmt::Display>(
    result: Result<(O, S), (S, RewriteError<R, W>)>,
) -> Result<(S, Option<Error>), Error> {
    match result {
        Ok((_, stats)) => Ok((stats, None)),
        Err((stats, RewriteError::Read(e))) => Ok((stats, Some(e.into()))),
        Err((_, RewriteError::Write(e))) => Err(Error::refused(
            Operation::Rewrite,
            format_args!("the recording cannot be written again: {e}"),
        )),
    }
}

/// A scrub that failed on the recording at `offset`, or on its options (no offset).
pub(crate) fn scrub_failed(offset: Option<u64>, error: &dyn std::fmt::Display) -> Error {
    match offset {
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
    }
}

/// The map given to `operation` is not the recording's: its `checksum` differs.
pub(crate) fn map_mismatch(
    operation: Operation,
    checksum: &'static str,
    expected: String,
    actual: String,
) -> Error {
    Error::Map {
        operation,
        problem: MapProblem::Mismatch {
            checksum,
            expected,
            actual,
        },
    }
}

/// What [`RecordingFormat::validate`] found.
///
/// With the `serde` feature: `{"format", "accepted", "verdict" (demos only), "problems"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Validation {
    /// The recording's format.
    pub format: Format,
    /// Whether the file passes: no fatal problem.
    pub accepted: bool,
    /// Demos: how DDNet's client ends with it (plays, rejects or crashes).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub verdict: Option<Verdict>,
    /// Everything found, in file order: the warnings, then the fatal problem the check
    /// stopped at, if any.
    pub problems: Vec<Problem>,
}

impl Validation {
    /// The number of problems that are only warnings.
    pub fn warnings(&self) -> usize {
        self.problems.iter().filter(|p| !p.fatal).count()
    }
}

/// What [`RecordingFormat::repair`] may be told.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct RepairOptions {
    /// Source demos: the seconds per tick, where the game's own rate is unknown (the
    /// header's playback time is recomputed from it).
    pub tick_interval: Option<f32>,
}

impl RepairOptions {
    /// Options with a Source demo's tick interval.
    pub fn with_tick_interval(tick_interval: Option<f32>) -> RepairOptions {
        RepairOptions { tick_interval }
    }
}

/// How [`RecordingFormat::dump`] ended.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct DumpEnd {
    /// Demos: how many chunk payloads could not be decoded, and the offset and reason of
    /// the first.
    pub undecodable: Option<(usize, u64, String)>,
    /// The read error that ended the dump early; every record before it was handed out.
    pub error: Option<Error>,
}

/// How a walk over the game layer ([`RecordingFormat::events`],
/// [`RecordingFormat::game_records`]) ended.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct GameWalk {
    /// Demos: snapshots or deltas that were invalid and skipped, as DDNet's player skips
    /// them.
    pub skipped: usize,
    /// The error that ended the walk early; everything before it was handed out.
    pub error: Option<Error>,
}

/// How the game stream ([`RecordingFormat::game`]) ended: the game's facts, its log
/// (players, events and chat, up to where the walk stopped) and the error that ended the
/// walk early.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct GameEnd {
    /// Where and when the game was played.
    pub facts: GameFacts,
    /// The players, events and chat.
    pub log: GameLog,
    /// The error that ended the walk early; everything before it was handed out.
    pub error: Option<Error>,
    /// Records read: demo chunks, teehistorian messages or Source frames.
    pub records: u64,
    /// The first tick of play read, as `info` counts ticks.
    pub first_tick: Option<i32>,
    /// The last tick of play read (where the walk stopped, if it stopped early).
    pub last_tick: Option<i32>,
    /// Whether the recording says it ended where it should (a teehistorian file's
    /// FINISH); `None` for the formats that do not say.
    pub finished: Option<bool>,
}

impl GameEnd {
    /// Notes `tick` as read.
    pub(crate) fn saw(&mut self, tick: i32) {
        self.first_tick.get_or_insert(tick);
        self.last_tick = Some(tick);
    }
}
