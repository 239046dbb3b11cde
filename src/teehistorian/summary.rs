//! What `demokit info` reports about a teehistorian file (header fields, tick range and
//! message counts from one pass over the messages), and what `demokit validate` checks.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind};
use super::format::FILE_UUID;
use super::header::Header;
use super::message::Message;
use super::reader::{MessageAt, ReadMessages, TeehistorianReader, TeehistorianSlice};
use crate::validation::{ProblemKind, Report};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Read;

/// A teehistorian file's header fields and message counts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Summary {
    /// Always `"teehistorian"`.
    pub format: &'static str,
    /// Header `version` (`"1"` or `"2"`).
    pub version: String,
    /// Header `version_minor`, if present.
    pub version_minor: Option<String>,
    /// Header `game_uuid`.
    pub game_uuid: Option<String>,
    /// Header `server_version`.
    pub server_version: Option<String>,
    /// Header `map_name`.
    pub map_name: Option<String>,
    /// Header `start_time`.
    pub start_time: Option<String>,
    /// Bytes before the first message: UUID, JSON and NUL.
    pub header_len: usize,
    /// Tick of the first message.
    pub first_tick: Option<i32>,
    /// Tick of the last message.
    pub last_tick: Option<i32>,
    /// Whether the file ends with FINISH.
    pub finished: bool,
    /// Bytes after FINISH (normally 0).
    pub trailing_bytes: u64,
    /// All messages read, FINISH included.
    pub messages: u64,
    /// Messages holding ints in a form DDNet does not write.
    pub non_canonical_messages: u64,
    /// Message counts by [`Message::kind_name`](super::Message::kind_name): `"PLAYER_DIFF"`,
    /// `"TICK_SKIP"`, ..., `"EX:teehistorian-player-name@ddnet.org"`.
    pub counts: BTreeMap<String, u64>,
}

impl Summary {
    /// Scans a file. If a message cannot be read, the summary covers everything before it and
    /// the error is returned beside it; only a header that cannot be read is an `Err`.
    pub fn scan(data: &[u8]) -> Result<(Summary, Option<ReadError>), ReadError> {
        let slice = TeehistorianSlice::parse(data)?;
        let mut summary = Summary::start(slice.header(), slice.body_offset());
        let mut kinds = KindCounts::default();
        let mut messages = slice.messages();
        let mut error = None;
        // Each item is read where `next` put it, field by field: moving the 88-byte item
        // out first (a wide load right after `next`'s narrower stores) cost a fifth of the
        // scan.
        loop {
            let next = messages.next();
            match &next {
                Some(Ok(item)) => summary.add(&mut kinds, item),
                Some(Err(_)) => {
                    error = next.and_then(Result::err).map(|e| summary.ended(e));
                    break;
                }
                None => break,
            }
        }
        summary.finished = messages.finished();
        summary.counts = kinds.by_name();
        Ok((summary, error))
    }

    /// [`scan`](Self::scan) over any [`Read`], holding one message at a time: memory does
    /// not grow with the file.
    pub fn scan_reader<R: Read>(reader: R) -> Result<(Summary, Option<ReadError>), ReadError> {
        let mut reader = TeehistorianReader::new(reader)?;
        let mut summary = Summary::start(reader.header(), reader.header_json().len() + 17);
        let mut kinds = KindCounts::default();
        let mut error = None;
        // As in `scan`: the item is read where `next` put it.
        loop {
            let next = reader.next();
            match &next {
                Some(Ok(item)) => summary.add(&mut kinds, item),
                Some(Err(_)) => {
                    error = next.and_then(Result::err).map(|e| summary.ended(e));
                    break;
                }
                None => break,
            }
        }
        summary.finished = reader.finished();
        summary.counts = kinds.by_name();
        Ok((summary, error))
    }

    /// A summary of a file with `header` and no messages yet.
    fn start(h: &Header, header_len: usize) -> Summary {
        Summary {
            format: "teehistorian",
            version: h.version.clone(),
            version_minor: h.version_minor.clone(),
            game_uuid: h.game_uuid.clone(),
            server_version: h.server_version.clone(),
            map_name: h.map_name.clone(),
            start_time: h.start_time.clone(),
            header_len,
            first_tick: None,
            last_tick: None,
            finished: false,
            trailing_bytes: 0,
            messages: 0,
            non_canonical_messages: 0,
            counts: BTreeMap::new(),
        }
    }

