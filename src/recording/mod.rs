//! One entry point for every recording: open a Teeworlds/DDNet demo, a DDNet teehistorian
//! file or a Source engine demo from a path, a reader or bytes, and do what every front end
//! needs through it (the command-line tool, the Python package, the tables and the C ABI
//! reach the formats only here).
//!
//! [`Recording`] tells the format from the magic bytes, and each operation hands the
//! recording to its format's implementation of [`RecordingFormat`]
//! ([`twdemo::TwDemo`], [`teehistorian::Teehistorian`], [`source::SourceDemo`]) through
//! one macro, the only place that turns a format's tag into code. An operation a format
//! does not have is [`Error::Unsupported`], never a silent fallback to another format;
//! which formats have an operation ([`Operation::formats`]) is read from the
//! implementations' result types. The reports come back as the formats' own types,
//! wrapped where the formats differ ([`Summary`], [`RepairReport`], [`RewriteReport`]);
//! with the `serde` feature they serialize as the format's type does, and their `Display`
//! is the text the command-line tool prints.
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

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

/// Runs `$body` with `$F` standing for the implementation of
/// [`RecordingFormat`] of the format `$format`: the one place that
/// turns a format's tag into its implementation. Every operation of [`Recording`] goes
/// through it, so the formats cannot differ in which operations they have except through
/// their [`Capability`] types.
macro_rules! forward {
    ($format:expr, $F:ident => $body:expr) => {
        match $format {
            Format::TwDemo => {
                type $F = crate::twdemo::TwDemo;
                // An arm's conversion into the entry point's type is the identity where
                // the format's type is that type already.
                #[allow(clippy::useless_conversion)]
                let result = $body;
                result
            }
            Format::Teehistorian => {
                type $F = crate::teehistorian::Teehistorian;
                // An arm's conversion into the entry point's type is the identity where
                // the format's type is that type already.
                #[allow(clippy::useless_conversion)]
                let result = $body;
                result
            }
            Format::SourceDemo => {
                type $F = crate::source::SourceDemo;
                // An arm's conversion into the entry point's type is the identity where
                // the format's type is that type already.
                #[allow(clippy::useless_conversion)]
                let result = $body;
                result
            }
            // A recording is never opened in another format (`supported` refuses them).
            other => Err(Error::UnknownFormat {
                format: Some(other),
                message: format!("{} files are not read by demokit", other.name()),
            }),
        }
    };
}

/// The optional results of format `F`.
type Optional<F> = <F as RecordingFormat>::Optional;

/// Whether implementation `F` has `operation`: every required method of
/// [`RecordingFormat`] is there, and an optional one is when its result type is a real
/// one ([`Capability`]).
const fn has<F: RecordingFormat>(operation: Operation) -> bool {
    match operation {
        Operation::Convert => {
            <<Optional<F> as OptionalResults>::ConvertReport as Capability>::SUPPORTED
        }
        Operation::Markers => {
            <<Optional<F> as OptionalResults>::Markers as Capability>::SUPPORTED
                && <<Optional<F> as OptionalResults>::MarkersReport as Capability>::SUPPORTED
        }
        Operation::ExtractMap => {
            <<Optional<F> as OptionalResults>::EmbeddedMap as Capability>::SUPPORTED
        }
        Operation::Chat => <<Optional<F> as OptionalResults>::ChatLines as Capability>::SUPPORTED,
        Operation::Snapshots => {
            <<Optional<F> as OptionalResults>::Snapshot<'static> as Capability>::SUPPORTED
        }
        _ => true,
    }
}

/// Whether recordings of `format` have `operation`, as its implementation says.
fn supports(format: Format, operation: Operation) -> bool {
    let found: Result<bool, Error> = forward!(format, F => Ok(has::<F>(operation)));
    found.unwrap_or(false)
}

impl Operation {
    /// The formats that have the operation, read from their implementations of
    /// [`RecordingFormat`].
    pub fn formats(self) -> Vec<Format> {
        Format::READ
            .into_iter()
            .filter(|format| supports(*format, self))
            .collect()
    }
}

