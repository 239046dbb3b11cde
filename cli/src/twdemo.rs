//! The CLI's Teeworlds/DDNet demo output: `info` text, `dump` and `rewrite`. Like the rest
//! of the CLI, it only prints what [`demokit::twdemo`] returns.

use super::destination::{Destination, write_output};
use super::output::{Failure, Output, complain, read_failure, row, shown_name, tick_range};
use super::{Exit, Outcome, Stop};
use demokit::twdemo::demo::{self, RewriteError, RewriteStats};
use demokit::twdemo::summary::Summary;
use demokit::twdemo::{
    Chunk, ChunkAt, ChunkKind, DecodedPayload, DemoSlice, PayloadDecoder, ReadError, ReadErrorKind,
    WriteError,
};
use serde::Serialize;
use std::io::{self, Write};
use std::path::Path;

impl Failure for ReadError {
    fn offset(&self) -> u64 {
        self.offset
    }
    fn message(&self) -> String {
        self.kind.to_string()
    }
    fn exit(&self) -> Exit {
        match self.kind {
            ReadErrorKind::Io(_) => Exit::Io,
            _ => Exit::Invalid,
        }
    }
}

/// Appends a demo summary as an aligned text block.
pub(crate) fn summary_text(out: &mut String, s: &Summary) {
    let markers = if s.timeline_markers.is_empty() {
        "none".to_string()
    } else {
        let list: Vec<String> = s.timeline_markers.iter().map(i32::to_string).collect();
        format!("{} ({})", s.timeline_markers.len(), list.join(", "))
    };
    let c = &s.counts;
    let rows: [(&str, String); 19] = [
        ("format", s.format.to_string()),
        ("version", s.version.to_string()),
        ("net version", s.net_version.clone()),
        ("map name", s.map_name.clone()),
        ("map size", format!("{} bytes", s.map_size)),
        ("map crc", s.map_crc.clone()),
        (
            "map sha256",
            s.map_sha256.clone().unwrap_or_else(|| "none".into()),
        ),
        ("type", s.kind.clone()),
        ("length", format!("{} s", s.length)),
        ("timestamp", s.timestamp.clone()),
        ("timeline markers", markers),
        (
            "map offset",
            format!("{} (chunks at {})", s.map_offset, s.chunks_offset),
        ),
        ("ticks", tick_range(s.first_tick, s.last_tick)),
        (
            "tick markers",
            format!(
                "{} ({} keyframe{})",
                c.tick_markers,
                c.keyframes,
                if c.keyframes == 1 { "" } else { "s" }
            ),
        ),
        ("snapshots", c.snapshots.to_string()),
        ("deltas", c.deltas.to_string()),
        ("messages", c.messages.to_string()),
        ("unknown chunks", c.unknown.to_string()),
        ("payload bytes", format!("{} (stored)", s.payload_bytes)),
    ];
    for (key, value) in rows {
        row(out, key, value);
    }
    map_text(out, s);
}

/// Appends the embedded map's own facts (from its datafile) to a demo's text block.
fn map_text(out: &mut String, s: &Summary) {
    if let Some(e) = &s.map_error {
        row(
            out,
            "map file",
            format_args!("not a datafile: at byte {}: {}", e.offset, e.message),
        );
        return;
    }
    let Some(m) = &s.map else {
        return;
    };
    row(
        out,
        "map file",
        format_args!(
            "datafile v{}, {} items ({} types), {} data blocks, crc {}",
            m.datafile_version, m.items, m.item_types, m.data_blocks, m.crc32
        ),
    );
    let version = m.map_version.map_or("none".to_string(), |v| v.to_string());
    row(out, "map version", version);
    if let Some(info) = &m.info {
        for (key, value) in [
            ("map author", &info.author),
            ("map release", &info.version),
            ("map credits", &info.credits),
            ("map license", &info.license),
        ] {
            if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
                row(out, key, v);
            }
        }
    }
    let game = m.game_layer.map_or("no game layer".to_string(), |g| {
        format!("game layer {}x{}", g.width, g.height)
    });
    row(
        out,
        "map contents",
        format_args!(
            "{} groups, {} layers ({} tiles, {} quads, {} sounds), {} images ({} embedded), {} envelopes, {} sounds; {game}",
            m.groups,
            m.layers.tiles + m.layers.quads + m.layers.sounds + m.layers.other,
            m.layers.tiles,
            m.layers.quads,
            m.layers.sounds,
            m.images,
            m.embedded_images,
            m.envelopes,
            m.sounds
        ),
    );
    match &m.load_error {
        None => row(out, "map loads", "yes (DDNet's map checks pass)"),
        Some(e) => row(
            out,
            "map loads",
            format_args!("no: at map byte {}: {}", e.offset, e.message),
        ),
    }
}

/// One chunk as `demokit dump --json` prints it: the library's [`ChunkAt`] (offset,
/// stored header, and the tick marker's or data chunk's fields), the tick a data chunk
/// belongs to, and its decoded payload or why it did not decode.
#[derive(Debug, Serialize)]
struct DumpLine<'a> {
    /// The chunk as read.
    #[serde(flatten)]
    chunk: ChunkAt<'a>,
    /// For a data chunk: the tick of the last tick marker before it (absent before the
    /// first; a tick marker carries its own `tick`).
    #[serde(skip_serializing_if = "Option::is_none")]
    tick: Option<i32>,
    /// The decoded payload of a data chunk (chunks of the unknown type are not decoded:
    /// players skip them, and their payload need not be a Huffman stream at all).
    #[serde(skip_serializing_if = "Option::is_none")]
    decoded: Option<DecodedPayload<'a>>,
    /// Why the payload could not be decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// How many ints a text dump line shows before it elides the rest.