    /// Counts one message.
    #[inline(always)]
    fn add(&mut self, kinds: &mut KindCounts, item: &MessageAt<'_>) {
        self.messages += 1;
        self.non_canonical_messages += u64::from(item.non_canonical > 0);
        // FINISH closes the file, it is no tick of play: a file of nothing else has none.
        if !matches!(item.message, Message::Finish) {
            self.first_tick.get_or_insert(item.tick);
            self.last_tick = Some(item.tick);
        }
        kinds.add(&item.message);
    }

    /// Notes why the stream ended and hands the error back.
    fn ended(&mut self, error: ReadError) -> ReadError {
        if let ReadErrorKind::DataAfterFinish { len } = error.kind {
            self.trailing_bytes = len;
        }
        error
    }
}

/// Slots of [`KindCounts`]: one per message id (PLAYER_DIFF's cids share slot 0, the
/// negative ids -1 to -15 have slots 1 to 15), then one per typed EX kind.
const ID_SLOTS: usize = 16;
/// EX kinds with a slot of their own (DDNet defines 21).
const EX_SLOTS: usize = 48;

/// Message counts by kind while scanning. A string-keyed map lookup per message cost
/// `info` half of the reader's speed; this counts in an array slot found from the message
/// id or the EX kind and names the slots once at the end, each by the
/// [`kind_name`](Message::kind_name) of the first message counted there. EX messages with
/// a UUID DDNet does not define (rare) and kinds beyond the slots go to a map by name.
#[derive(Debug)]
struct KindCounts {
    /// Messages per slot.
    counts: [u64; ID_SLOTS + EX_SLOTS],
    /// The kind name of each slot, from its first message.
    names: [Option<Cow<'static, str>>; ID_SLOTS + EX_SLOTS],
    /// Kinds without a slot, by name.
    others: BTreeMap<String, u64>,
}

impl Default for KindCounts {
    fn default() -> Self {
        KindCounts {
            counts: [0; ID_SLOTS + EX_SLOTS],
            names: std::array::from_fn(|_| None),
            others: BTreeMap::new(),
        }
    }
}

impl KindCounts {
    /// The slot of `message`'s kind, if it has one.
    #[inline(always)]
    fn slot(message: &Message<'_>) -> Option<usize> {
        match message {
            Message::Ex(ex) => ex
                .kind()
                .map(|kind| ID_SLOTS + kind as usize)
                .filter(|&slot| slot < ID_SLOTS + EX_SLOTS),
            other => {
                let id = other.id();
                let slot = if id >= 0 {
                    0
                } else {
                    id.unsigned_abs() as usize
                };
                (slot < ID_SLOTS).then_some(slot)
            }
        }
    }

    /// Counts one message.
    #[inline(always)]
    fn add(&mut self, message: &Message<'_>) {
        match Self::slot(message) {
            Some(slot) => {
                // `slot` gives an index into both tables.
                if let (Some(count), Some(name)) =
                    (self.counts.get_mut(slot), self.names.get_mut(slot))
                {
                    if *count == 0 {
                        *name = Some(message.kind_name());
                    }
                    *count += 1;
                }
            }
            None => {
                *self
                    .others
                    .entry(message.kind_name().into_owned())
                    .or_insert(0) += 1
            }
        }
    }

