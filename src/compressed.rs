//! Compressed recordings: the codecs archives keep recordings in (gzip, zstd, xz, bzip2),
//! told by their magic bytes whatever the file is called, read as a stream and written
//! when an output's name asks for one.
//!
//! The entry point ([`crate::recording::Recording`]) opens a compressed file through
//! [`decoder`], so every operation reads the recording (the decompressed bytes) as it
//! reads a plain one: offsets in errors are offsets in the recording. A compressed stream
//! that is cut off or corrupt fails with a [`StreamError`], which the entry point's
//! [`Error`](crate::recording::Error) carries as an [`Error::Invalid`](crate::recording::Error::Invalid)
//! (truncated when the compressed stream is cut off).
//!
//! The codecs (feature `compressed`, on by default) are pure Rust where that is fast
//! enough: flate2 on miniz_oxide, lzma-rust2 and bzip2 on libbz2-rs-sys; zstd is the C
//! library (the `zstd` crate), five times faster than the pure-Rust ruzstd, which would
//! have made reading slower than the readers behind it (`benches/compressed.rs`). Without
//! the feature, a compressed file is still recognized, and refused with a sentence that
//! says so.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use std::fmt;
#[cfg(feature = "compressed")]
use std::io::Read;
use std::io::{self, Write};
use std::path::Path;

/// A compression a recording can be stored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum Codec {
    /// gzip (`1f 8b`), `.gz`.
    Gzip,
    /// Zstandard (`28 b5 2f fd`), `.zst`.
    Zstd,
    /// xz (`fd 37 7a 58 5a 00`), `.xz`.
    Xz,
    /// bzip2 (`BZh`), `.bz2`.
    Bzip2,
}

impl Codec {
    /// Every codec, in the order demokit names them.
    pub const ALL: [Codec; 4] = [Codec::Gzip, Codec::Zstd, Codec::Xz, Codec::Bzip2];

    /// The codec's name: "gzip", "zstd", "xz" or "bzip2" (its serde name).
    pub const fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
            Codec::Xz => "xz",
            Codec::Bzip2 => "bzip2",
        }
    }

    /// The file-name extension of a file in this codec, without the dot: "gz", "zst",
    /// "xz" or "bz2".
    pub const fn extension(self) -> &'static str {
        match self {
            Codec::Gzip => "gz",
            Codec::Zstd => "zst",
            Codec::Xz => "xz",
            Codec::Bzip2 => "bz2",
        }
    }

    /// The magic bytes a stream in this codec starts with.
    pub const fn magic(self) -> &'static [u8] {
        match self {
            Codec::Gzip => &[0x1f, 0x8b],
            Codec::Zstd => &[0x28, 0xb5, 0x2f, 0xfd],
            Codec::Xz => &[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
            Codec::Bzip2 => b"BZh",
        }
    }

    /// The codec `head` (a file's first bytes, at least 6 of them when there are) starts
    /// like, if any.
    pub fn detect(head: &[u8]) -> Option<Codec> {
        Codec::ALL.into_iter().find(|c| head.starts_with(c.magic()))
    }

    /// The codec the name of `path` asks for (`out.demo.zst`: zstd), compared without
    /// regard to case; `None` for any other extension.
    pub fn by_extension(path: &Path) -> Option<Codec> {
        let extension = path.extension()?.to_str()?;
        Codec::ALL
            .into_iter()
            .find(|c| c.extension().eq_ignore_ascii_case(extension))
    }

    /// Whether this build reads and writes compressed files (the `compressed` feature).
    pub const fn is_built() -> bool {
        cfg!(feature = "compressed")
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A compressed stream that does not decompress: cut off, or corrupt. It travels inside
/// the [`io::Error`] the decompressing reader returns, so that the formats' readers hand it
/// on, and the entry point's [`Error`](crate::recording::Error) names it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamError {
    /// The codec.
    pub codec: Codec,
    /// Whether the compressed stream simply ended early (the file is cut off), rather than
    /// holding bytes that do not decompress.
    pub truncated: bool,
    /// Bytes of the recording (decompressed) read before the failure.
    pub offset: u64,
    /// What the codec said.
    pub message: String,
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.truncated {
            write!(
                f,
                "the {} stream is cut off after {} bytes of the recording: {}",
                self.codec, self.offset, self.message
            )
        } else {
            write!(
                f,
                "the {} stream is corrupt after {} bytes of the recording: {}",
                self.codec, self.offset, self.message
            )
        }
    }
}

impl std::error::Error for StreamError {}

impl StreamError {
    /// The [`StreamError`] inside `error`, if it carries one.
    pub fn of(error: &io::Error) -> Option<&StreamError> {
        error.get_ref()?.downcast_ref::<StreamError>()
    }
}

/// A reader of a compressed stream: tells a source that ended early from one that does
/// not decompress, and counts the bytes it hands out.
#[cfg(feature = "compressed")]
struct Checked<R> {
    codec: Codec,
    inner: R,
    /// Whether the compressed source has ended (shared with [`Watch`]).
    ended: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Bytes handed out.
    offset: u64,
}

