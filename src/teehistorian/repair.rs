//! Repairing a teehistorian file that a server did not finish.
//!
//! DDNet writes FINISH only when a game ends cleanly. A file from a server that was stopped
//! or crashed ends without it: on a message boundary when the process died between two
//! writes, or inside a message when it died (or the disk filled up) during one. [`repair`]
//! keeps every message that reads completely, byte for byte, drops what follows (the message
//! cut short, bytes that do not read as a message, or bytes after FINISH), and appends the
//! FINISH the server would have written. The result is the input's prefix plus one byte, so
//! it reads back to the same messages at the same ticks, and a finished file with nothing
//! after FINISH comes back unchanged.
//!
//! A file cut inside its header cannot be repaired: the header is what says how to read the
//! rest.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::ReadError;
use super::format::{FILE_UUID, id};
use super::reader::{ReadMessages, TeehistorianReader};
use crate::codec::varint;

use crate::format::BreakOff;

/// What [`repair`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RepairReport {
    /// Size of the input.
    pub input_len: usize,
    /// Size of the result.
    pub output_len: usize,
    /// Bytes of the input dropped from the end.
    pub bytes_dropped: usize,
    /// Messages kept from the input (a FINISH it had included, an appended one not).
    pub messages_kept: u64,
    /// Tick of the last message kept.
    pub last_tick: Option<i32>,
    /// Whether the input had FINISH.
    pub was_finished: bool,
    /// Whether FINISH was appended.
    pub finish_appended: bool,
    /// Where the input breaks off, if it does: everything from there was dropped.
    pub break_off: Option<BreakOff>,
}

impl RepairReport {
    /// Whether the result differs from the input.
    pub fn changed(&self) -> bool {
        self.finish_appended || self.bytes_dropped > 0
    }
}