/// `From` each format's own type into the entry point's enum over them, `$wrapper`, whose
/// variants are named as the formats' tags are ([`Format::SourceDemo`] as `Source`).
macro_rules! from_formats {
    ($wrapper:ident $(<$lt:lifetime>)?, $assoc:ident) => {
        impl$(<$lt>)? From<<crate::twdemo::TwDemo as RecordingFormat>::$assoc$(<$lt>)?>
            for $wrapper$(<$lt>)?
        {
            fn from(value: <crate::twdemo::TwDemo as RecordingFormat>::$assoc$(<$lt>)?) -> Self {
                $wrapper::TwDemo(value)
            }
        }
        impl$(<$lt>)? From<<crate::teehistorian::Teehistorian as RecordingFormat>::$assoc$(<$lt>)?>
            for $wrapper$(<$lt>)?
        {
            fn from(
                value: <crate::teehistorian::Teehistorian as RecordingFormat>::$assoc$(<$lt>)?,
            ) -> Self {
                $wrapper::Teehistorian(value)
            }
        }
        impl$(<$lt>)? From<<crate::source::SourceDemo as RecordingFormat>::$assoc$(<$lt>)?>
            for $wrapper$(<$lt>)?
        {
            fn from(value: <crate::source::SourceDemo as RecordingFormat>::$assoc$(<$lt>)?) -> Self {
                $wrapper::Source(value)
            }
        }
    };
}

/// `From` [`Unsupported`] into the result types of the operations only some formats have:
/// the arms of [`forward!`] for the formats without them type-check, and never run.
macro_rules! from_unsupported {
    ($($ty:ty),* $(,)?) => {
        $(impl From<Unsupported> for $ty {
            fn from(never: Unsupported) -> Self {
                match never {}
            }
        })*
    };
}

mod borrowed;
mod dump;
mod game;
mod map_directory;
mod scrub;
mod text;
mod trim;

pub use crate::compressed::{Codec, Encoder, StreamError, as_named, encoder};
pub use crate::detect::detect;
pub use crate::format::{
    Cause, DumpEnd, Error, Format, GameEnd, GameWalk, MapProblem, Operation, RepairOptions,
    Validation,
};
// The formats' types this entry point's operations hand out, named here so that a front
// end reaches them through the entry point.
pub use crate::twdemo::edit::convert::ConvertReport;
pub use crate::twdemo::edit::markers::{MarkerList, MarkersReport};
pub use crate::twdemo::edit::repair::ExtractedMap;
pub use crate::twdemo::game::chat::DemoChatLine;
pub use crate::twdemo::operations::{DemoChunk, DemoRecord};
pub use crate::twdemo::snapshot::replay::ReplayedTick;
pub use dump::DumpRecord;
pub use game::{GameEvent, GameRecord};
pub use map_directory::{MAX_MAP_FILES, MapDirectory};
pub use scrub::ScrubReport;
pub use trim::TrimReport;

use crate::format::{
    Capability, Input, OptionalResults, RecordingFormat, Unsupported, read_bounded,
};
use crate::time::RangeBound;
pub use crate::validation::{Problem, ProblemKind, Verdict};
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
    /// length is known, so it is read as it is. A compressed recording is read as a
    /// stream by the operations that stream; the others decompress it into memory, up to
    /// this many bytes ([`Error::TooLong`] past it: a decompression bomb costs no more).
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

    /// Limits that read at most `max_stream_bytes` from a stream, and decompress at most
    /// that many bytes of a compressed recording into memory.
    pub const fn with_max_stream_bytes(max_stream_bytes: u64) -> Limits {
        Limits { max_stream_bytes }
    }
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
    /// Compressed, in memory: decompressed as each operation reads it.
    CompressedBytes {
        /// The compressed bytes.
        data: Vec<u8>,
        /// Their codec.
        codec: Codec,
        /// What may be decompressed into memory.
        limits: Limits,
    },
    /// A compressed regular file, opened again and decompressed as each operation reads
    /// it.
    CompressedPath {
        /// The file.
        path: PathBuf,
        /// Its codec.
        codec: Codec,
        /// What may be decompressed into memory.
        limits: Limits,
    },
}

/// How a compressed recording is stored ([`Recording::compression`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Compression {
    /// The codec.
    pub codec: Codec,
    /// The compressed size: the file's, or the bytes' the recording was made from.
    pub compressed_bytes: u64,
    /// The recording's size: its decompressed bytes.
    pub recording_bytes: u64,
}

/// The format of the recording compressed with `codec` in `source`, told from its first
/// decompressed bytes.
fn compressed_format(codec: Codec, source: impl Read + Send) -> Result<Format, Error> {
    if !Codec::is_built() {
        return Err(Error::UnknownFormat {
            format: None,
            message: format!(
                "a {codec}-compressed file: this build of demokit reads no compressed \
                 recording (the `compressed` feature is off)"
            ),
        });
    }
    let mut head = Vec::with_capacity(MAGIC_LEN);
    decoder_of(codec, source)?
        .take(MAGIC_LEN as u64)
        .read_to_end(&mut head)
        .map_err(Error::read)?;
    supported(&head).map_err(|e| match e {
        Error::UnknownFormat { format, message } => Error::UnknownFormat {
            format,
            message: format!("{message} (decompressed from {codec})"),
        },
        other => other,
    })
}

