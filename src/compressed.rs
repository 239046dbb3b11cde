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
//! The codecs are pure Rust (feature `compressed`, on by default): flate2 on miniz_oxide,
//! ruzstd, lzma-rust2 and bzip2 on libbz2-rs-sys. Without the feature, a compressed file
//! is still recognized, and refused with a sentence that says so.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use std::fmt;
use std::io::{self, Read, Write};
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
        Codec::Zstd => Box::new(ZstdFrames::new(watched)),
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

/// Zstandard frames one after the other (skippable frames passed over), each checked
/// against its content checksum where it has one.
#[cfg(feature = "compressed")]
struct ZstdFrames<R> {
    source: R,
    decoder: ruzstd::decoding::FrameDecoder,
    /// Whether a frame is being decoded.
    in_frame: bool,
}

#[cfg(feature = "compressed")]
impl<R: io::BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        ZstdFrames {
            source,
            decoder: ruzstd::decoding::FrameDecoder::new(),
            in_frame: false,
        }
    }
}

#[cfg(feature = "compressed")]
impl<R: io::BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use ruzstd::decoding::BlockDecodingStrategy;
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.in_frame {
                if self.source.fill_buf()?.is_empty() {
                    return Ok(0);
                }
                match self.decoder.reset(&mut self.source) {
                    Ok(()) => self.in_frame = true,
                    Err(FrameDecoderError::ReadFrameHeaderError(
                        ReadFrameHeaderError::SkipFrame { length, .. },
                    )) => {
                        let skipped =
                            io::copy(&mut (&mut self.source).take(length.into()), &mut io::sink())?;
                        if skipped < u64::from(length) {
                            return Err(io::Error::new(
                                io::ErrorKind::UnexpectedEof,
                                "a skippable frame is cut off",
                            ));
                        }
                    }
                    Err(e) => {
                        return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string()));
                    }
                }
                continue;
            }
            let decoder = &mut self.decoder;
            while decoder.can_collect() < buf.len() && !decoder.is_finished() {
                let needed = buf.len() - decoder.can_collect();
                decoder
                    .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBytes(needed))
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
            }
            let n = decoder.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            if decoder.is_finished() {
                if let (Some(stored), Some(computed)) = (
                    decoder.get_checksum_from_data(),
                    decoder.get_calculated_checksum(),
                ) && stored != computed
                {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "the frame's content checksum is {stored:08x}, its content's {computed:08x}"
                        ),
                    ));
                }
                self.in_frame = false;
            }
        }
    }
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
    Zstd(ZstdWriter<W>),
    #[cfg(feature = "compressed")]
    Xz(lzma_rust2::XzWriter<W>),
    #[cfg(feature = "compressed")]
    Bzip2(bzip2::write::BzEncoder<W>),
    /// Without the codecs there is no encoder; `W` is still the type's.
    #[allow(dead_code)]
    None(std::convert::Infallible, std::marker::PhantomData<W>),
}

/// A writer of `out` that compresses with `codec` (at the codec's usual level: gzip 6,
/// zstd "fastest" (about zstd's level 1, in frames of 8 MiB), xz 6, bzip2 9). Without the
/// `compressed` feature, an [`io::ErrorKind::Unsupported`] error.
pub fn encoder<W: Write>(codec: Codec, out: W) -> io::Result<Encoder<W>> {
    #[cfg(feature = "compressed")]
    {
        let inner = match codec {
            Codec::Gzip => EncoderInner::Gzip(flate2::write::GzEncoder::new(
                out,
                flate2::Compression::default(),
            )),
            Codec::Zstd => EncoderInner::Zstd(ZstdWriter {
                out,
                buf: Vec::new(),
            }),
            Codec::Xz => EncoderInner::Xz(lzma_rust2::XzWriter::new(
                out,
                lzma_rust2::XzOptions::with_preset(6),
            )?),
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
            EncoderInner::Zstd(mut e) => {
                e.frame()?;
                Ok(e.out)
            }
            #[cfg(feature = "compressed")]
            EncoderInner::Xz(e) => e.finish(),
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
            EncoderInner::Zstd(e) => &e.out,
            #[cfg(feature = "compressed")]
            EncoderInner::Xz(e) => e.inner(),
            #[cfg(feature = "compressed")]
            EncoderInner::Bzip2(e) => e.get_ref(),
            EncoderInner::None(never, _) => match *never {},
        }
    }
}

impl<W: Write> Write for Encoder<W> {
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
            EncoderInner::Zstd(e) => e.out.flush(),
            #[cfg(feature = "compressed")]
            EncoderInner::Xz(e) => e.inner_mut().flush(),
            #[cfg(feature = "compressed")]
            EncoderInner::Bzip2(e) => e.get_mut().flush(),
            EncoderInner::None(never, _) => match *never {},
        }
    }
}

/// The uncompressed bytes a zstd output gathers before it writes them as one frame.
#[cfg(feature = "compressed")]
const ZSTD_FRAME: usize = 8 << 20;

/// A zstd writer: ruzstd compresses a whole input at a time, so the output is a series of
/// frames of [`ZSTD_FRAME`] bytes each (zstd's tools read them as one stream).
#[cfg(feature = "compressed")]
struct ZstdWriter<W> {
    out: W,
    buf: Vec<u8>,
}

#[cfg(feature = "compressed")]
impl<W: Write> ZstdWriter<W> {
    /// Writes what is gathered as a frame.
    fn frame(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let frame = ruzstd::encoding::compress_to_vec(
            self.buf.as_slice(),
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        self.buf.clear();
        self.out.write_all(&frame)
    }
}

#[cfg(feature = "compressed")]
impl<W: Write> Write for ZstdWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = ZSTD_FRAME - self.buf.len();
        let n = buf.len().min(room);
        self.buf.extend_from_slice(buf.get(..n).unwrap_or_default());
        if self.buf.len() >= ZSTD_FRAME {
            self.frame()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
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
