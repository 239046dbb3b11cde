//! Writing Source demos: the header, then any frames, each laid out by the profile.
//!
//! The writer mirrors the reader: a frame read from a file and written back gives the
//! bytes it was read from (a stop command's tail included), so [`rewrite`] of a real file
//! is byte-identical. It does not check ticks or the order of commands: real files have
//! negative and decreasing ticks, and an editor may need to write anything a game wrote.
//!
//! It refuses what would read back as something else ([`WriteError::Inconsistent`]): a slot
//! byte the profile has no place for (or none where it has one), a stop frame whose tick or
//! slot is not the one its tail holds, any frame after the stop (the stop's tail runs to
//! the end of the file), a header whose stamp is not HL2DEMO, and payloads beyond the
//! readers' caps.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::ReadError;
use super::error::WriteError;
use super::format::{
    CustomDataPrefix, FrameHead, Header, LengthPrefix, PacketTrailer, UserCmdPrefix,
    VIEW_INFO_SIZE, ViewInfo,
};
use super::profile::Profile;
use super::reader::{
    Body, Frame, MAX_PAYLOAD_LEN, MAX_STREAM_STOP_TAIL, PacketBody, SourceReader, parse_header,
    stop_tick,
};
use crate::format::stopped;
use binrw::BinWrite;
use std::io::{Cursor, Read, Write};

/// Appends a binrw layout to `out`.
fn put<T>(out: &mut Vec<u8>, value: &T)
where
    T: BinWrite + binrw::meta::WriteEndian,
    for<'a> T::Args<'a>: Default,
{
    let mut cursor = Cursor::new(out);
    cursor.set_position(cursor.get_ref().len() as u64);
    // Writing fixed-size numbers into a Vec cannot fail.
    let _ = value.write(&mut cursor);
}

/// A payload length as the `i32` the file stores, within the readers' cap.
fn length(data: &[u8]) -> Result<i32, WriteError> {
    let too_long = WriteError::TooLong {
        len: data.len(),
        limit: MAX_PAYLOAD_LEN,
    };
    if data.len() > MAX_PAYLOAD_LEN {
        return Err(too_long);
    }
    i32::try_from(data.len()).map_err(|_| too_long)
}

/// Checks the frame fields the layout does not store on their own: the slot byte exists
/// only in profiles that have one, and a stop frame's tick and slot are read from its tail.
fn check_frame(profile: &Profile, frame: &Frame<'_>) -> Result<(), WriteError> {
    if let Body::Stop { tail } = &frame.body {
        if tail.len() > MAX_STREAM_STOP_TAIL {
            return Err(WriteError::TooLong {
                len: tail.len(),
                limit: MAX_STREAM_STOP_TAIL,
            });
        }
        let slot = if profile.slot_byte {
            tail.get(4).copied()
        } else {
            None
        };
        if frame.tick != stop_tick(tail).unwrap_or(0) || frame.slot != slot {
            return Err(WriteError::Inconsistent(
                "a stop frame's tick and slot are the ones its tail holds (see Frame::stop)",
            ));
        }
    } else if frame.slot.is_some() != profile.slot_byte {
        return Err(WriteError::Inconsistent(if profile.slot_byte {
            "the profile stores a slot byte in every frame, and the frame has none"
        } else {
            "the profile stores no slot byte, and the frame has one"
        }));
    }
    Ok(())
}

/// The bytes of `views` as a signon or packet frame stores them.
pub fn view_bytes(views: &[ViewInfo]) -> Vec<u8> {
    let mut out = Vec::with_capacity(views.len() * VIEW_INFO_SIZE);
    for view in views {
        put(&mut out, view);
    }
    out
}