/// A compressed source that notes when it has nothing more.
#[cfg(feature = "compressed")]
struct Watch<R> {
    inner: R,
    ended: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

#[cfg(feature = "compressed")]
impl<R: Read> Read for Watch<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.ended.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(n)
    }
}

#[cfg(feature = "compressed")]
impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.offset += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            // A failure of the file itself stays the system's.
            Err(e) if StreamError::of(&e).is_none() && is_system(&e) => Err(e),
            Err(e) => {
                let ended = self.ended.load(std::sync::atomic::Ordering::Relaxed);
                let truncated = ended || e.kind() == io::ErrorKind::UnexpectedEof;
                let message = match StreamError::of(&e) {
                    Some(inner) => inner.message.clone(),
                    None => e.to_string(),
                };
                Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    StreamError {
                        codec: self.codec,
                        truncated,
                        offset: self.offset,
                        message,
                    },
                ))
            }
        }
    }
}

/// Whether `error` is the system's (the file could not be read), not the codec's.
#[cfg(feature = "compressed")]
fn is_system(error: &io::Error) -> bool {
    error.raw_os_error().is_some()
}

/// A reader of the recording compressed in `source` with `codec`: the decompressed bytes,
/// as a stream (memory stays that of the codec's window and buffers). A stream that ends
/// early or does not decompress fails with an [`io::Error`] carrying a [`StreamError`].
/// Concatenated streams (several gzip members, zstd frames, xz streams or bzip2 streams)
/// read as one, as the codecs' own tools read them.
#[cfg(feature = "compressed")]
pub fn decoder<'a>(codec: Codec, source: impl Read + Send + 'a) -> Box<dyn Read + Send + 'a> {
    let ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watched = io::BufReader::with_capacity(
        64 * 1024,
        Watch {
            inner: source,
            ended: ended.clone(),
        },
    );
    let inner: Box<dyn Read + Send + 'a> = match codec {
        Codec::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(watched)),
        // One frame after another, skippable frames passed over, each checked against
        // its content checksum where it has one.
        Codec::Zstd => match zstd::stream::read::Decoder::with_buffer(watched) {
            Ok(decoder) => Box::new(decoder),
            Err(e) => Box::new(Failed(Some(e))),
        },
        Codec::Xz => Box::new(lzma_rust2::XzReader::new(watched, true)),
        Codec::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(watched)),
    };
    Box::new(Checked {
        codec,
        inner,
        ended,
        offset: 0,
    })
}

/// A writer that compresses what it is given with a codec, as [`encoder`] makes it; call
/// [`finish`](Self::finish) to write the stream's end.
pub struct Encoder<W: Write> {
    inner: EncoderInner<W>,
}

impl<W: Write> fmt::Debug for Encoder<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encoder").finish_non_exhaustive()
    }
}

/// The codec's own writer.
enum EncoderInner<W: Write> {
    #[cfg(feature = "compressed")]
    Gzip(flate2::write::GzEncoder<W>),
    #[cfg(feature = "compressed")]
    Zstd(zstd::stream::write::Encoder<'static, W>),
    #[cfg(feature = "compressed")]
    Xz(Box<lzma_rust2::XzWriter<W>>),
    #[cfg(feature = "compressed")]
    Bzip2(bzip2::write::BzEncoder<W>),
    /// Without the codecs there is no encoder; `W` is still the type's.
    #[allow(dead_code)]
    None(std::convert::Infallible, std::marker::PhantomData<W>),
}

/// `bytes` as a file named `path` holds them: compressed with the codec its name asks for
/// ([`Codec::by_extension`]: `out.demo.zst` is zstd), as they are for any other name. What
/// every front end that writes a recording into memory first (the Python package) calls
/// before it writes the file.
pub fn as_named<'a>(path: &Path, bytes: &'a [u8]) -> io::Result<std::borrow::Cow<'a, [u8]>> {
    match Codec::by_extension(path) {
        None => Ok(std::borrow::Cow::Borrowed(bytes)),
        Some(codec) => {
            let mut out = encoder(codec, Vec::new())?;
            out.write_all(bytes)?;
            Ok(std::borrow::Cow::Owned(out.finish()?))
        }
    }
}

