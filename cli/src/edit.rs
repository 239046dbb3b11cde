//! The CLI's editing commands: `convert`, `repair` and `trim` (Teeworlds demos and
//! teehistorian files), `extract-map` and `markers`. Each hands the bytes to
//! [`demokit::twdemo`] or [`demokit::teehistorian`] and prints the report it returns.

use super::destination::{Destination, write_output};
use super::output::{
    Output, complain, counted, name_of, read_failure, row, seconds, tick_list, tick_range,
    warn_skipped,
};
use super::{Exit, Outcome, Stop};
use demokit::datafile::MapFacts;
use demokit::teehistorian::cut::{self as th_cut, CutError, CutRangeError};
use demokit::twdemo::convert::convert;
use demokit::twdemo::markers::{MarkersError, edit_markers, list_markers};
use demokit::twdemo::recorder::SERVER_TICK_SPEED;
use demokit::twdemo::repair::{ExtractedMap, extract_map, repair};
use demokit::twdemo::replay::SnapshotReplay;
use demokit::twdemo::trim::{RangeBound, RangeError, RuleSource, resolve_range, trim};
use demokit::twdemo::{DemoSlice, SnapshotBuf};
use serde::Serialize;
use std::fmt::{Display, Write as _};
use std::path::Path;

/// Prints `report` as one JSON line, or as `key value` rows given by `rows`: on stdout, or
/// on stderr when the command's output file goes to stdout.
fn print_report<T: Serialize>(
    output: &Destination,
    report: &T,
    json: bool,
    rows: impl FnOnce(&mut String),
) -> Outcome {
    let mut out = Output::for_report(output.is_stdout());
    if json {
        out.json_line(report)?;
    } else {
        let mut text = String::new();
        rows(&mut text);
        write!(out, "{text}")?;
    }
    out.flush()
}

/// A refusal of the library: the input cannot be processed as asked (exit 1).
fn refused(input: &Path, what: &str, error: impl Display) -> Stop {
    complain(input, format_args!("cannot {what}: {error}"));
    Stop(Exit::Invalid)
}

/// `demokit convert IN OUT --version N`.
pub(crate) fn convert_file(
    input: &Path,
    output: &Destination,
    data: &[u8],
    version: u8,
    json: bool,
) -> Outcome {
    let (bytes, report) = convert(data, version).map_err(|e| refused(input, "convert", e))?;
    write_output(output, &bytes)?;
    print_report(output, &report, json, |t| {
        row(
            t,
            "version",
            format_args!("{} -> {}", report.from_version, report.to_version),
        );
        row(t, "timeline markers", name_of(&report.timeline_markers));
        if !report.markers_dropped.is_empty() {
            row(t, "markers dropped", tick_list(&report.markers_dropped));
        }
        row(t, "map sha256", name_of(&report.sha256));
        row(
            t,
            "tick markers",
            format_args!(
                "{} ({} re-encoded)",
                report.tick_markers, report.tick_markers_reencoded
            ),
        );
        row(
            t,
            "data chunks",
            format_args!("{} (copied)", report.data_chunks),
        );
        row(
            t,
            "bytes",
            format_args!("{} -> {}", report.input_len, report.output_len),
        );
    })
}

/// `demokit repair IN OUT` on a Teeworlds demo.
pub(crate) fn repair_demo(input: &Path, output: &Destination, data: &[u8], json: bool) -> Outcome {
    let (bytes, report) = repair(data).map_err(|e| refused(input, "repair", e))?;
    write_output(output, &bytes)?;
    print_report(output, &report, json, |t| {
        if !report.changed() {
            row(t, "unchanged", "the demo was already complete");
        }
        if let Some(cut) = &report.cut {
            row(
                t,
                "cut at",
                format_args!("byte {} ({})", cut.offset, cut.reason),
            );
        }
        row(t, "bytes dropped", report.bytes_dropped);
        row(
            t,
            "chunks kept",
            format_args!(
                "{} ({} tick markers, {} keyframes)",
                report.chunks_kept, report.tick_markers_kept, report.keyframes_kept
            ),
        );
        row(
            t,
            "length",
            format_args!("{} -> {} s", report.old_length, report.new_length),
        );
        if !report.markers_dropped.is_empty() {
            row(t, "markers dropped", tick_list(&report.markers_dropped));
        }
    })
}

