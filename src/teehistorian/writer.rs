//! The writer: emits the file UUID, a header (typed, or stored JSON for byte-exact copies)
//! and messages.
//!
//! It writes exactly what it is told and keeps the tick a reader will assign
//! ([`TickState`]), so a recorder on top can check where it is. When to write a TICK_SKIP,
//! when a tick may stay implicit, what to diff against: that policy belongs to the recorder.
//!
//! What it is told must be something the readers read back, so that no file it writes is
//! refused by them: a header longer than [`MAX_HEADER_LEN`], a message longer than
//! [`MAX_MESSAGE_LEN`], a player record outside `0..MAX_CLIENTS` or a tick outside
//! `0..=i32::MAX` is an error and writes nothing. (Client ids of other records are written
//! as given: readers take them, and a rewrite must copy them.)

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{EncodeError, ReadError, WriteError};
use super::format::FILE_UUID;
use super::header::Header;
use super::message::{Message, has_legacy_packer};
use super::reader::{
    MAX_HEADER_LEN, MAX_MESSAGE_LEN, MessageAt, ReadMessages, TeehistorianReader,
    TeehistorianSlice, TickError, TickState, parse_header,
};
use crate::format::stopped;
use std::io::Write;

/// Writes a teehistorian file to any [`Write`], front to back, never seeking.
///
/// Each message is one `write_all` call on the sink; wrap a file in a
/// [`BufWriter`](std::io::BufWriter).
pub struct TeehistorianWriter<W: Write> {
    sink: W,
    scratch: Vec<u8>,
    position: u64,
    ticks: TickState,
    finished: bool,
    /// The header names a writer with DDNet's old 2 KiB packer, so readers read console
    /// commands as that packer may have cut them.
    legacy_packer: bool,
}

impl<W: Write> TeehistorianWriter<W> {
    /// Writes the file UUID and `header` as DDNet does ([`Header::write_json`]), then its NUL.
    pub fn new(sink: W, header: &Header) -> Result<Self, WriteError> {
        Self::with_header_json(sink, &header.to_json())
    }

    /// Writes the file UUID, `json` as it is, then the NUL: for copying a stored header
    /// byte for byte. `json` must be a header the readers accept: no NUL (it would end the
    /// header early), at most [`MAX_HEADER_LEN`] bytes, a JSON object with a supported
    /// `version`.
    pub fn with_header_json(mut sink: W, json: &[u8]) -> Result<Self, WriteError> {
        if json.contains(&0) {
            return Err(WriteError::Usage("the header JSON contains a NUL byte"));
        }
        if json.len() > MAX_HEADER_LEN {
            return Err(WriteError::Usage(
                "the header JSON is longer than MAX_HEADER_LEN, the longest a reader accepts",
            ));
        }
        let Ok(header) = parse_header(json) else {
            return Err(WriteError::Usage(
                "the header JSON is not one a reader accepts (a JSON object with version \"1\" or \"2\")",
            ));
        };
        sink.write_all(&FILE_UUID)?;
        sink.write_all(json)?;
        sink.write_all(&[0])?;
        Ok(TeehistorianWriter {
            sink,
            scratch: Vec::with_capacity(256),
            position: (FILE_UUID.len() + json.len() + 1) as u64,
            ticks: TickState::new(),
            finished: false,
            legacy_packer: has_legacy_packer(&header.version, header.version_minor.as_deref()),
        })
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The tick a reader assigns to the last message written (0 before the first).
    pub fn tick(&self) -> i32 {
        self.ticks.tick()
    }

    /// The tick state after the messages written so far.
    pub fn tick_state(&self) -> TickState {
        self.ticks
    }

    /// Whether FINISH has been written.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        &self.sink
    }

    /// Writes `message` as DDNet does (canonical ints) and returns the tick a reader will
    /// assign to it.
    pub fn write(&mut self, message: &Message<'_>) -> Result<i32, WriteError> {
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        let result = message
            .encode(&mut buf)
            .map_err(WriteError::from)
            .and_then(|()| self.put(message, &buf));
        self.scratch = buf;
        result
    }

    /// Writes the stored bytes of one message unchanged (after checking that they are
    /// exactly one message, as a reader of this file reads them) and returns its tick.
    pub fn write_raw(&mut self, raw: &[u8]) -> Result<i32, WriteError> {
        match Message::decode_stored(raw, self.legacy_packer) {
            Some(decoded) => self.put(&decoded.message, raw),
            None => Err(WriteError::Usage(
                "the raw bytes are not exactly one message",
            )),
        }
    }

    /// Writes a message read from a file so that the bytes come out as they were stored:
    /// encoded through [`write`](Self::write) when that gives the stored bytes back, copied
    /// from `raw` when its ints were not canonical or its arguments were cut by DDNet's old
    /// packer.
    pub fn write_item(&mut self, item: &MessageAt<'_>) -> Result<i32, WriteError> {
        if item.non_canonical > 0 || item.cut_args > 0 {
            self.write_raw(item.raw)
        } else {
            self.write(&item.message)
        }
    }

