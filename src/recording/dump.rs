//! Every record of a recording as it is stored, through the entry point: a demo's chunks
//! (with their decoded payloads), a teehistorian file's messages, a Source demo's frames.
//! What `demokit dump` lists: in JSON each format's serde form, in text one aligned line a
//! record under a header line ([`DumpRecord::header`]).

use super::{Error, Format, Recording};
use crate::source::{FrameAt, SourceReader};
use crate::teehistorian::{MessageAt, TeehistorianReader};
use crate::twdemo::{Chunk, ChunkAt, ChunkKind, DecodedPayload, DemoReader, PayloadDecoder};

/// One stored record, in its format's own terms.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
pub enum DumpRecord<'a> {
    /// A demo's chunk.
    TwDemo(DemoChunk<'a>),
    /// A teehistorian file's message: its place, size, `kind` (and `ex`) and fields.
    Teehistorian(MessageAt<'a>),
    /// A Source demo's frame.
    Source(FrameAt<'a>),
}

/// A demo's chunk as it is stored, the tick a data chunk belongs to, and its decoded
/// payload or why it did not decode.
///
/// With the `serde` feature: the chunk's [`ChunkAt`] fields, then `tick`, `decoded` and
/// `error` where they apply.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct DemoChunk<'a> {
    /// The chunk as read.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub chunk: ChunkAt<'a>,
    /// For a data chunk: the tick of the last tick marker before it (absent before the
    /// first; a tick marker carries its own `tick`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub tick: Option<i32>,
    /// The decoded payload of a data chunk (chunks of the unknown type are not decoded:
    /// players skip them, and their payload need not be a Huffman stream at all).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub decoded: Option<DecodedPayload<'a>>,
    /// Why the payload could not be decoded.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub error: Option<String>,
}

/// How a dump ended.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct DumpEnd {
    /// Demos: how many chunk payloads could not be decoded, and the offset and reason of
    /// the first.
    pub undecodable: Option<(usize, u64, String)>,
    /// The read error that ended the dump early; every record before it was handed out.
    pub error: Option<Error>,
}

impl Recording {
    /// Hands every stored record to `each`, in file order.
    pub fn dump(&self, mut each: impl FnMut(DumpRecord<'_>)) -> Result<DumpEnd, Error> {
        // Every format is read as a stream: memory does not grow with the file.
        let mut end = DumpEnd::default();
        match self.format {
            Format::TwDemo => {
                let mut reader = DemoReader::new(self.reader()?)?;
                let mut decoder = PayloadDecoder::new();
                let mut tick = None;
                while let Some(item) = reader.next() {
                    let item = match item {
                        Ok(item) => item,
                        Err(e) => {
                            end.error = Some(e.into());
                            break;
                        }
                    };
                    let mut line = DemoChunk {
                        chunk: item,
                        tick: None,
                        decoded: None,
                        error: None,
                    };
                    match item.chunk {
                        Chunk::Tick(marker) => tick = Some(marker.tick),
                        Chunk::Data(d) => {
                            line.tick = tick;
                            if d.kind != ChunkKind::Unknown {
                                match decoder.decode(d.payload) {
                                    Ok(decoded) => line.decoded = Some(decoded),
                                    Err(e) => line.error = Some(e.to_string()),
                                }
                            }
                        }
                    }
                    if let Some(error) = &line.error {
                        let first = end
                            .undecodable
                            .get_or_insert((0, item.offset, error.clone()));
                        first.0 += 1;
                    }
                    each(DumpRecord::TwDemo(line));
                }
            }
            Format::Teehistorian => {
                // Read as a stream: memory does not grow with the file.
                let mut reader = TeehistorianReader::new(self.reader()?)?;
                while let Some(item) = reader.next() {
                    match item {
                        Ok(item) => each(DumpRecord::Teehistorian(item)),
                        Err(e) => {
                            end.error = Some(e.into());
                            break;
                        }
                    }
                }
            }
            Format::SourceDemo => {
                // Read as a stream: memory does not grow with the file.
                let mut reader = SourceReader::new(self.reader()?)?;
                while let Some(item) = reader.next() {
                    match item {
                        Ok(item) => each(DumpRecord::Source(item)),
                        Err(e) => {
                            end.error = Some(e.into());
                            break;
                        }
                    }
                }
            }
            _ => return Err(self.unsupported(super::Operation::Dump)),
        }
        Ok(end)
    }
}

/// How many ints a text line shows before it elides the rest.
#[cfg(feature = "serde")]
const TEXT_INTS_SHOWN: usize = 16;

impl DumpRecord<'_> {
    /// The tick the record belongs to: a demo's tick marker's own, a data chunk's last
    /// marker's (`None` before the first), a teehistorian message's, a Source frame's.
    pub fn tick(&self) -> Option<i32> {
        match self {
            DumpRecord::TwDemo(line) => match line.chunk.chunk {
                Chunk::Tick(marker) => Some(marker.tick),
                Chunk::Data(_) => line.tick,
            },
            DumpRecord::Teehistorian(item) => Some(item.tick),
            DumpRecord::Source(item) => Some(item.frame.tick),
        }
    }

    /// The header line of a text dump of a recording of `format` (without its newline).
    pub fn header(format: Format) -> String {
        match format {
            Format::Teehistorian => {
                format!("{:>10} {:>10}  {:<15} fields", "offset", "tick", "kind")
            }
            Format::SourceDemo => format!(
                "{:>10} {:>8} {:>8}  {:<12} {:>8}  fields",
                "offset", "size", "tick", "command", "payload"
            ),
            _ => format!(
                "{:>10} {:>10}  {:<8} {:>6} {:>7}  payload",
                "offset", "tick", "kind", "raw", "decoded"
            ),
        }
    }
}