/// Why a file cannot be repaired.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepairError {
    /// The file UUID or the JSON header cannot be read.
    #[error("the header cannot be read, so nothing after it can be kept: {0}")]
    Header(#[source] ReadError),
    /// The output could not be written.
    #[error("writing the repaired file: {0}")]
    Write(#[from] std::io::Error),
}

/// Keeps every complete message of `input` and ends the result with FINISH, written to
/// `out` as it is read (the header first, then each complete message, then FINISH if it
/// was missing). On a write error, `out` holds part of the result.
pub fn repair<W: std::io::Write>(input: &[u8], out: W) -> Result<RepairReport, RepairError> {
    repair_reader(input, out)
}

/// [`repair`] of a file read as a stream (from its start): memory does not grow with the
/// file.
pub fn repair_reader<R: std::io::Read, W: std::io::Write>(
    input: R,
    mut out: W,
) -> Result<RepairReport, RepairError> {
    let mut input = CountingReader {
        inner: input,
        read: 0,
    };
    let mut reader = TeehistorianReader::new(&mut input).map_err(RepairError::Header)?;
    out.write_all(&FILE_UUID)?;
    out.write_all(reader.header_json())?;
    out.write_all(&[0])?;
    let mut end = reader.body_offset();
    let mut messages_kept = 0;
    let mut last_tick = None;
    let mut cut = None;
    while let Some(item) = reader.next_message() {
        match item {
            Ok(item) => {
                out.write_all(item.raw)?;
                end = item.end();
                messages_kept += 1;
                last_tick = Some(item.tick);
            }
            Err(e) => {
                cut = Some(BreakOff {
                    offset: e.offset,
                    truncated: e.is_truncation(),
                    reason: e.kind.to_string(),
                });
            }
        }
    }
    let was_finished = ReadMessages::finished(&reader);
    drop(reader);
    // What follows an error was not read by the reader: count it, without keeping it.
    std::io::copy(&mut input, &mut std::io::sink())?;
    let mut output_len = end;
    if !was_finished {
        let mut finish = [0; varint::MAX_BYTES];
        let len = varint::pack(id::FINISH, &mut finish);
        out.write_all(finish.get(..len).unwrap_or(&finish))?;
        output_len += len as u64;
    }
    let input_len = input.read;
    let report = RepairReport {
        input_len: usize::try_from(input_len).unwrap_or(usize::MAX),
        output_len: usize::try_from(output_len).unwrap_or(usize::MAX),
        bytes_dropped: usize::try_from(input_len - end).unwrap_or(usize::MAX),
        messages_kept,
        last_tick,
        was_finished,
        finish_appended: !was_finished,
        break_off: cut,
    };
    Ok(report)
}

/// A reader counting the bytes it has passed on: the input's length, for the report.
struct CountingReader<R> {
    inner: R,
    read: u64,
}

impl<R: std::io::Read> std::io::Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// [`repair`] into memory.
#[cfg(test)]
fn repair_in_memory(data: &[u8]) -> Result<(Vec<u8>, RepairReport), RepairError> {
    let mut out = Vec::new();
    let report = repair(data, &mut out)?;
    Ok((out, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teehistorian::{Header, Message, TeehistorianSlice, TeehistorianWriter};

    fn sample() -> Vec<u8> {
        let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
        w.write(&Message::Join { cid: 0 }).unwrap();
        w.write(&Message::PlayerNew {
            cid: 0,
            x: 1000,
            y: 2000,
        })
        .unwrap();
        w.write(&Message::TickSkip { dt: 3 }).unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn finished_file_comes_back_unchanged() {
        let data = sample();
        let (out, report) = repair_in_memory(&data).unwrap();
        assert_eq!(out, data);
        assert!(!report.changed());
        assert_eq!((report.messages_kept, report.last_tick), (4, Some(5)));
    }

    #[test]
    fn unfinished_and_cut_files_get_finish() {
        let data = sample();
        let slice = TeehistorianSlice::parse(&data).unwrap();
        let body = slice.body_offset();
        let mut boundaries = vec![body];
        boundaries.extend(slice.messages().map(|m| m.unwrap().end() as usize));
        assert_eq!(boundaries, [body, body + 2, body + 8, body + 10, body + 11]);
        // Cut everywhere in the body: the complete messages before the cut, then FINISH.
        for len in body..data.len() {
            let (out, report) = repair_in_memory(&data[..len]).unwrap();
            let kept = *boundaries.iter().rev().find(|&&b| b <= len).unwrap();
            assert_eq!(&out[..kept], &data[..kept], "cut at {len}");
            assert_eq!(&out[kept..], [0x40], "cut at {len}");
            assert!(report.finish_appended);
            assert_eq!(report.bytes_dropped, len - kept);
            assert_eq!(report.break_off.is_some(), len != kept, "cut at {len}");
            assert!(
                report
                    .break_off
                    .iter()
                    .all(|c| c.truncated && c.offset == kept as u64)
            );
            // Repairing again changes nothing.
            let (again, report) = repair_in_memory(&out).unwrap();
            assert_eq!(again, out);
            assert!(!report.changed());
        }
    }

    #[test]
    fn garbage_and_trailing_bytes_are_dropped() {
        let data = sample();
        let mut trailing = data.clone();
        trailing.extend_from_slice(b"junk");
        let (out, report) = repair_in_memory(&trailing).unwrap();
        assert_eq!(out, data);
        assert_eq!(report.bytes_dropped, 4);
        assert!(!report.break_off.unwrap().truncated);

        // An unknown message id (-12) where FINISH was.
        let mut unknown = data[..data.len() - 1].to_vec();
        unknown.extend_from_slice(&[0x4b, 1, 2, 3]);
        let (out, report) = repair_in_memory(&unknown).unwrap();
        assert_eq!(out, data);
        assert_eq!(report.break_off.unwrap().offset, data.len() as u64 - 1);
    }

    #[test]
    fn a_cut_header_cannot_be_repaired() {
        let data = sample();
        let body = TeehistorianSlice::parse(&data).unwrap().body_offset();
        for len in [0, 10, 16, body - 1] {
            assert!(matches!(
                repair_in_memory(&data[..len]),
                Err(RepairError::Header(_))
            ));
        }
    }
}
