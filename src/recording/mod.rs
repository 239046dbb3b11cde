//! One entry point for every recording: open a Teeworlds/DDNet demo, a DDNet teehistorian
//! file or a Source engine demo from a path, a reader or bytes, and do what every front end
//! needs through it (the command-line tool, the Python package, the tables and the C ABI
//! reach the formats only here).
//!
//! [`Recording`] tells the format from the magic bytes, and each operation hands the
//! recording to its format's own implementation ([`twdemo`],
//! [`teehistorian`], [`source`]). An operation a format
//! does not have is [`Error::Unsupported`], never a silent fallback to another format. The
//! reports come back as the formats' own types, wrapped where the formats differ
//! ([`Summary`], [`RepairReport`], [`RewriteReport`]); with the `serde` feature they
//! serialize as the format's type does, and their `Display` is the text the command-line
//! tool prints.
//!
//! What this layer leaves to others: the formats' details (each format module), reading
//! inputs a front end names in its own way (`-` for standard input is the tool's), and
//! what to do next about an error (the tool says which command to run).
//!
//! ```
//! use demokit::recording::Recording;
//!
//! let recording = Recording::open("fixtures/recorded_v6.demo")?;
//! let (summary, error) = recording.summary()?;
//! assert!(error.is_none());
//! println!("{summary}");
//! let validation = recording.validate()?;
//! println!("{} problems", validation.problems.len());
//! # Ok::<(), demokit::recording::Error>(())
//! ```

mod dump;
mod error;
mod game;
mod map_directory;
#[cfg(feature = "page")]
mod page;
#[cfg(feature = "render")]
mod render;
mod scrub;
mod text;
mod trim;
mod visit;

pub use crate::detect::{Format, detect};
pub use dump::{DemoChunk, DumpEnd, DumpRecord};
pub use error::{Cause, Error, MapProblem, Operation};
pub use game::{DemoRecord, GameEvent, GameRecord, GameWalk};
pub use map_directory::{MAX_MAP_FILES, MapDirectory};
pub use scrub::ScrubReport;
pub use trim::TrimReport;
pub use visit::{TeehistorianStream, Visitor};

pub use crate::report::{Problem, ProblemKind, Verdict};
use crate::time::RangeBound;
use crate::{source, teehistorian, twdemo};
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// How much of an input is read, at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The most bytes read from a stream that is not a regular file (a pipe, a device such
    /// as `/dev/zero`, standard input): past it, [`Error::TooLong`]. A regular file's
    /// length is known, so it is read as it is.
    pub max_stream_bytes: u64,
}

impl Limits {
    /// 1 GiB from a stream ([`DEFAULT_MAX_STREAM_BYTES`]): more than any demo, and a day of
    /// a busy server's teehistorian; a stream is held in memory, so the limit is what it
    /// may cost (the buffer grows by a quarter at a time, so at most 1.25 GiB). A longer
    /// recording is read from a regular file, which is read as a file.
    pub const DEFAULT: Limits = Limits {
        max_stream_bytes: DEFAULT_MAX_STREAM_BYTES,
    };
}

/// The most bytes [`Limits::DEFAULT`] reads from a stream that is not a regular file:
/// 1 GiB.
pub const DEFAULT_MAX_STREAM_BYTES: u64 = 1 << 30;

impl Default for Limits {
    fn default() -> Limits {
        Limits::DEFAULT
    }
}

/// A recording of any supported format: its format, and where its bytes are.
#[derive(Debug)]
pub struct Recording {
    format: Format,
    source: Source,
}

/// Where a recording's bytes are.
#[derive(Debug)]
enum Source {
    /// In memory.
    Bytes(Vec<u8>),
    /// A regular file, opened again for each operation (so streaming operations read it
    /// as a stream, and the others whole).
    Path(PathBuf),
}