/// `demokit repair` on a teehistorian file: every complete message, then FINISH.
pub(crate) fn repair_teehistorian(
    input: &Path,
    output: &Destination,
    data: &[u8],
    json: bool,
) -> Outcome {
    let (bytes, report) =
        demokit::teehistorian::repair(data).map_err(|e| refused(input, "repair", e))?;
    write_output(output, &bytes)?;
    print_report(output, &report, json, |t| {
        if !report.changed() {
            row(t, "unchanged", "the file was already finished");
        }
        if let Some(cut) = &report.cut {
            row(
                t,
                "cut at",
                format_args!("byte {} ({})", cut.offset, cut.reason),
            );
        }
        row(t, "bytes dropped", report.bytes_dropped);
        row(t, "messages kept", report.messages_kept);
        if let Some(tick) = report.last_tick {
            row(t, "last tick", tick);
        }
        row(
            t,
            "finish",
            if report.finish_appended {
                "appended"
            } else {
                "already there"
            },
        );
    })
}

/// What `demokit extract-map --json` prints: the library's
/// [`demokit::twdemo::repair::ExtractedMap`] (`name`, `offset`, `crc32` and `sha256` as
/// `{expected, actual}`), the map's size, whether it matches, and its facts.
#[derive(Debug, Serialize)]
struct ExtractJson<'a> {
    /// The map and its checks.
    #[serde(flatten)]
    map: &'a ExtractedMap,
    /// The map's size.
    size: usize,
    /// Whether the CRC-32 (and SHA-256, when the demo has one) match the header.
    matches: bool,
    /// The map's own facts from its datafile.
    #[serde(skip_serializing_if = "Option::is_none")]
    facts: Option<MapFacts>,
    /// Why the map does not open as a datafile, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    datafile_error: Option<String>,
}

