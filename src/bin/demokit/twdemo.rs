//! The CLI's Teeworlds/DDNet demo output: `info` text, `dump` and `rewrite`. Like the rest
//! of the CLI, it only prints what [`demokit::twdemo`] returns.

use super::destination::{Destination, write_output};
use super::output::{Failure, Output, complain, read_failure, row, tick_range};
use super::{Exit, Outcome, Stop};
use demokit::twdemo::demo::{self, RewriteError, RewriteStats};
use demokit::twdemo::summary::Summary;
use demokit::twdemo::{
    Chunk, ChunkAt, DemoSlice, PayloadDecoder, ReadError, ReadErrorKind, WriteError,
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

/// One chunk as `demokit dump --json` prints it.
#[derive(Debug, Serialize)]
struct DumpLine<'a> {
    /// Offset of the chunk header.
    offset: u64,
    /// The current tick (`null` before the first tick marker).
    tick: Option<i32>,
    /// "tick", "snapshot", "delta", "message" or "unknown".
    kind: &'static str,
    /// For a tick marker: whether it is a keyframe.
    #[serde(skip_serializing_if = "Option::is_none")]
    keyframe: Option<bool>,
    /// Stored payload bytes (0 for a tick marker).
    raw_size: usize,
    /// Bytes after decoding (4 per int); absent if the payload was not decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    decoded_size: Option<usize>,
    /// The decoded ints.
    #[serde(skip_serializing_if = "Option::is_none")]
    ints: Option<&'a [i32]>,
    /// The stored payload in hex, for chunks of the unknown type (which are not decoded).
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_hex: Option<String>,
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
        if let Chunk::Tick(marker) = item.chunk {
            tick = Some(marker.tick);
        }
        let line = dump_line(&item, tick, &mut decoder);
        if let Some(error) = &line.error {
            undecodable += 1;
            first_undecodable.get_or_insert_with(|| (line.offset, error.clone()));
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

/// Describes one chunk, decoding its payload with `decoder`.
fn dump_line<'d>(
    item: &ChunkAt<'_>,
    tick: Option<i32>,
    decoder: &'d mut PayloadDecoder,
) -> DumpLine<'d> {
    let mut line = DumpLine {
        offset: item.offset,
        tick,
        kind: "tick",
        keyframe: None,
        raw_size: 0,
        decoded_size: None,
        ints: None,
        raw_hex: None,
        error: None,
    };
    match item.chunk {
        Chunk::Tick(marker) => line.keyframe = Some(marker.keyframe),
        Chunk::Data(d) => {
            line.kind = d.kind.name();
            line.raw_size = d.payload.len();
            if d.kind == demokit::twdemo::ChunkKind::Unknown {
                // Players skip this type; its payload need not be a Huffman stream at all.
                line.raw_hex = Some(hex::encode(d.payload));
            } else {
                match decoder.decode(d.payload) {
                    Ok(decoded) => {
                        line.decoded_size = Some(decoded.ints.len() * 4);
                        line.ints = Some(decoded.ints);
                    }
                    Err(e) => line.error = Some(e.to_string()),
                }
            }
        }
    }
    line
}

/// Prints one chunk as a text line.
fn print_dump_line(out: &mut Output, line: &DumpLine<'_>) -> Outcome {
    let tick = line.tick.map_or_else(|| "-".to_string(), |t| t.to_string());
    write!(out, "{:>10} {:>10}  {:<8}", line.offset, tick, line.kind)?;
    if let Some(keyframe) = line.keyframe {
        return writeln!(out, "{}", if keyframe { " keyframe" } else { "" });
    }
    let decoded = line
        .decoded_size
        .map_or_else(|| "-".to_string(), |n| n.to_string());
    write!(out, " {:>6} {:>7}  ", line.raw_size, decoded)?;
    if let Some(ints) = line.ints {
        let shown = &ints[..ints.len().min(TEXT_INTS_SHOWN)];
        let list: Vec<String> = shown.iter().map(i32::to_string).collect();
        write!(out, "[{}", list.join(" "))?;
        if ints.len() > shown.len() {
            write!(out, " ... +{} more", ints.len() - shown.len())?;
        }
        write!(out, "]")?;
    }
    if let Some(hex) = &line.raw_hex {
        let cut = hex.len().min(2 * TEXT_INTS_SHOWN * 4);
        write!(
            out,
            "raw {}{}",
            &hex[..cut],
            if cut < hex.len() { "..." } else { "" }
        )?;
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
    print_rewrite_stats(input, output.path(), &stats, bytes.len(), error.is_some());
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
    output: &Path,
    stats: &RewriteStats,
    written: usize,
    partial: bool,
) {
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: {} -> {}: {}{written} bytes; {} tick markers, {} data chunks re-encoded, \
         {} kept stored, {} chunk headers kept as stored",
        input.display(),
        output.display(),
        if partial { "stopped early, " } else { "" },
        stats.tick_markers,
        stats.reencoded,
        stats.kept_stored,
        stats.kept_raw_headers,
    );
}