    /// Writes FINISH (unless it was written already), flushes and returns the sink.
    pub fn finish(mut self) -> Result<W, WriteError> {
        if !self.finished {
            self.write(&Message::Finish)?;
        }
        self.into_inner()
    }

    /// Flushes and returns the sink without writing FINISH (a file a crashed server would
    /// leave, or a copy whose FINISH came through [`write_item`](Self::write_item)).
    pub fn into_inner(mut self) -> Result<W, WriteError> {
        self.sink.flush()?;
        Ok(self.sink)
    }

    /// Flushes the sink.
    pub fn flush(&mut self) -> Result<(), WriteError> {
        self.sink.flush()?;
        Ok(())
    }

    fn put(&mut self, message: &Message<'_>, bytes: &[u8]) -> Result<i32, WriteError> {
        if self.finished {
            return Err(WriteError::Usage("a message after FINISH"));
        }
        if bytes.len() > MAX_MESSAGE_LEN {
            return Err(WriteError::Usage(
                "the message is longer than MAX_MESSAGE_LEN, the longest a reader accepts",
            ));
        }
        // A whole console command that a reader of a file from the old packer would take
        // for a cut one.
        if self.legacy_packer
            && matches!(message, Message::ConsoleCommand { .. })
            && Message::decode_cut_console_command(bytes).is_some_and(|cut| cut.message != *message)
        {
            return Err(EncodeError::ReadsAsCutConsoleCommand.into());
        }
        // Checked before writing so that a refused message leaves no bytes behind.
        let mut ticks = self.ticks;
        let tick = ticks.apply(message)?;
        self.sink.write_all(bytes)?;
        self.ticks = ticks;
        self.position += bytes.len() as u64;
        self.finished = matches!(message, Message::Finish);
        Ok(tick)
    }
}

/// Why [`rewrite`] stopped: the input could not be read, or a message could not be written
/// again (the shape every format's rewrite shares).
pub type RewriteError = crate::format::RewriteError<ReadError, WriteError>;

crate::format::rewrite_error_from!(ReadError, WriteError);

/// What [`rewrite`] did with each message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RewriteStats {
    /// Messages encoded again from their decoded form.
    pub reencoded: u64,
    /// Messages copied as stored: their ints were not canonical, or DDNet's old packer cut
    /// their arguments, so encoding them again would change their bytes.
    pub copied: u64,
}

/// Reads a whole file and writes it again through [`TeehistorianWriter`] into `sink`: the
/// stored header JSON, then every message through
/// [`write_item`](TeehistorianWriter::write_item). A file that reads without error comes
/// out byte-identical.
///
/// Each message is one `write_all` on `sink`: wrap a file in a
/// [`BufWriter`](std::io::BufWriter). On an error, every message before it has been
/// written (a file without FINISH if the input was cut), and the counts say how many.
pub fn rewrite<W: Write>(
    data: &[u8],
    sink: W,
) -> Result<(W, RewriteStats), (RewriteStats, RewriteError)> {
    let stats = RewriteStats::default();
    let slice = TeehistorianSlice::parse(data).map_err(stopped(stats))?;
    rewrite_messages(slice.header_json(), &mut slice.messages(), sink)
}

/// [`rewrite`] of a file read as a stream (from its start): memory does not grow with the
/// file.
pub fn rewrite_reader<R: std::io::Read, W: Write>(
    input: R,
    sink: W,
) -> Result<(W, RewriteStats), (RewriteStats, RewriteError)> {
    let stats = RewriteStats::default();
    let mut reader = TeehistorianReader::new(input).map_err(stopped(stats))?;
    let json = reader.header_json().to_vec();
    rewrite_messages(&json, &mut reader, sink)
}

/// [`rewrite`] of the messages after the header `json`.
fn rewrite_messages<W: Write>(
    json: &[u8],
    messages: &mut dyn ReadMessages,
    sink: W,
) -> Result<(W, RewriteStats), (RewriteStats, RewriteError)> {
    let mut stats = RewriteStats::default();
    let mut writer = TeehistorianWriter::with_header_json(sink, json).map_err(stopped(stats))?;
    while let Some(item) = messages.next_message() {
        let item = item.map_err(stopped(stats))?;
        writer.write_item(&item).map_err(stopped(stats))?;
        if item.non_canonical > 0 || item.cut_args > 0 {
            stats.copied += 1;
        } else {
            stats.reencoded += 1;
        }
    }
    let sink = writer.into_inner().map_err(stopped(stats))?;
    Ok((sink, stats))
}