/// Appends `frame` laid out by `profile` to `out`. On error `out` is left as it was.
pub fn encode_frame(
    profile: &Profile,
    frame: &Frame<'_>,
    out: &mut Vec<u8>,
) -> Result<(), WriteError> {
    let start = out.len();
    let result = encode_unchecked(profile, frame, out);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

fn encode_unchecked(
    profile: &Profile,
    frame: &Frame<'_>,
    out: &mut Vec<u8>,
) -> Result<(), WriteError> {
    check_frame(profile, frame)?;
    let command = frame.command();
    let number = profile
        .commands
        .number(command)
        .ok_or(WriteError::CommandNotInTable {
            command,
            table: profile.commands,
        })?;
    if let Body::Stop { tail } = &frame.body {
        out.push(number);
        out.extend_from_slice(tail);
        return Ok(());
    }
    put(
        out,
        &FrameHead {
            command: number,
            tick: frame.tick,
            slot: frame.slot,
        },
    );
    match &frame.body {
        Body::Signon(packet) | Body::Packet(packet) => encode_packet(profile, packet, out)?,
        Body::SyncTick => {}
        Body::ConsoleCmd(data) | Body::DataTables(data) | Body::StringTables(data) => {
            put(
                out,
                &LengthPrefix {
                    length: length(data)?,
                },
            );
            out.extend_from_slice(data);
        }
        Body::UserCmd { sequence, data } => {
            put(
                out,
                &UserCmdPrefix {
                    sequence: *sequence,
                    length: length(data)?,
                },
            );
            out.extend_from_slice(data);
        }
        Body::CustomData { callback, data } => {
            put(
                out,
                &CustomDataPrefix {
                    callback: *callback,
                    length: length(data)?,
                },
            );
            out.extend_from_slice(data);
        }
        Body::Stop { .. } => unreachable!("handled above"),
    }
    Ok(())
}

fn encode_packet(
    profile: &Profile,
    packet: &PacketBody<'_>,
    out: &mut Vec<u8>,
) -> Result<(), WriteError> {
    let expected = usize::from(profile.view_splits) * VIEW_INFO_SIZE;
    if packet.view.len() != expected {
        return Err(WriteError::ViewInfoSize {
            len: packet.view.len(),
            expected,
            splits: profile.view_splits,
        });
    }
    out.extend_from_slice(packet.view);
    put(
        out,
        &PacketTrailer {
            seq_in: packet.seq_in,
            seq_out: packet.seq_out,
            length: length(packet.data)?,
        },
    );
    out.extend_from_slice(packet.data);
    Ok(())
}

/// Writes a Source demo to any [`Write`]: the header first, then frames as they come.
///
/// Each frame goes to the sink in one `write_all`; wrap a file in a `BufWriter` for many
/// small frames. The header is written as given: to fill in `ticks`, `frames` and
/// `signon_length` afterwards, write the header again at offset 0 (see
/// [`repair`](mod@super::repair) for computing them).
pub struct SourceWriter<W: Write> {
    inner: W,
    profile: Profile,
    scratch: Vec<u8>,
    written: u64,
    /// Whether the stop frame has been written: nothing may follow it.
    stopped: bool,
}

impl<W: Write> SourceWriter<W> {
    /// Writes `header` and lays out frames with the profile the header points to
    /// ([`Profile::from_header`]).
    pub fn new(inner: W, header: &Header) -> Result<Self, WriteError> {
        Self::with_profile(inner, header, Profile::from_header(header).0)
    }

    /// Writes `header` and lays out frames with `profile`.
    ///
    /// The file reads back as written by a reader given the same profile
    /// ([`SourceSlice::with_profile`](super::SourceSlice::with_profile)). A reader left to
    /// find the profile itself takes the one the header settles ([`Profile::from_header`]) or, where the header leaves it open,
    /// detects it from the first frames: use [`new`](Self::new) for a file that any reader
    /// reads as written, or a header that settles `profile`.
    pub fn with_profile(
        mut inner: W,
        header: &Header,
        profile: Profile,
    ) -> Result<Self, WriteError> {
        let mut scratch = Vec::with_capacity(64 * 1024);
        put(&mut scratch, header);
        if parse_header(&scratch).is_err() {
            return Err(WriteError::Inconsistent(
                "the header does not read back (its magic is not HL2DEMO)",
            ));
        }
        inner.write_all(&scratch)?;
        Ok(SourceWriter {
            inner,
            profile,
            written: scratch.len() as u64,
            scratch,
            stopped: false,
        })
    }

    /// The profile frames are laid out with.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Bytes written so far: the offset of the next frame.
    pub fn position(&self) -> u64 {
        self.written
    }

    /// Writes one frame.
    pub fn write_frame(&mut self, frame: &Frame<'_>) -> Result<(), WriteError> {
        if self.stopped {
            return Err(WriteError::Inconsistent(
                "a frame after the stop frame would read as part of the stop's tail",
            ));
        }
        self.scratch.clear();
        encode_frame(&self.profile, frame, &mut self.scratch)?;
        self.inner.write_all(&self.scratch)?;
        self.written += self.scratch.len() as u64;
        self.stopped = matches!(frame.body, Body::Stop { .. });
        Ok(())
    }

    /// Flushes and returns the sink.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.inner.flush()?;
        Ok(self.inner)
    }
}

/// Why [`rewrite`] stopped: the input could not be read, or a frame could not be written
/// again (the shape every format's rewrite shares).
pub type RewriteError = crate::format::RewriteError<ReadError, WriteError>;

crate::format::rewrite_error_from!(ReadError, WriteError);

/// What [`rewrite`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RewriteStats {
    /// Frames written, the stop command included.
    pub frames: u64,
}

/// Reads every frame of `data` and writes it into `sink` with the same profile. For any
/// file the reader reads to its stop command, the output equals the input. A file that
/// breaks off has everything before the break written, then the read error is returned
/// with the count of frames written.
pub fn rewrite<W: Write>(
    data: &[u8],
    sink: W,
) -> Result<(W, RewriteStats), (RewriteStats, RewriteError)> {
    rewrite_reader(data, sink)
}

/// [`rewrite`] of a file read as a stream, one frame at a time: memory does not grow with
/// the file (beyond its largest frame).
pub fn rewrite_reader<R: Read, W: Write>(
    input: R,
    sink: W,
) -> Result<(W, RewriteStats), (RewriteStats, RewriteError)> {
    let mut stats = RewriteStats::default();
    let mut reader = SourceReader::new(input).map_err(stopped(stats))?;
    let mut writer = SourceWriter::with_profile(sink, reader.header(), *reader.profile())
        .map_err(stopped(stats))?;
    while let Some(item) = reader.next() {
        let item = item.map_err(stopped(stats))?;
        writer.write_frame(&item.frame).map_err(stopped(stats))?;
        stats.frames += 1;
    }
    let sink = writer.finish().map_err(stopped(stats))?;
    Ok((sink, stats))
}