/// `demokit extract-map IN OUT.map`: writes the embedded map; exits 1 (after writing it) if
/// it does not match the header's checksums.
pub(crate) fn extract_map_file(
    input: &Path,
    output: &Destination,
    data: &[u8],
    json: bool,
) -> Outcome {
    let map = extract_map(data).map_err(|e| refused(input, "extract the map", e))?;
    write_output(output, &map.bytes)?;
    let (facts, datafile_error) = match MapFacts::read(&map.bytes) {
        Ok(facts) => (Some(facts), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let summary = ExtractJson {
        map: &map,
        size: map.bytes.len(),
        matches: map.matches(),
        facts,
        datafile_error,
    };
    print_report(output, &summary, json, |t| {
        row(t, "map", &map.name);
        row(
            t,
            "size",
            format_args!("{} bytes at offset {}", map.bytes.len(), map.offset),
        );
        row(
            t,
            "crc32",
            format_args!(
                "{:08x} (header {:08x})",
                map.crc32.actual, map.crc32.expected
            ),
        );
        if let Some(sha) = &map.sha256 {
            let (actual, expected) = (hex::encode(sha.actual), hex::encode(sha.expected));
            row(t, "sha256", format_args!("{actual} (header {expected})"));
        }
        if let Some(e) = &summary.datafile_error {
            row(t, "datafile", format_args!("not a datafile: {e}"));
        }
        if let Some(f) = &summary.facts {
            row(
                t,
                "datafile",
                format_args!(
                    "v{}, {} items, {} data blocks",
                    f.datafile_version, f.items, f.data_blocks
                ),
            );
            if let Some(author) = f.info.as_ref().and_then(|i| i.author.as_ref()) {
                row(t, "author", author);
            }
            if let Some(g) = f.game_layer {
                row(t, "game layer", format_args!("{}x{}", g.width, g.height));
            }
            match &f.load_error {
                None => row(t, "loads", "yes (DDNet's map checks pass)"),
                Some(e) => row(
                    t,
                    "loads",
                    format_args!("no: at map byte {}: {}", e.offset, e.message),
                ),
            }
        }
    })?;
    map.verify().map_err(|mismatch| {
        complain(
            input,
            format_args!("the embedded map does not match the header: {mismatch}"),
        );
        Stop(Exit::Invalid)
    })
}

/// `demokit trim IN OUT [--from BOUND] [--to BOUND]`: the bounds resolved to ticks by the
/// library, an empty range a usage error.
pub(crate) fn trim_file(
    input: &Path,
    output: &Destination,
    data: &[u8],
    from: Option<RangeBound>,
    to: Option<RangeBound>,
    json: bool,
) -> Outcome {
    let (from, to) = resolve_range(data, from, to).map_err(|e| match e {
        RangeError::Read(e) => read_failure(input, &e),
        RangeError::NoTicks => refused(input, "trim", e),
        usage => {
            complain(input, format_args!("cannot trim: {usage}"));
            Stop(Exit::Usage)
        }
    })?;
    let (bytes, report) = trim(data, from, to).map_err(|e| refused(input, "trim", e))?;
    write_output(output, &bytes)?;
    print_report(output, &report, json, |t| {
        row(
            t,
            "ticks",
            format_args!(
                "{} to {} ({} ticks)",
                report.first_tick, report.last_tick, report.ticks
            ),
        );
        row(
            t,
            "snapshots",
            format_args!(
                "{} ({}, {} of them to keep the item order; {}; {} unchanged)",
                report.snapshots,
                counted(report.keyframes, "keyframe"),
                report.order_keyframes,
                counted(report.deltas, "delta"),
                counted(report.unchanged_ticks, "tick"),
            ),
        );
        row(t, "messages", report.messages);
        row(t, "timeline markers", tick_list(&report.timeline_markers));
        let source = match report.rule_source {
            RuleSource::Given => "given".to_string(),
            RuleSource::Detected { offset } => format!("as the chunk at byte {offset}"),
            RuleSource::Fallback => {
                "no chunk tells the rules apart; the usual one for the version".to_string()
            }
        };
        row(
            t,
            "huffman rule",
            format_args!("{} ({source})", name_of(&report.huffman_rule)),
        );
    })
}

/// `demokit trim IN OUT [--from BOUND] [--to BOUND]` on a teehistorian file: the bounds
/// resolved to ticks by the library (a marker or an empty range a usage error), then
/// [`demokit::teehistorian::cut`].
pub(crate) fn trim_teehistorian(
    input: &Path,
    output: &Destination,
    data: &[u8],
    from: Option<RangeBound>,
    to: Option<RangeBound>,
    json: bool,
) -> Outcome {
    let range = th_cut::resolve_range(data, from, to).map_err(|e| match e {
        CutRangeError::Read(e) => read_failure(input, &e),
        usage => {
            complain(input, format_args!("cannot trim: {usage}"));
            Stop(Exit::Usage)
        }
    })?;
    let mut bytes = Vec::new();
    let report = th_cut::cut(data, range, &mut bytes).map_err(|e| match e {
        CutError::Header(e) => read_failure(input, &e),
        CutError::Read(e) => {
            complain(
                input,
                format_args!(
                    "at byte {}: cannot trim: the file does not read up to tick {}: {}",
                    e.offset, range.from, e.kind
                ),
            );
            Stop(Exit::Invalid)
        }
        CutError::State { offset, tick, kind } => {
            complain(
                input,
                format_args!("at byte {offset}: cannot trim: at tick {tick}: {kind}"),
            );
            Stop(Exit::Invalid)
        }
        other => refused(input, "trim", other),
    })?;
    write_output(output, &bytes)?;
    print_report(output, &report, json, |t| {
        row(
            t,
            "ticks",
            format_args!(
                "{} to {} ({} ticks; the file has {} to {})",
                report.first_tick,
                report.last_tick,
                report.ticks,
                report.input_ticks.from,
                report.input_ticks.to
            ),
        );
        row(
            t,
            "messages",
            format_args!(
                "{} copied, {} folded into the first tick's state or renumbered",
                report.messages_kept, report.messages_replaced
            ),
        );
        let kinds: Vec<String> = report
            .synthesized
            .iter()
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        row(
            t,
            "state written",
            if kinds.is_empty() {
                "nothing".to_string()
            } else {
                kinds.join(", ")
            },
        );
        row(t, "game uuid", &report.game_uuid);
        row(
            t,
            "original game",
            report.original_game_uuid.as_deref().unwrap_or("none"),
        );
        if let Some(cut) = &report.cut {
            row(
                t,
                "input breaks off",
                format_args!("at byte {} ({}); kept up to there", cut.offset, cut.reason),
            );
        }
        row(
            t,
            "finish",
            if report.finish_appended {
                "appended"
            } else {
                "the file's own"
            },
        );
    })
}

/// `demokit markers FILE`: the markers as `m1`, `m2`, ... (what `trim` takes) with their
/// time from the first tick; in JSON the library's
/// [`MarkerList`](demokit::twdemo::markers::MarkerList). Chunks that stop reading early
/// are named on stderr after the list, which covers the ticks before them (exit 1).
pub(crate) fn list_markers_of(file: &Path, data: &[u8], json: bool) -> Outcome {
    let list = list_markers(data).map_err(|e| read_failure(file, &e))?;
    let mut out = Output::new();
    if json {
        out.json_line(&list)?;
    } else {
        let mut t = String::new();
        row(&mut t, "version", list.version);
        row(&mut t, "ticks", tick_range(list.first_tick, list.last_tick));
        match list.stored_count {
            None => row(
                &mut t,
                "timeline markers",
                "none (version 3 has no marker block)",
            ),
            Some(count) => {
                row(&mut t, "timeline markers", list.markers.len());
                // The player clamps the count to 0..=64.
                if i64::from(count) != list.markers.len() as i64 {
                    row(
                        &mut t,
                        "stored count",
                        format_args!("{count} (read as {})", list.markers.len()),
                    );
                }
            }
        }
        for (i, &tick) in list.markers.iter().enumerate() {
            let at = match list.first_tick {
                Some(first) => format!(
                    " ({} s)",
                    seconds((tick as i64 - first as i64) as f32 / SERVER_TICK_SPEED as f32)
                ),
                None => String::new(),
            };
            row(
                &mut t,
                &format!("m{}", i + 1),
                format_args!("tick {tick}{at}"),
            );
        }
        write!(out, "{t}")?;
    }
    out.flush()?;
    match &list.cut {
        None => Ok(()),
        Some(cut) => {
            complain(
                file,
                format_args!(
                    "at byte {}: {}; the ticks listed end there (`demokit repair` finishes \
                     a cut-off recording)",
                    cut.offset, cut.reason
                ),
            );
            Err(Stop(Exit::Invalid))
        }
    }
}

/// `demokit markers IN --add TICK... --remove TICK... (-o OUT | --in-place)`: the demo
/// with only its marker block changed, written atomically; nothing is written when the
/// library refuses (exit 1).
pub(crate) fn markers_file(
    input: &Path,
    output: &Destination,
    data: &[u8],
    add: &[i32],
    remove: &[i32],
    json: bool,
) -> Outcome {
    let (bytes, report) = edit_markers(data, add, remove).map_err(|e| match e {
        MarkersError::Read(e) => read_failure(input, &e),
        other => refused(input, "change the timeline markers", other),
    })?;
    write_output(output, &bytes)?;
    print_report(output, &report, json, |t| {
        if !report.changed {
            row(t, "unchanged", "the demo already had these markers");
        }
        row(t, "timeline markers", tick_list(&report.after));
        row(t, "added", tick_list(&report.added));
        row(t, "removed", tick_list(&report.removed));
    })
}

/// `demokit dump --snapshots`: the full snapshot at every tick, items sorted by type and id;
/// in JSON the library's [`ReplayedTick`](demokit::twdemo::replay::ReplayedTick) (see its
/// docs for the fields).
pub(crate) fn dump_snapshots(file: &Path, data: &[u8], json: bool) -> Outcome {
    let demo = DemoSlice::parse(data).map_err(|e| read_failure(file, &e))?;
    let mut replay = SnapshotReplay::new(&demo);
    let mut out = Output::new();
    let mut sorted = SnapshotBuf::new();
    while let Some(tick) = replay.next() {
        let mut tick = match tick {
            Ok(tick) => tick,
            Err(e) => {
                out.flush()?;
                complain(file, format_args!("at byte {}: {e}", e.offset()));
                return Err(Stop(Exit::Invalid));
            }
        };
        if let Some(snapshot) = tick.snapshot {
            sorted.copy_from(snapshot);
            sorted.sort_by_key();
            tick.snapshot = Some(sorted.as_snapshot());
        }
        if json {
            out.json_line(&tick)?;
            continue;
        }
        let mut text = format!(
            "tick {}{} at byte {}: ",
            tick.tick,
            if tick.keyframe { " (keyframe)" } else { "" },
            tick.offset
        );
        match &tick.snapshot {
            None => text.push_str("no snapshot yet\n"),
            Some(snapshot) => {
                let _ = writeln!(text, "{} items, {} messages", snapshot.len(), tick.messages);
                for item in snapshot.items() {
                    let _ = write!(text, "  {:>5}:{:<5}", item.type_id, item.id);
                    if let Some(uuid) = snapshot.extended_type_uuid(item.type_id) {
                        let _ = write!(text, " ({uuid})");
                    }
                    for v in item.data {
                        let _ = write!(text, " {v}");
                    }
                    text.push('\n');
                }
            }
        }
        write!(out, "{text}")?;
    }
    warn_skipped(file, replay.skipped());
    out.flush()
}

/// `scrub --chat`: which chat to drop.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum ChatArg {
    /// Every chat message and whisper.
    All,
    /// Whispers only.
    Whispers,
    /// Team chat only.
    Team,
}

/// The scrub command line, beside its input and output.
#[derive(Debug)]
pub(crate) struct ScrubRequest<'a> {
    pub(crate) names: bool,
    pub(crate) key_file: Option<&'a Path>,
    pub(crate) mapping: Option<&'a Path>,
    pub(crate) credentials: bool,
    pub(crate) drop_reasons: bool,
    pub(crate) clear_header: &'a [String],
    pub(crate) chat: Option<ChatArg>,
    pub(crate) all: bool,
    pub(crate) force: bool,
}