/// The formats demokit reads; the other formats [`detect`](crate::detect::detect) knows are
/// refused with a sentence that says what they are.
fn supported(head: &[u8]) -> Result<Format, Error> {
    match crate::detect::detect(head) {
        Some(format) if format.is_read() => Ok(format),
        Some(format) => Err(Error::UnknownFormat {
            format: Some(format),
            message: format!(
                "{} is a different format from Source's HL2DEMO (and from Teeworlds/DDNet \
                 recordings) and is not read",
                format.name()
            ),
        }),
        None if head.is_empty() => Err(Error::UnknownFormat {
            format: None,
            message: "the file is empty (unknown format)".into(),
        }),
        None => {
            let head = &head[..head.len().min(8)];
            Err(Error::UnknownFormat {
                format: None,
                message: format!(
                    "unknown format: the file starts with {} (\"{}\"), which is no known magic \
                     (a Teeworlds/DDNet demo starts with \"TWDEMO\\0\", a DDNet teehistorian \
                     file with the UUID 699db17b-8efb-34ff-b1d8-da6f60c15dd1, a Source demo \
                     with \"HL2DEMO\\0\")",
                    hex::encode(head),
                    head.escape_ascii()
                ),
            })
        }
    }
}

/// The longest magic the formats have: a teehistorian file's UUID.
const MAGIC_LEN: usize = 16;