    /// The counts by kind name.
    fn by_name(self) -> BTreeMap<String, u64> {
        let mut counts = self.others;
        for (n, name) in self.counts.into_iter().zip(self.names) {
            if let Some(name) = name {
                *counts.entry(name.into_owned()).or_insert(0) += n;
            }
        }
        counts
    }
}

/// Checks that a file reads to its end, for `demokit validate`.
///
/// Fatal: the header or a message cannot be read (a message cut short names its offset and
/// points to `demokit repair`), or bytes follow FINISH (the reader stops there, so a rewrite
/// would drop them). Warnings: the file ends on a message boundary without FINISH (the server
/// was still running, was stopped, or crashed between two writes: every message is there, and
/// `demokit repair` appends FINISH); messages holding ints in a form DDNet does not write
/// (they read as DDNet's unpacker reads them and a rewrite copies them as stored, so one
/// warning names the first such message and how many there are); console commands that the
/// 2 KiB packer of DDNet before minor version 9 cut (their last arguments were never
/// written). Problems come in file order.
pub fn validate(data: &[u8]) -> Report {
    match TeehistorianSlice::parse(data) {
        Err(e) => validate_messages(Err(e)),
        Ok(slice) => validate_messages(Ok(&mut slice.messages())),
    }
}

/// [`validate`] of a file read as a stream (from its start): memory does not grow with
/// the file.
pub fn validate_reader<R: Read>(input: R) -> Report {
    match TeehistorianReader::new(input) {
        Err(e) => validate_messages(Err(e)),
        Ok(mut reader) => validate_messages(Ok(&mut reader)),
    }
}

/// [`validate`] of the messages after a header that read (or the header's error).
fn validate_messages(messages: Result<&mut dyn ReadMessages, ReadError>) -> Report {
    let mut report = Report::default();
    let mut error = None;
    // Offset of the first message with non-canonical ints, and how many there are.
    let mut non_canonical: Option<(u64, u64)> = None;
    // Likewise for console commands cut by DDNet's old packer, with the arguments lost.
    let mut cut: Option<(u64, u64, u64)> = None;
    let mut unfinished_at = None;
    match messages {
        Err(e) => error = Some(e),
        Ok(messages) => {
            while let Some(item) = messages.next_message() {
                match item {
                    Ok(item) => {
                        if item.non_canonical > 0 {
                            non_canonical.get_or_insert((item.offset, 0)).1 += 1;
                        }
                        if item.cut_args > 0 {
                            let entry = cut.get_or_insert((item.offset, 0, 0));
                            entry.1 += 1;
                            entry.2 += u64::from(item.cut_args);
                        }
                    }
                    Err(e) => error = Some(e),
                }
            }
            if error.is_none() && !messages.finished() {
                unfinished_at = Some(messages.position());
            }
        }
    }
    if let Some((offset, count)) = non_canonical {
        report.warn(
            offset,
            ProblemKind::NonCanonicalInts,
            format!(
                "{count} message{s} hold{v} ints in a form DDNet does not write (the first is \
                 here); they read as DDNet reads them and a rewrite keeps them as stored",
                s = if count == 1 { "" } else { "s" },
                v = if count == 1 { "s" } else { "" },
            ),
        );
    }
    if let Some((offset, commands, args)) = cut {
        report.warn(
            offset,
            ProblemKind::CutConsoleCommands,
            format!(
                "{commands} console command{s} cut by the 2 KiB packer of the DDNet version \
                 that wrote the file (the first is here): {args} argument{a} never \
                 written; the rest reads, and a rewrite keeps the records as stored",
                s = if commands == 1 { " was" } else { "s were" },
                a = if args == 1 { " was" } else { "s were" },
            ),
        );
    }
    if let Some(offset) = unfinished_at {
        report.warn(
            offset,
            ProblemKind::Unfinished,
            "the file ends without FINISH, on a message boundary: unfinished (the server was \
             still writing it, was stopped or crashed); every message reads, and a repair \
             appends FINISH",
        );
    }
    if let Some(e) = error {
        let (kind, message) = match &e.kind {
            // Errors in the file UUID or the header are reported at its start, 0 or 16; a
            // message starts after the header's NUL.
            _ if e.offset <= FILE_UUID.len() as u64 => (ProblemKind::Header, e.kind.to_string()),
            ReadErrorKind::UnexpectedEnd { .. } => (
                ProblemKind::Truncated,
                format!(
                    "{}: the file is cut inside a message; a repair keeps every \
                     complete message before it and appends FINISH",
                    e.kind
                ),
            ),
            ReadErrorKind::DataAfterFinish { .. } => {
                (ProblemKind::DataAfterFinish, e.kind.to_string())
            }
            _ => (ProblemKind::Message, e.kind.to_string()),
        };
        report.fail(e.offset, kind, message);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teehistorian::{Header, Message, TeehistorianWriter};

    proptest::proptest! {
        /// The counts by slot name the same kinds as counting every message by its
        /// `kind_name`, for files of every message kind (EX ones with unknown UUIDs and
        /// payloads that do not fit their layout included), through both scans.
        #[test]
        fn counts_agree_with_kind_names(file in crate::teehistorian::strategies::file(40)) {
            let mut expected = BTreeMap::new();
            if let Ok(slice) = TeehistorianSlice::parse(&file) {
                for item in slice.messages() {
                    let Ok(item) = item else { break };
                    *expected.entry(item.message.kind_name().into_owned()).or_insert(0) += 1;
                }
            }
            if let Ok((summary, _)) = Summary::scan(&file) {
                proptest::prop_assert_eq!(&summary.counts, &expected);
                proptest::prop_assert_eq!(summary.messages, expected.values().sum::<u64>());
            }
            if let Ok((summary, _)) = Summary::scan_reader(&file[..]) {
                proptest::prop_assert_eq!(&summary.counts, &expected);
            }
        }
    }

    #[test]
    fn validate_fatal_and_warnings() {
        let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
        w.write(&Message::Join { cid: 0 }).unwrap();
        let clean = w.finish().unwrap();
        assert_eq!(validate(&clean), Report::default());

        let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
        w.write(&Message::Join { cid: 0 }).unwrap();
        // PLAYER_DIFF 0 and 1 with their cids in two bytes.
        w.write_raw(&[0x80, 0x00, 0x01, 0x00]).unwrap();
        w.write_raw(&[0x81, 0x00, 0x01, 0x00]).unwrap();
        let bytes = w.finish().unwrap();
        let first = TeehistorianSlice::parse(&bytes).unwrap().body_offset() as u64 + 2;
        let report = validate(&bytes);
        assert!(report.accepted());
        assert_eq!(report.problems.len(), 1);
        assert_eq!(
            (report.problems[0].offset, report.problems[0].fatal),
            (first, false)
        );
        assert!(report.problems[0].message.starts_with("2 messages hold"));
        assert_eq!(report.problems[0].kind, ProblemKind::NonCanonicalInts);

        // Bytes after FINISH: fatal, after the warning.
        let mut trailing = bytes.clone();
        trailing.push(0);
        let report = validate(&trailing);
        assert!(!report.accepted());
        let offsets: Vec<_> = report
            .problems
            .iter()
            .map(|p| (p.offset, p.fatal))
            .collect();
        assert_eq!(offsets, [(first, false), (bytes.len() as u64, true)]);
        assert_eq!(report.problems[1].kind, ProblemKind::DataAfterFinish);

        // No FINISH, on a message boundary: unfinished, a warning at the end.
        let unfinished = &bytes[..bytes.len() - 1];
        let report = validate(unfinished);
        assert!(report.accepted());
        let last = report.problems.last().unwrap();
        assert_eq!((last.offset, last.fatal), (unfinished.len() as u64, false));
        assert!(last.message.contains("without FINISH"), "{}", last.message);
        assert_eq!(last.kind, ProblemKind::Unfinished);

        // Cut inside a message (PLAYER_DIFF 1 lost its last int): fatal at its start,
        // pointing to repair.
        let cut = &bytes[..bytes.len() - 2];
        let report = validate(cut);
        let fatal = report.first_fatal().unwrap();
        assert_eq!(fatal.offset, bytes.len() as u64 - 5);
        assert_eq!(fatal.kind, ProblemKind::Truncated);
        assert!(
            fatal.message.contains("a repair keeps"),
            "{}",
            fatal.message
        );

        // Not a teehistorian file at all.
        let fatal = validate(b"TWDEMO\0").first_fatal().cloned().unwrap();
        assert_eq!((fatal.offset, fatal.kind), (0, ProblemKind::Header));

        // A message id below EX: a message that does not read.
        let mut unknown = bytes[..bytes.len() - 1].to_vec();
        let at = unknown.len() as u64;
        unknown.push(0x4c); // -13: packed sign bit and 12
        let fatal = validate(&unknown).first_fatal().cloned().unwrap();
        assert_eq!((fatal.offset, fatal.kind), (at, ProblemKind::Message));
    }
}