/// The key of `--key-file`: its bytes, without a final newline (so that `echo KEY > FILE`
/// and a file written without one give the same pseudonyms).
fn read_key(path: &Path) -> Result<Vec<u8>, Stop> {
    let mut key = std::fs::read(path).map_err(|e| {
        complain(path, format_args!("cannot read the key file: {e}"));
        Stop(super::Exit::Io)
    })?;
    if key.ends_with(b"\n") {
        key.pop();
        if key.ends_with(b"\r") {
            key.pop();
        }
    }
    if key.is_empty() {
        complain(path, "the key file is empty");
        return Err(Stop(super::Exit::Usage));
    }
    Ok(key)
}

/// `demokit scrub IN OUT ...`: teehistorian files and Teeworlds/DDNet demos (Source demos
/// are refused: not supported yet).
pub(crate) fn scrub_file(
    input: &Path,
    output: &Destination,
    request: &ScrubRequest<'_>,
    json: bool,
) -> Outcome {
    use demokit::teehistorian::scrub::{ChatFilter, Pseudonyms, ScrubOptions, scrub};
    let mapping = request
        .mapping
        .map(|path| super::destination::side_file(input, output, path, request.force))
        .transpose()?;
    let key = request.key_file.map(read_key).transpose()?;
    let mut options = if request.all {
        ScrubOptions::all(key.clone())
    } else {
        ScrubOptions::default()
    };
    if request.names || key.is_some() {
        options.names = Some(Pseudonyms { key });
    }
    options.credentials |= request.credentials;
    options.drop_reasons |= request.drop_reasons;
    for k in request.clear_header {
        if !options.clear_header.contains(k) {
            options.clear_header.push(k.clone());
        }
    }
    if let Some(chat) = request.chat {
        options.chat = Some(match chat {
            ChatArg::All => ChatFilter::All,
            ChatArg::Whispers => ChatFilter::Whispers,
            ChatArg::Team => ChatFilter::Team,
        });
    }
    if options == ScrubOptions::default() {
        complain(
            input,
            "nothing to scrub: give --all, or --names, --credentials, --drop-reasons, \
             --clear-header or --chat",
        );
        return Err(Stop(super::Exit::Usage));
    }
    let (format, data) = super::input::load_supported(input)?;
    if format == demokit::detect::Format::TwDemo {
        return scrub_demo(
            input,
            output,
            mapping.as_ref(),
            request,
            options,
            &data,
            json,
        );
    }
    if format != demokit::detect::Format::Teehistorian {
        complain(
            input,
            format_args!(
                "scrub is not supported yet for this format ({}); only teehistorian files \
                 and Teeworlds/DDNet demos can be scrubbed",
                format.name()
            ),
        );
        return Err(Stop(super::Exit::Invalid));
    }
    let mut bytes = Vec::with_capacity(data.len());
    let report = scrub(&data, &options, &mut bytes).map_err(|e| match e.offset() {
        Some(offset) => {
            complain(input, format_args!("at byte {offset}: cannot scrub: {e}"));
            Stop(super::Exit::Invalid)
        }
        None => {
            complain(input, format_args!("cannot scrub: {e}"));
            Stop(super::Exit::Usage)
        }
    })?;
    write_output(output, &bytes)?;
    if let Some(mapping) = &mapping {
        write_mapping(mapping, &report.mapping)?;
    }
    print_report(output, &report, json, |t| {
        if !report.changed() {
            row(t, "unchanged", "nothing to scrub was found");
        }
        row(t, "messages", report.messages);
        row(t, "kept as stored", report.messages_kept);
        row(t, "names", report.names_rewritten);
        row(t, "clans", report.clans_rewritten);
        row(t, "accounts", report.accounts_rewritten);
        row(t, "texts", report.texts_rewritten);
        row(t, "drop reasons", report.reasons_cleared);
        for (kind, n) in &report.dropped {
            row(t, "dropped", format_args!("{n} {kind}"));
        }
        if !report.header_cleared.is_empty() {
            row(t, "header cleared", report.header_cleared.join(", "));
        }
        row(
            t,
            "pseudonyms",
            report.mapping.names.len() + report.mapping.clans.len() + report.mapping.accounts.len(),
        );
    })
}