/// A writer of `out` that compresses with `codec` (at the codec's usual level: gzip 6,
/// zstd 3 with its content checksum (as the `zstd` tool writes), xz 6, bzip2 9). Without the
/// `compressed` feature, an [`io::ErrorKind::Unsupported`] error.
pub fn encoder<W: Write>(codec: Codec, out: W) -> io::Result<Encoder<W>> {
    #[cfg(feature = "compressed")]
    {
        let inner = match codec {
            Codec::Gzip => EncoderInner::Gzip(flate2::write::GzEncoder::new(
                out,
                flate2::Compression::default(),
            )),
            Codec::Zstd => {
                let mut e = zstd::stream::write::Encoder::new(out, 3)?;
                e.include_checksum(true)?;
                EncoderInner::Zstd(e)
            }
            Codec::Xz => EncoderInner::Xz(Box::new(lzma_rust2::XzWriter::new(
                out,
                lzma_rust2::XzOptions::with_preset(6),
            )?)),
            Codec::Bzip2 => EncoderInner::Bzip2(bzip2::write::BzEncoder::new(
                out,
                bzip2::Compression::best(),
            )),
        };
        Ok(Encoder { inner })
    }
    #[cfg(not(feature = "compressed"))]
    {
        let _ = out;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("{codec} output needs demokit built with the `compressed` feature"),
        ))
    }
}

impl<W: Write> Encoder<W> {
    /// Writes the end of the compressed stream and hands back the writer.
    pub fn finish(self) -> io::Result<W> {
        match self.inner {
            #[cfg(feature = "compressed")]
            EncoderInner::Gzip(e) => e.finish(),
            #[cfg(feature = "compressed")]
            EncoderInner::Zstd(e) => e.finish(),
            #[cfg(feature = "compressed")]
            EncoderInner::Xz(e) => (*e).finish(),
            #[cfg(feature = "compressed")]
            EncoderInner::Bzip2(e) => e.finish(),
            EncoderInner::None(never, _) => match never {},
        }
    }

    /// The writer compressed bytes go to.
    pub fn get_ref(&self) -> &W {
        match &self.inner {
            #[cfg(feature = "compressed")]
            EncoderInner::Gzip(e) => e.get_ref(),
            #[cfg(feature = "compressed")]
            EncoderInner::Zstd(e) => e.get_ref(),
            #[cfg(feature = "compressed")]
            EncoderInner::Xz(e) => e.inner(),
            #[cfg(feature = "compressed")]
            EncoderInner::Bzip2(e) => e.get_ref(),
            EncoderInner::None(never, _) => match *never {},
        }
    }
}

impl<W: Write> Write for Encoder<W> {
    #[cfg_attr(not(feature = "compressed"), allow(unused_variables))]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            #[cfg(feature = "compressed")]
            EncoderInner::Gzip(e) => e.write(buf),
            #[cfg(feature = "compressed")]
            EncoderInner::Zstd(e) => e.write(buf),
            #[cfg(feature = "compressed")]
            EncoderInner::Xz(e) => e.write(buf),
            #[cfg(feature = "compressed")]
            EncoderInner::Bzip2(e) => e.write(buf),
            EncoderInner::None(never, _) => match *never {},
        }
    }

    /// Flushes the writer underneath; the codec keeps what it has not compressed yet
    /// (a stream is only whole after [`finish`](Encoder::finish)).
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            #[cfg(feature = "compressed")]
            EncoderInner::Gzip(e) => e.get_mut().flush(),
            #[cfg(feature = "compressed")]
            EncoderInner::Zstd(e) => e.get_mut().flush(),
            #[cfg(feature = "compressed")]
            EncoderInner::Xz(e) => e.inner_mut().flush(),
            #[cfg(feature = "compressed")]
            EncoderInner::Bzip2(e) => e.get_mut().flush(),
            EncoderInner::None(never, _) => match *never {},
        }
    }
}

/// A reader whose codec could not start: its error, once.
#[cfg(feature = "compressed")]
struct Failed(Option<io::Error>);

#[cfg(feature = "compressed")]
impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Err(io::Error::other("the codec could not start")),
        }
    }
}

#[cfg(all(test, feature = "compressed"))]
mod tests {
    use super::*;

    fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
        let mut e = encoder(codec, Vec::new()).unwrap();
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn every_codec_round_trips_and_is_detected() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for codec in Codec::ALL {
            let packed = compress(codec, &data);
            assert_eq!(Codec::detect(&packed), Some(codec), "{codec}");
            let mut out = Vec::new();
            decoder(codec, packed.as_slice())
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out, data, "{codec}");
            // Two streams one after the other read as one.
            let mut twice = packed.clone();
            twice.extend_from_slice(&packed);
            out.clear();
            decoder(codec, twice.as_slice())
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out.len(), 2 * data.len(), "{codec}");
        }
    }

    #[test]
    fn a_cut_stream_is_a_truncated_stream_error() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for codec in Codec::ALL {
            let packed = compress(codec, &data);
            for cut in [packed.len() / 2, packed.len() - 1] {
                let mut out = Vec::new();
                let e = decoder(codec, packed.get(..cut).unwrap())
                    .read_to_end(&mut out)
                    .expect_err(&format!("{codec} cut at {cut}"));
                let stream = StreamError::of(&e).unwrap_or_else(|| panic!("{codec}: {e}"));
                assert!(stream.truncated, "{codec} cut at {cut}: {stream}");
            }
        }
    }
}