impl From<TickError> for WriteError {
    fn from(e: TickError) -> Self {
        match e {
            TickError::OutOfRange { tick } => WriteError::TickOutOfRange { tick },
            TickError::ClientIdOutOfRange { cid } => WriteError::ClientIdOutOfRange { cid },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teehistorian::message::Ex;

    /// A rewrite of a cut file writes every message before the cut, counts them, and
    /// returns the read error; a non-canonical message is counted as copied.
    #[test]
    fn rewrite_of_a_cut_file_keeps_what_reads() {
        let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
        w.write(&Message::Join { cid: 0 }).unwrap();
        // PLAYER_DIFF 0 with its cid in two bytes.
        w.write_raw(&[0x80, 0x00, 0x01, 0x00]).unwrap();
        let whole = w.finish().unwrap();
        let (out, stats) = rewrite(&whole, Vec::new()).unwrap();
        assert_eq!(out, whole);
        // JOIN and FINISH re-encoded, the PLAYER_DIFF copied.
        assert_eq!(
            stats,
            RewriteStats {
                reencoded: 2,
                copied: 1
            }
        );

        let cut = &whole[..whole.len() - 2];
        let mut out = Vec::new();
        let (stats, error) = rewrite(cut, &mut out).unwrap_err();
        assert_eq!(
            stats,
            RewriteStats {
                reencoded: 1,
                copied: 0
            }
        );
        assert!(
            matches!(&error, RewriteError::Read(e) if e.is_truncation()),
            "{error}"
        );
        assert_eq!(out, whole[..whole.len() - 5]);
    }

    #[test]
    fn writes_what_the_reader_reads() {
        let header = Header {
            comment: Some("teehistorian@ddnet.tw".into()),
            ..Header::new("2")
        };
        let mut w = TeehistorianWriter::new(Vec::new(), &header).unwrap();
        assert_eq!(w.write(&Message::Ex(Ex::JoinVer6 { cid: 0 })).unwrap(), 0);
        assert_eq!(
            w.write(&Message::PlayerNew {
                cid: 0,
                x: 100,
                y: 200
            })
            .unwrap(),
            1
        );
        assert_eq!(w.write(&Message::TickSkip { dt: 3 }).unwrap(), 5);
        // A non-canonical PLAYER_DIFF, copied as stored.
        assert_eq!(w.write_raw(&[0x80, 0x00, 0x01, 0x00]).unwrap(), 5);
        assert!(w.write_raw(&[0x00, 0x01]).is_err());
        let bytes = w.finish().unwrap();
        let slice = TeehistorianSlice::parse(&bytes).unwrap();
        assert_eq!(slice.header(), &header);
        let items: Vec<_> = slice.messages().collect::<Result<_, _>>().unwrap();
        assert_eq!(items.len(), 5);
        assert_eq!(items[3].non_canonical, 1);
        assert_eq!(items[4].message, Message::Finish);
        assert_eq!(rewrite(&bytes, Vec::new()).unwrap().0, bytes);
    }

    #[test]
    fn refuses_out_of_order_calls() {
        let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
        assert!(matches!(
            w.write(&Message::TickSkip { dt: -2 }),
            Err(WriteError::TickOutOfRange { tick: -1 })
        ));
        // A player record no DDNet server writes, and no reader could number.
        assert!(matches!(
            w.write(&Message::PlayerOld { cid: 128 }),
            Err(WriteError::ClientIdOutOfRange { cid: 128 })
        ));
        assert_eq!(w.write(&Message::PlayerOld { cid: 127 }).unwrap(), 1);
        let before = w.position();
        w.write(&Message::Finish).unwrap();
        assert!(matches!(
            w.write(&Message::Join { cid: 0 }),
            Err(WriteError::Usage(_))
        ));
        assert_eq!(w.position(), before + 1);
        assert!(TeehistorianWriter::with_header_json(Vec::new(), b"{\0}").is_err());
    }

    /// A message or header longer than the readers take is refused and writes nothing,
    /// through `write` and `write_raw`; the longest message a reader takes is written.
    #[test]
    fn refuses_what_is_too_long_to_read() {
        let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
        // MESSAGE: its id and client id take a byte each, a length below 2^20 three.
        let data = vec![7u8; MAX_MESSAGE_LEN - 4];
        let too_long = Message::NetMessage {
            cid: 0,
            data: &data,
        };
        let mut raw = Vec::new();
        too_long.encode(&mut raw).unwrap();
        assert_eq!(raw.len(), MAX_MESSAGE_LEN + 1);
        let before = w.position();
        assert!(matches!(w.write(&too_long), Err(WriteError::Usage(_))));
        assert!(matches!(w.write_raw(&raw), Err(WriteError::Usage(_))));
        assert_eq!(w.position(), before);
        let longest = Message::NetMessage {
            cid: 0,
            data: &data[1..],
        };
        w.write(&longest).unwrap();
        let file = w.finish().unwrap();
        let (out, _) = rewrite(&file, Vec::new()).unwrap();
        assert_eq!(out, file);

        // A header of exactly MAX_HEADER_LEN bytes is written, one more is refused.
        let header = |len: usize| {
            let (start, end) = (r#"{"version":"2","comment":""#, r#""}"#);
            format!("{start}{}{end}", "a".repeat(len - start.len() - end.len()))
        };
        let json = header(MAX_HEADER_LEN + 1);
        assert!(TeehistorianWriter::with_header_json(Vec::new(), json.as_bytes()).is_err());
        let json = header(MAX_HEADER_LEN);
        let file = TeehistorianWriter::with_header_json(Vec::new(), json.as_bytes())
            .unwrap()
            .finish()
            .unwrap();
        assert!(TeehistorianSlice::parse(&file).is_ok());
    }
}