/// Reads `reader` to its end, refusing more than `limit` bytes. The buffer grows by a
/// quarter of what it holds at a time (not doubling, as `read_to_end` would), so what it
/// costs stays within 1.25 times what was read; an allocation the system refuses is an
/// error, not an abort.
fn read_bounded(mut reader: impl Read, limit: u64, data: &mut Vec<u8>) -> Result<(), Error> {
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
            match reader.read(&mut data[filled..]) {
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

/// The bytes of the file at `path`, read as [`Recording::open_with`] reads an input: a
/// regular file whole, anything else (a pipe, a device) up to `limits`
/// ([`Error::TooLong`] past it). For front ends that also take files demokit does not
/// read as recordings (the tables list them too).
pub fn read_input(path: impl AsRef<Path>, limits: Limits) -> Result<Vec<u8>, Error> {
    let path = path.as_ref();
    let file = File::open(path).map_err(Error::read)?;
    let meta = file.metadata().map_err(Error::read)?;
    let mut data = Vec::new();
    if meta.is_file() {
        data.try_reserve_exact(usize::try_from(meta.len()).unwrap_or(usize::MAX))
            .map_err(|_| Error::read(io::ErrorKind::OutOfMemory.into()))?;
        BufReader::new(file)
            .read_to_end(&mut data)
            .map_err(Error::read)?;
    } else {
        read_bounded(file, limits.max_stream_bytes, &mut data)?;
    }
    Ok(data)
}

impl Recording {
    /// Opens the recording at `path` and tells its format from its first bytes. A regular
    /// file stays on disk until an operation reads it; anything else (a pipe, a device) is
    /// read now, up to [`Limits::DEFAULT`].
    pub fn open(path: impl AsRef<Path>) -> Result<Recording, Error> {
        Recording::open_with(path, Limits::DEFAULT)
    }

    /// [`open`](Self::open) with other limits.
    pub fn open_with(path: impl AsRef<Path>, limits: Limits) -> Result<Recording, Error> {
        let path = path.as_ref();
        let mut file = File::open(path).map_err(Error::read)?;
        let regular = file.metadata().map_err(Error::read)?.is_file();
        if !regular {
            return Recording::from_reader_with(file, limits);
        }
        let mut head = Vec::with_capacity(MAGIC_LEN);
        (&mut file)
            .take(MAGIC_LEN as u64)
            .read_to_end(&mut head)
            .map_err(Error::read)?;
        Ok(Recording {
            format: supported(&head)?,
            source: Source::Path(path.to_owned()),
        })
    }

    /// The recording in `data`.
    pub fn from_bytes(data: Vec<u8>) -> Result<Recording, Error> {
        Ok(Recording {
            format: supported(&data)?,
            source: Source::Bytes(data),
        })
    }

    /// The recording `reader` sends, read to its end (at most [`Limits::DEFAULT`]).
    pub fn from_reader(reader: impl Read) -> Result<Recording, Error> {
        Recording::from_reader_with(reader, Limits::DEFAULT)
    }

    /// [`from_reader`](Self::from_reader) with other limits.
    pub fn from_reader_with(mut reader: impl Read, limits: Limits) -> Result<Recording, Error> {
        // The magic first, so that a stream of something else is refused after 16 bytes
        // rather than after the limit.
        let mut data = Vec::new();
        (&mut reader)
            .take(MAGIC_LEN as u64)
            .read_to_end(&mut data)
            .map_err(Error::read)?;
        let format = supported(&data)?;
        let rest = limits.max_stream_bytes.saturating_sub(data.len() as u64);
        let mut tail = Vec::new();
        read_bounded(reader, rest, &mut tail).map_err(|e| match e {
            Error::TooLong { .. } => Error::TooLong {
                limit: limits.max_stream_bytes,
            },
            other => other,
        })?;
        data.append(&mut tail);
        Ok(Recording {
            format,
            source: Source::Bytes(data),
        })
    }

    /// The recording's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The file the recording was opened from, when it is one.
    pub fn path(&self) -> Option<&Path> {
        match &self.source {
            Source::Path(path) => Some(path),
            Source::Bytes(_) => None,
        }
    }

    /// The recording's bytes: borrowed when they are in memory, read whole from its file
    /// otherwise.
    pub fn bytes(&self) -> Result<Cow<'_, [u8]>, Error> {
        match &self.source {
            Source::Bytes(data) => Ok(Cow::Borrowed(data)),
            Source::Path(path) => {
                let file = File::open(path).map_err(Error::read)?;
                let len = file.metadata().map(|m| m.len()).unwrap_or(0);
                let mut data = Vec::new();
                data.try_reserve_exact(usize::try_from(len).unwrap_or(0))
                    .map_err(|_| Error::read(io::ErrorKind::OutOfMemory.into()))?;
                // A regular file that grows while it is read (a recording in progress) is
                // read as far as it goes.
                BufReader::new(file)
                    .read_to_end(&mut data)
                    .map_err(Error::read)?;
                Ok(Cow::Owned(data))
            }
        }
    }

    /// A reader over the recording's bytes from the start, streaming from its file.
    fn reader(&self) -> Result<Box<dyn Read + '_>, Error> {
        match &self.source {
            Source::Bytes(data) => Ok(Box::new(&data[..])),
            Source::Path(path) => {
                let file = File::open(path).map_err(Error::read)?;
                Ok(Box::new(BufReader::with_capacity(64 * 1024, file)))
            }
        }
    }

    /// [`Error::Unsupported`] for `operation` on this recording.
    fn unsupported(&self, operation: Operation) -> Error {
        Error::Unsupported {
            format: self.format,
            operation,
        }
    }

    /// Reads the recording's header (for a demo, its map too) and nothing after it: the
    /// check a front end makes before it reads anything lazily, so that a file whose header
    /// does not read is refused at once, as [`summary`](Self::summary) would refuse it.
    pub fn check_header(&self) -> Result<(), Error> {
        match self.format {
            Format::TwDemo => {
                twdemo::DemoReader::new(self.reader()?)?;
            }
            Format::Teehistorian => {
                teehistorian::TeehistorianReader::new(self.reader()?)?;
            }
            Format::SourceDemo => {
                source::SourceReader::new(self.reader()?)?;
            }
            _ => return Err(self.unsupported(Operation::Summary)),
        }
        Ok(())
    }

    /// The recording's summary (header facts and counts of what it holds), and the error
    /// that ended the scan early, if any: everything before it is counted. Teehistorian
    /// files and Source demos are read as a stream, so memory stays flat however long the
    /// recording is.
    pub fn summary(&self) -> Result<(Summary, Option<Error>), Error> {
        fn wrap<S, E: Into<Error>>(
            scanned: Result<(S, Option<E>), E>,
            into: impl FnOnce(S) -> Summary,
        ) -> Result<(Summary, Option<Error>), Error> {
            let (summary, error) = scanned.map_err(Into::into)?;
            Ok((into(summary), error.map(Into::into)))
        }
        match self.format {
            Format::TwDemo => wrap(
                twdemo::Summary::scan_reader(self.reader()?),
                Summary::TwDemo,
            ),
            Format::Teehistorian => wrap(
                teehistorian::Summary::scan_reader(self.reader()?),
                Summary::Teehistorian,
            ),
            Format::SourceDemo => wrap(
                source::summary::Summary::scan_reader(self.reader()?),
                Summary::Source,
            ),
            _ => Err(self.unsupported(Operation::Summary)),
        }
    }

    /// Checks the recording as the program that plays or reads it would: every problem
    /// found, in file order (for a demo, DDNet's client's checks in its order, with its
    /// verdict).
    pub fn validate(&self) -> Result<Validation, Error> {
        let report = match self.format {
            Format::TwDemo => {
                // Read twice as a stream (DDNet's scan, then its playing).
                let open = || self.reader().map_err(io::Error::other);
                twdemo::edit::validate::validate_reader(open)
            }
            // Read as a stream: memory does not grow with the file.
            Format::Teehistorian => teehistorian::summary::validate_reader(self.reader()?),
            Format::SourceDemo => source::summary::validate_reader(self.reader()?),
            _ => return Err(self.unsupported(Operation::Validate)),
        };
        Ok(Validation {
            format: self.format,
            accepted: report.accepted(),
            // Only DDNet's client has a way of ending worth naming beyond pass or fail.
            verdict: (self.format == Format::TwDemo).then(|| report.verdict()),
            problems: report.problems,
        })
    }

    /// Writes the recording again through its format's writer: the same bytes for a file
    /// the writer would have written itself. On a read error, what came before it is
    /// written and the error is in the report (`error`); only a failing `out` or a record
    /// that cannot be written again is an `Err`.
    pub fn rewrite<W: Write>(&self, mut out: W) -> Result<RewriteReport, Error> {
        // Straight into `out` (no second copy of the recording in memory), counting what
        // goes through and keeping `out`'s own failure apart from a record that cannot be
        // written again.
        let mut sink = Counting {
            inner: &mut out,
            written: 0,
            failed: None,
        };
        type Rewritten<'a, 'w, S, R, W, O> =
            Result<(&'a mut Counting<&'w mut O>, S), (S, crate::report::RewriteError<R, W>)>;
        fn split<S, R: Into<Error>, W: std::fmt::Display, O>(
            result: Rewritten<'_, '_, S, R, W, O>,
        ) -> (S, Option<Error>, bool) {
            match result {
                Ok((_, stats)) => (stats, None, false),
                Err((stats, crate::report::RewriteError::Read(e))) => {
                    (stats, Some(e.into()), false)
                }
                Err((stats, crate::report::RewriteError::Write(e))) => (
                    stats,
                    Some(Error::refused(
                        Operation::Rewrite,
                        format_args!("the recording cannot be written again: {e}"),
                    )),
                    true,
                ),
            }
        }
        let (stats, error, write_failed) = match self.format {
            Format::TwDemo => {
                let read = twdemo::container::demo::rewrite_reader(self.reader()?, &mut sink);
                let (s, e, w) = split(read);
                (RewriteStats::TwDemo(s), e, w)
            }
            Format::Teehistorian => {
                let read = teehistorian::writer::rewrite_reader(self.reader()?, &mut sink);
                let (s, e, w) = split(read);
                (RewriteStats::Teehistorian(s), e, w)
            }
            Format::SourceDemo => {
                let (s, e, w) = split(source::rewrite_reader(self.reader()?, &mut sink));
                (RewriteStats::Source(s), e, w)
            }
            _ => return Err(self.unsupported(Operation::Rewrite)),
        };
        if let Some(e) = sink.failed.take() {
            return Err(Error::write(e));
        }
        if write_failed && let Some(error) = error {
            return Err(error);
        }
        let written = sink.written;
        Ok(RewriteReport {
            stats,
            written,
            error,
        })
    }

    /// Repairs an unfinished or cut-off recording: every complete record kept, the end the
    /// recorder never wrote added, the header's length fields made true.
    pub fn repair<W: Write>(
        &self,
        options: &RepairOptions,
        mut out: W,
    ) -> Result<RepairReport, Error> {
        // Every format is read as a stream (twice: what the header needs is at the end).
        let refused = |e: &dyn std::fmt::Display| Error::refused(Operation::Repair, e);
        match self.format {
            Format::TwDemo => {
                let open = || self.reader().map_err(std::io::Error::other);
                twdemo::edit::repair::repair_reader(open, &mut out)
                    .map(RepairReport::TwDemo)
                    .map_err(|e| match e {
                        twdemo::RepairError::Write(e) => Error::write(e),
                        twdemo::RepairError::Reread(e) => e.into(),
                        other => refused(&other),
                    })
            }
            Format::Teehistorian => teehistorian::repair::repair_reader(self.reader()?, &mut out)
                .map(RepairReport::Teehistorian)
                .map_err(|e| match e {
                    teehistorian::RepairError::Write(e) => Error::write(e),
                    other => refused(&other),
                }),
            Format::SourceDemo => {
                let options = source::RepairOptions {
                    tick_interval: options.tick_interval,
                };
                let open = || self.reader().map_err(std::io::Error::other);
                source::repair_reader(open, &options, &mut out)
                    .map(RepairReport::Source)
                    .map_err(|e| match e {
                        source::RepairError::Write(source::WriteError::Io(e)) => Error::write(e),
                        other => refused(&other),
                    })
            }
            _ => Err(self.unsupported(Operation::Repair)),
        }
    }

    /// Converts a demo to another version of the format (3 to 6).
    pub fn convert<W: Write>(
        &self,
        version: u8,
        mut out: W,
    ) -> Result<twdemo::edit::convert::ConvertReport, Error> {
        if self.format != Format::TwDemo {
            return Err(self.unsupported(Operation::Convert));
        }
        // Read as a stream and written as it goes.
        let open = || self.reader().map_err(std::io::Error::other);
        twdemo::edit::convert::convert_reader(open, version, &mut out).map_err(|e| match e {
            twdemo::edit::convert::ConvertError::Write(twdemo::WriteError::Io(e)) => {
                Error::write(e)
            }
            other => Error::refused(Operation::Convert, other),
        })
    }

    /// The timeline markers of a demo.
    pub fn markers(&self) -> Result<twdemo::edit::markers::MarkerList, Error> {
        if self.format != Format::TwDemo {
            return Err(self.unsupported(Operation::Markers));
        }
        Ok(twdemo::edit::markers::list_markers_reader(self.reader()?)?)
    }

    /// Adds and removes timeline markers of a demo, as DDNet's recorder would have placed
    /// them. Each is named as `trim` names a range's start: a tick, seconds from the first
    /// tick (rounded up to a whole tick) or an existing marker (`m2`, for a removal); a
    /// tick outside the demo, a marker it lacks or a time before its first tick is
    /// [`Error::Argument`].
    pub fn edit_markers<W: Write>(
        &self,
        add: &[RangeBound],
        remove: &[RangeBound],
        mut out: W,
    ) -> Result<twdemo::edit::markers::MarkersReport, Error> {
        if self.format != Format::TwDemo {
            return Err(self.unsupported(Operation::Markers));
        }
        // Read as streams: the ticks named, then the markers' checks, then the copy.
        let ticks = |bounds: &[RangeBound]| {
            twdemo::edit::trim::resolve_ticks_reader(self.reader()?, bounds).map_err(|e| match e {
                twdemo::edit::trim::RangeError::Read(e) => e.into(),
                usage => Error::Argument {
                    operation: Operation::Markers,
                    message: usage.to_string(),
                },
            })
        };
        let (add, remove) = (ticks(add)?, ticks(remove)?);
        let open = || self.reader().map_err(std::io::Error::other);
        twdemo::edit::markers::edit_markers_reader(open, &add, &remove, &mut out).map_err(|e| {
            match e {
                twdemo::edit::markers::MarkersError::Write(twdemo::WriteError::Io(e)) => {
                    Error::write(e)
                }
                other => Error::refused(Operation::Markers, other),
            }
        })
    }

    /// The map a demo embeds, with the header's checksums and their actual values.
    pub fn extract_map(&self) -> Result<twdemo::edit::repair::ExtractedMap, Error> {
        if self.format != Format::TwDemo {
            return Err(self.unsupported(Operation::ExtractMap));
        }
        twdemo::edit::repair::extract_map_reader(self.reader()?)
            .map_err(|e| Error::refused(Operation::ExtractMap, e))
    }
}