/// The text line of a record: offset, tick and kind, then what the record holds. A
/// teehistorian message's fields are its serde fields, so this needs the `serde` feature.
#[cfg(feature = "serde")]
impl std::fmt::Display for DumpRecord<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            DumpRecord::TwDemo(line) => demo_line(line),
            DumpRecord::Teehistorian(item) => teehistorian_line(item),
            DumpRecord::Source(item) => source_line(item),
        };
        f.write_str(text.trim_end())
    }
}

/// A demo chunk's line: for a data chunk its stored and decoded sizes and the first ints
/// (or the stored bytes of an undecoded chunk).
#[cfg(feature = "serde")]
fn demo_line(line: &DemoChunk<'_>) -> String {
    use std::fmt::Write as _;
    let offset = line.chunk.offset;
    let d = match line.chunk.chunk {
        Chunk::Tick(marker) => {
            let keyframe = if marker.keyframe { " keyframe" } else { "" };
            return format!("{offset:>10} {:>10}  {:<8}{keyframe}", marker.tick, "tick");
        }
        Chunk::Data(d) => d,
    };
    let tick = line.tick.map_or_else(|| "-".to_string(), |t| t.to_string());
    let decoded = line
        .decoded
        .map_or_else(|| "-".to_string(), |p| (4 * p.ints.len()).to_string());
    let mut out = format!(
        "{offset:>10} {tick:>10}  {:<8} {:>6} {decoded:>7}  ",
        d.kind.name(),
        d.payload.len()
    );
    if let Some(decoded) = line.decoded {
        let ints = decoded.ints;
        let shown = &ints[..ints.len().min(TEXT_INTS_SHOWN)];
        let list: Vec<String> = shown.iter().map(i32::to_string).collect();
        let _ = write!(out, "[{}", list.join(" "));
        if ints.len() > shown.len() {
            let _ = write!(out, " ... +{} more", ints.len() - shown.len());
        }
        out.push(']');
    } else if line.error.is_none() {
        let shown = &d.payload[..d.payload.len().min(TEXT_INTS_SHOWN * 4)];
        let more = if shown.len() < d.payload.len() {
            "..."
        } else {
            ""
        };
        let _ = write!(out, "raw {}{more}", hex::encode(shown));
    }
    if let Some(error) = &line.error {
        let _ = write!(out, "error: {error}");
    }
    out
}

/// A teehistorian message's line: its fields as the library serializes them.
#[cfg(feature = "serde")]
fn teehistorian_line(item: &MessageAt<'_>) -> String {
    use std::fmt::Write as _;
    let kind = item.message.kind_name();
    let mut text = format!("{:>10} {:>10}  {:<15}", item.offset, item.tick, kind);
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(item.message) {
        for (key, value) in fields.iter().filter(|(k, _)| *k != "kind" && *k != "ex") {
            let _ = write!(text, " {key}={value}");
        }
    }
    if item.non_canonical > 0 {
        let _ = write!(text, " non_canonical={}", item.non_canonical);
    }
    text
}

/// A Source frame's line: offset, size, tick, command, payload size and the command's own
/// fields.
#[cfg(feature = "serde")]
fn source_line(item: &FrameAt<'_>) -> String {
    use crate::source::Body;
    use std::fmt::Write as _;
    let frame = &item.frame;
    let mut text = format!(
        "{:>10} {:>8} {:>8}  {:<12} {:>8} ",
        item.offset,
        item.len,
        frame.tick,
        frame.command().name(),
        frame.payload().len()
    );
    let _ = match &frame.body {
        Body::Signon(p) | Body::Packet(p) => {
            write!(text, " seq_in={} seq_out={}", p.seq_in, p.seq_out)
        }
        Body::ConsoleCmd(bytes) => {
            let bytes = bytes.strip_suffix(b"\0").unwrap_or(bytes);
            // Quoted and escaped as a JSON string: control characters stay visible.
            let quoted = serde_json::to_string(&String::from_utf8_lossy(bytes)).unwrap_or_default();
            write!(text, " {quoted}")
        }
        Body::UserCmd { sequence, .. } => write!(text, " sequence={sequence}"),
        Body::CustomData { callback, .. } => write!(text, " callback={callback}"),
        Body::Stop { tail } => write!(text, " tail={}", hex::encode(tail)),
        // synctick, datatables, stringtables: nothing more to show.
        _ => Ok(()),
    };
    text
}

impl Recording {
    /// Hands a demo's full snapshot at every tick to `each`, its items sorted by type and
    /// id (as DDNet's player rebuilds them from keyframes and deltas).
    pub fn snapshots(
        &self,
        mut each: impl FnMut(crate::twdemo::snapshot::replay::ReplayedTick<'_>),
    ) -> Result<super::GameWalk, Error> {
        use crate::twdemo::SnapshotBuf;
        use crate::twdemo::snapshot::replay::SnapshotReplay;
        if self.format != Format::TwDemo {
            return Err(self.unsupported(super::Operation::Dump));
        }
        // Streamed: memory does not grow with the file.
        let mut replay = SnapshotReplay::from_reader(DemoReader::new(self.reader()?)?);
        let mut sorted = SnapshotBuf::new();
        let mut walk = super::GameWalk::default();
        while let Some(tick) = replay.next() {
            let mut tick = match tick {
                Ok(tick) => tick,
                Err(e) => {
                    walk.error = Some(e.into());
                    break;
                }
            };
            if let Some(snapshot) = tick.snapshot {
                sorted.copy_from(snapshot);
                sorted.sort_by_key();
                tick.snapshot = Some(sorted.as_snapshot());
            }
            each(tick);
        }
        walk.skipped = replay.skipped();
        Ok(walk)
    }
}
