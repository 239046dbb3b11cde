//! What a future `demokit info` reports about a teehistorian file: header fields, tick range
//! and message counts from one pass over the messages.

use super::error::{ReadError, ReadErrorKind};
use super::reader::TeehistorianSlice;
use serde::Serialize;
use std::collections::BTreeMap;

/// A teehistorian file's header fields and message counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
        let h = slice.header();
        let mut summary = Summary {
            format: "teehistorian",
            version: h.version.clone(),
            version_minor: h.version_minor.clone(),
            game_uuid: h.game_uuid.clone(),
            server_version: h.server_version.clone(),
            map_name: h.map_name.clone(),
            start_time: h.start_time.clone(),
            header_len: slice.body_offset(),
            first_tick: None,
            last_tick: None,
            finished: false,
            trailing_bytes: 0,
            messages: 0,
            non_canonical_messages: 0,
            counts: BTreeMap::new(),
        };
        let mut messages = slice.messages();
        for item in messages.by_ref() {
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    if let ReadErrorKind::DataAfterFinish { len } = e.kind {
                        summary.trailing_bytes = len;
                    }
                    summary.finished = messages.finished();
                    return Ok((summary, Some(e)));
                }
            };
            summary.messages += 1;
            summary.non_canonical_messages += u64::from(item.non_canonical > 0);
            summary.first_tick.get_or_insert(item.tick);
            summary.last_tick = Some(item.tick);
            *summary
                .counts
                .entry(item.message.kind_name().into_owned())
                .or_default() += 1;
        }
        summary.finished = messages.finished();
        Ok((summary, None))
    }
}