/// What [`Recording::validate`] found.
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

/// A writer that counts the bytes that go through and keeps the first error of the one it
/// wraps (a format's writer reports it as its own kind of error).
struct Counting<W> {
    inner: W,
    written: u64,
    failed: Option<io::Error>,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.inner.write(buf) {
            Ok(n) => {
                self.written += n as u64;
                Ok(n)
            }
            Err(e) => {
                let copy = io::Error::new(e.kind(), e.to_string());
                self.failed.get_or_insert(e);
                Err(copy)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// What [`Recording::repair`] may be told.
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

/// A recording's summary, in its format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
// One per recording: the size of the largest format's summary costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Summary {
    /// A Teeworlds/DDNet demo's.
    TwDemo(twdemo::Summary),
    /// A teehistorian file's.
    Teehistorian(teehistorian::Summary),
    /// A Source demo's.
    Source(source::summary::Summary),
    /// A Teeworlds/DDNet map's (a datafile, not a recording: [`map_summary`]), the facts
    /// `info` gives of a demo's embedded map.
    Map(crate::datafile::MapFacts),
}

impl Summary {
    /// The recording's first and last tick of play, as the game model counts them (a
    /// map has none).
    pub fn ticks(&self) -> Option<(i32, i32)> {
        match self {
            Summary::TwDemo(s) => s.first_tick.zip(s.last_tick),
            Summary::Teehistorian(s) => s.first_tick.zip(s.last_tick),
            Summary::Source(s) => s.first_tick.zip(s.last_tick),
            Summary::Map(_) => None,
        }
    }
}

/// The magics a Teeworlds/DDNet map (a datafile) starts with.
const DATAFILE_MAGICS: [&[u8; 4]; 2] = [b"DATA", b"ATAD"];

/// The facts of the Teeworlds/DDNet map at `path` (what `demokit info` gives of a map
/// `extract-map` wrote), as a [`Summary::Map`]; `Ok(None)` when the file does not start
/// like a datafile. A map is no recording, so [`Recording::open`] refuses it; a front end
/// that was handed one asks here. The file is read whole, up to [`Limits::DEFAULT`].
/// Only a regular file is looked at (`Ok(None)` for anything else): a pipe or a device
/// was read once already by whoever asks, and opening it again would wait for a writer
/// that never comes.
pub fn map_summary(path: impl AsRef<Path>) -> Result<Option<Summary>, Error> {
    let path = path.as_ref();
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let mut head = Vec::with_capacity(4);
    File::open(path)
        .map_err(Error::read)?
        .take(4)
        .read_to_end(&mut head)
        .map_err(Error::read)?;
    if !DATAFILE_MAGICS.iter().any(|m| head == m[..]) {
        return Ok(None);
    }
    let data = read_input(path, Limits::DEFAULT)?;
    let facts = crate::datafile::MapFacts::read(&data).map_err(|e| Error::Invalid {
        offset: e.offset,
        message: format!("not a valid map: {}", e.kind),
        truncated: false,
        io: false,
    })?;
    Ok(Some(Summary::Map(facts)))
}

/// What [`Recording::repair`] did, in the format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum RepairReport {
    /// A Teeworlds/DDNet demo's repair.
    TwDemo(twdemo::edit::repair::RepairReport),
    /// A teehistorian file's repair.
    Teehistorian(teehistorian::RepairReport),
    /// A Source demo's repair.
    Source(source::repair::RepairReport),
}

/// What [`Recording::rewrite`] wrote.
#[derive(Debug)]
#[non_exhaustive]
pub struct RewriteReport {
    /// How the records were written.
    pub stats: RewriteStats,
    /// Bytes written.
    pub written: u64,
    /// The read error that stopped the rewrite early; what came before it was written.
    pub error: Option<Error>,
}

/// How a rewrite wrote the records, in the format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum RewriteStats {
    /// A Teeworlds/DDNet demo's chunks.
    TwDemo(twdemo::container::demo::RewriteStats),
    /// A teehistorian file's messages.
    Teehistorian(teehistorian::RewriteStats),
    /// A Source demo's frames.
    Source(source::RewriteStats),
}