/// The decompressing reader of `source`.
#[cfg(feature = "compressed")]
fn decoder_of<'a>(
    codec: Codec,
    source: impl Read + Send + 'a,
) -> Result<Box<dyn Read + Send + 'a>, Error> {
    Ok(crate::compressed::decoder(codec, source))
}

/// Without the codecs there is no decompressing reader.
#[cfg(not(feature = "compressed"))]
fn decoder_of<'a>(
    codec: Codec,
    source: impl Read + Send + 'a,
) -> Result<Box<dyn Read + Send + 'a>, Error> {
    let _ = source;
    Err(Error::read(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("a {codec} stream needs demokit built with the `compressed` feature"),
    )))
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
            let head = head.get(..8).unwrap_or(head);
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
        if let Some(codec) = Codec::detect(&head) {
            let file = File::open(path).map_err(Error::read)?;
            return Ok(Recording {
                format: compressed_format(codec, file)?,
                source: Source::CompressedPath {
                    path: path.to_owned(),
                    codec,
                    limits,
                },
            });
        }
        Ok(Recording {
            format: supported(&head)?,
            source: Source::Path(path.to_owned()),
        })
    }

    /// The recording in `data` (compressed or not: a compressed recording is decompressed
    /// as each operation reads it, and into memory up to [`Limits::DEFAULT`]).
    pub fn from_bytes(data: Vec<u8>) -> Result<Recording, Error> {
        Recording::from_bytes_with(data, Limits::DEFAULT)
    }

    /// [`from_bytes`](Self::from_bytes) with other limits.
    pub fn from_bytes_with(data: Vec<u8>, limits: Limits) -> Result<Recording, Error> {
        if let Some(codec) = Codec::detect(&data) {
            return Ok(Recording {
                format: compressed_format(codec, data.as_slice())?,
                source: Source::CompressedBytes {
                    data,
                    codec,
                    limits,
                },
            });
        }
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
        let format = match Codec::detect(&data) {
            Some(_) => None,
            None => Some(supported(&data)?),
        };
        let rest = limits.max_stream_bytes.saturating_sub(data.len() as u64);
        let mut tail = Vec::new();
        read_bounded(reader, rest, &mut tail).map_err(|e| match e {
            Error::TooLong { .. } => Error::TooLong {
                limit: limits.max_stream_bytes,
            },
            other => other,
        })?;
        data.append(&mut tail);
        match format {
            Some(format) => Ok(Recording {
                format,
                source: Source::Bytes(data),
            }),
            None => Recording::from_bytes_with(data, limits),
        }
    }

    /// The recording's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The file the recording was opened from, when it is one (for a compressed
    /// recording, the compressed file).
    pub fn path(&self) -> Option<&Path> {
        match &self.source {
            Source::Path(path) | Source::CompressedPath { path, .. } => Some(path),
            Source::Bytes(_) | Source::CompressedBytes { .. } => None,
        }
    }

    /// The codec the recording is compressed with, if it is.
    pub fn codec(&self) -> Option<Codec> {
        match &self.source {
            Source::CompressedBytes { codec, .. } | Source::CompressedPath { codec, .. } => {
                Some(*codec)
            }
            Source::Bytes(_) | Source::Path(_) => None,
        }
    }

    /// How a compressed recording is stored: its codec, its compressed size and its
    /// recording's (decompressed) size, which this reads the whole stream to count
    /// (as a stream: memory stays flat). `None` for a recording that is not compressed.
    pub fn compression(&self) -> Result<Option<Compression>, Error> {
        let (codec, compressed_bytes) = match &self.source {
            Source::CompressedBytes { data, codec, .. } => (*codec, data.len() as u64),
            Source::CompressedPath { path, codec, .. } => {
                (*codec, std::fs::metadata(path).map_err(Error::read)?.len())
            }
            Source::Bytes(_) | Source::Path(_) => return Ok(None),
        };
        let recording_bytes =
            io::copy(&mut self.input().open()?, &mut io::sink()).map_err(Error::read)?;
        Ok(Some(Compression {
            codec,
            compressed_bytes,
            recording_bytes,
        }))
    }

    /// The recording's bytes: borrowed when they are in memory, read whole from its file
    /// otherwise (decompressed, for a compressed recording, up to its [`Limits`]).
    pub fn bytes(&self) -> Result<Cow<'_, [u8]>, Error> {
        self.input().bytes()
    }

    /// Where the recording's bytes are, as its format's operations read them.
    fn input(&self) -> Input<'_> {
        match &self.source {
            Source::Bytes(data) => Input::from_bytes(data),
            Source::Path(path) => Input::from_file(path),
            Source::CompressedBytes {
                data,
                codec,
                limits,
            } => Input::compressed_bytes(data, *codec, limits.max_stream_bytes),
            Source::CompressedPath {
                path,
                codec,
                limits,
            } => Input::compressed_file(path, *codec, limits.max_stream_bytes),
        }
    }

    /// [`Error::Unsupported`] for `operation` on this recording, naming the formats that
    /// have it.
    fn unsupported(&self, operation: Operation) -> Error {
        Error::Unsupported {
            format: self.format,
            operation,
            formats: operation.formats(),
        }
    }

    /// [`unsupported`](Self::unsupported) unless this recording's format has `operation`.
    fn require(&self, operation: Operation) -> Result<(), Error> {
        if supports(self.format, operation) {
            Ok(())
        } else {
            Err(self.unsupported(operation))
        }
    }

    /// Reads the recording's header (for a demo, its map too) and nothing after it: the
    /// check a front end makes before it reads anything lazily, so that a file whose header
    /// does not read is refused at once, as [`summary`](Self::summary) would refuse it.
    pub fn check_header(&self) -> Result<(), Error> {
        let input = self.input();
        forward!(self.format, F => F::check_header(input))
    }

    /// The recording's summary (header facts and counts of what it holds), and the error
    /// that ended the scan early, if any: everything before it is counted. Every format is
    /// read as a stream, so memory stays flat however long the recording is.
    pub fn summary(&self) -> Result<(Summary, Option<Error>), Error> {
        let input = self.input();
        forward!(self.format, F => F::summary(input).map(|(s, e)| (s.into(), e)))
    }

    /// Checks the recording as the program that plays or reads it would: every problem
    /// found, in file order (for a demo, DDNet's client's checks in its order, with its
    /// verdict).
    pub fn validate(&self) -> Result<Validation, Error> {
        let input = self.input();
        forward!(self.format, F => F::validate(input))
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
        let input = self.input();
        let rewritten: Result<(RewriteStats, Option<Error>), Error> = forward!(
            self.format,
            F => F::rewrite(input, &mut sink).map(|(s, e)| (s.into(), e))
        );
        if let Some(e) = sink.failed.take() {
            return Err(Error::write(e));
        }
        let (stats, error) = rewritten?;
        Ok(RewriteReport {
            stats,
            written: sink.written,
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
        let input = self.input();
        forward!(self.format, F => F::repair(input, options, &mut out).map(Into::into))
    }

    /// Converts a demo to another version of the format (3 to 6).
    pub fn convert<W: Write>(
        &self,
        version: u8,
        mut out: W,
    ) -> Result<twdemo::edit::convert::ConvertReport, Error> {
        self.require(Operation::Convert)?;
        let input = self.input();
        forward!(self.format, F => F::convert(input, version, &mut out).map(Into::into))
    }

    /// The timeline markers of a demo.
    pub fn markers(&self) -> Result<twdemo::edit::markers::MarkerList, Error> {
        self.require(Operation::Markers)?;
        let input = self.input();
        forward!(self.format, F => F::markers(input).map(Into::into))
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
        self.require(Operation::Markers)?;
        let input = self.input();
        forward!(self.format, F => F::edit_markers(input, add, remove, &mut out).map(Into::into))
    }

    /// The map a demo embeds, with the header's checksums and their actual values.
    pub fn extract_map(&self) -> Result<twdemo::edit::repair::ExtractedMap, Error> {
        self.require(Operation::ExtractMap)?;
        let input = self.input();
        forward!(self.format, F => F::extract_map(input).map(Into::into))
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

from_formats!(Summary, Summary);
from_formats!(RepairReport, RepairReport);
from_formats!(RewriteStats, RewriteStats);
from_unsupported!(
    twdemo::edit::convert::ConvertReport,
    twdemo::edit::markers::MarkerList,
    twdemo::edit::markers::MarkersReport,
    twdemo::edit::repair::ExtractedMap,
    Vec<twdemo::game::chat::DemoChatLine>,
);

impl<'a> From<Unsupported> for twdemo::snapshot::replay::ReplayedTick<'a> {
    fn from(never: Unsupported) -> Self {
        match never {}
    }
}