const TEXT_INTS_SHOWN: usize = 16;

/// `demokit dump` on a demo.
pub(crate) fn dump(file: &Path, data: &[u8], json: bool) -> Outcome {
    let slice = DemoSlice::parse(data).map_err(|e| read_failure(file, &e))?;
    let mut out = Output::new();
    let mut decoder = PayloadDecoder::new();
    let mut tick = None;
    // Offset and message of the first payload that failed to decode, and how many did.
    let mut first_undecodable: Option<(u64, String)> = None;
    let mut undecodable = 0usize;
    if !json {
        writeln!(
            out,
            "{:>10} {:>10}  {:<8} {:>6} {:>7}  payload",
            "offset", "tick", "kind", "raw", "decoded"
        )?;
    }
    for item in slice.chunks() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                out.flush()?;
                return Err(read_failure(file, &e));
            }
        };
        let mut line = DumpLine {
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
            undecodable += 1;
            first_undecodable.get_or_insert_with(|| (item.offset, error.clone()));
        }
        if json {
            out.json_line(&line)?;
        } else {
            print_dump_line(&mut out, &line)?;
        }
    }
    out.flush()?;
    match first_undecodable {
        None => Ok(()),
        Some((offset, error)) => {
            let plural = if undecodable == 1 { "" } else { "s" };
            complain(
                file,
                format_args!(
                    "at byte {offset}: {undecodable} chunk payload{plural} could not be \
                     decoded; the first: {error}"
                ),
            );
            Err(Stop(Exit::Invalid))
        }
    }
}

/// Prints one chunk as a text line: offset, tick, kind, then for a data chunk its stored
/// and decoded sizes and the first ints (or the stored bytes of an undecoded chunk).
fn print_dump_line(out: &mut Output, line: &DumpLine<'_>) -> Outcome {
    let offset = line.chunk.offset;
    let d = match line.chunk.chunk {
        Chunk::Tick(marker) => {
            let keyframe = if marker.keyframe { " keyframe" } else { "" };
            return writeln!(
                out,
                "{offset:>10} {:>10}  {:<8}{keyframe}",
                marker.tick, "tick"
            );
        }
        Chunk::Data(d) => d,
    };
    let tick = line.tick.map_or_else(|| "-".to_string(), |t| t.to_string());
    let decoded = line
        .decoded
        .map_or_else(|| "-".to_string(), |p| (4 * p.ints.len()).to_string());
    write!(
        out,
        "{offset:>10} {tick:>10}  {:<8} {:>6} {decoded:>7}  ",
        d.kind.name(),
        d.payload.len()
    )?;
    if let Some(decoded) = line.decoded {
        let ints = decoded.ints;
        let shown = &ints[..ints.len().min(TEXT_INTS_SHOWN)];
        let list: Vec<String> = shown.iter().map(i32::to_string).collect();
        write!(out, "[{}", list.join(" "))?;
        if ints.len() > shown.len() {
            write!(out, " ... +{} more", ints.len() - shown.len())?;
        }
        write!(out, "]")?;
    } else if line.error.is_none() {
        let shown = &d.payload[..d.payload.len().min(TEXT_INTS_SHOWN * 4)];
        let more = if shown.len() < d.payload.len() {
            "..."
        } else {
            ""
        };
        write!(out, "raw {}{more}", hex::encode(shown))?;
    }
    if let Some(error) = &line.error {
        write!(out, "error: {error}")?;
    }
    writeln!(out)
}

/// `demokit rewrite` on a demo.
pub(crate) fn rewrite(input: &Path, output: &Destination, data: &[u8]) -> Outcome {
    let mut bytes = Vec::with_capacity(data.len());
    let (stats, error) = match demo::rewrite(data, &mut bytes) {
        Ok((_, stats)) => (stats, None),
        Err((stats, error)) => (stats, Some(error)),
    };
    // Whatever precedes a read error is a valid demo prefix; write it too. When nothing
    // could be produced (the prelude itself is unreadable), OUT is left alone.
    if error.is_none() || !bytes.is_empty() {
        write_output(output, &bytes)?;
    }
    print_rewrite_stats(input, &output.name(), &stats, bytes.len(), error.is_some());
    match error {
        None => Ok(()),
        Some(RewriteError::Read(e)) => Err(read_failure(input, &e)),
        Some(RewriteError::Write(WriteError::Io(e))) => {
            complain(output.path(), format_args!("cannot write: {e}"));
            Err(Stop(Exit::Io))
        }
        Some(RewriteError::Write(e)) => {
            complain(input, format_args!("cannot be written again: {e}"));
            Err(Stop(Exit::Invalid))
        }
    }
}

/// Prints what a rewrite did to stderr.
fn print_rewrite_stats(
    input: &Path,
    output: &str,
    stats: &RewriteStats,
    written: usize,
    partial: bool,
) {
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: {} -> {}: {}{written} bytes; {} tick markers, {} data chunks re-encoded, \
         {} kept stored, {} chunk headers kept as stored",
        shown_name(input),
        output,
        if partial { "stopped early, " } else { "" },
        stats.tick_markers,
        stats.reencoded,
        stats.kept_stored,
        stats.kept_raw_headers,
    );
}