/// Writes a scrub's name mapping (original -> pseudonym) as pretty JSON to `mapping`.
fn write_mapping(mapping: &Destination, map: &impl serde::Serialize) -> Outcome {
    let mut text = serde_json::to_vec_pretty(map).map_err(|e| {
        complain(mapping.path(), e);
        Stop(super::Exit::Io)
    })?;
    text.push(b'\n');
    write_output(mapping, &text)
}

/// `demokit scrub` on a Teeworlds/DDNet demo: names and chat (`--all` means `--names --chat
/// all`); `--credentials`, `--drop-reasons` and `--clear-header` mean nothing for a demo and
/// are refused (exit 2) before anything is written.
fn scrub_demo(
    input: &Path,
    output: &Destination,
    mapping: Option<&Destination>,
    request: &ScrubRequest<'_>,
    options: demokit::teehistorian::scrub::ScrubOptions,
    data: &[u8],
    json: bool,
) -> Outcome {
    use demokit::twdemo::scrub::{ScrubError, ScrubOptions, scrub};
    let mut given = Vec::new();
    if request.credentials {
        given.push("--credentials");
    }
    if request.drop_reasons {
        given.push("--drop-reasons");
    }
    if !request.clear_header.is_empty() {
        given.push("--clear-header");
    }
    if !given.is_empty() {
        complain(
            input,
            format_args!(
                "{} mean(s) nothing for a demo (it has no console commands, drop reasons or \
                 JSON header); a demo takes --names, --key-file, --chat and --all",
                given.join(", ")
            ),
        );
        return Err(Stop(super::Exit::Usage));
    }
    let options = ScrubOptions {
        names: options.names,
        chat: options.chat,
        ..ScrubOptions::default()
    };
    let (bytes, report) = scrub(data, &options).map_err(|e| match (&e, e.offset()) {
        (ScrubError::Options(_), _) | (_, None) => {
            complain(input, format_args!("cannot scrub: {e}"));
            Stop(super::Exit::Usage)
        }
        (_, Some(offset)) => {
            complain(input, format_args!("at byte {offset}: cannot scrub: {e}"));
            Stop(super::Exit::Invalid)
        }
    })?;
    write_output(output, &bytes)?;
    if let Some(mapping) = mapping {
        write_mapping(mapping, &report.mapping)?;
    }
    print_report(output, &report, json, |t| {
        if !report.changed() {
            row(t, "unchanged", "nothing to scrub was found");
        }
        row(t, "chunks", report.chunks);
        row(t, "kept as stored", report.chunks_kept);
        row(t, "keyframes edited", report.snapshots_rewritten);
        row(t, "deltas edited", report.deltas_rewritten);
        row(t, "messages edited", report.messages_rewritten);
        row(t, "names", report.names_rewritten);
        row(t, "clans", report.clans_rewritten);
        row(t, "texts", report.texts_rewritten);
        for (kind, n) in &report.dropped {
            row(t, "dropped", format_args!("{n} {kind}"));
        }
        row(
            t,
            "pseudonyms",
            report.mapping.names.len() + report.mapping.clans.len(),
        );
    })
}
