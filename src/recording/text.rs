//! The reports as people read them: aligned `key value` rows, one fact a row, the same
//! words the JSON forms use. Every front end that prints text prints these, so the tool's
//! text and a library user's `println!("{report}")` agree.

use super::{RepairReport, RewriteStats, Summary};
use crate::source::summary::Summary as SourceSummary;
use crate::source::{CommandTable, ProfileOrigin};
use crate::teehistorian::Summary as TeehistorianSummary;
use crate::twdemo::Summary as DemoSummary;
use crate::twdemo::edit::convert::{BlockChange, ConvertReport};
use crate::twdemo::edit::markers::MarkersReport;
use std::fmt::{self, Display, Formatter};

/// Writes one `key value` row, the values aligned in one column.
pub(crate) fn row(f: &mut Formatter<'_>, key: &str, value: impl Display) -> fmt::Result {
    writeln!(f, "{key:<17} {value}")
}

/// `first to last`, or `none`.
pub(crate) fn tick_range(first: Option<i32>, last: Option<i32>) -> String {
    match (first, last) {
        (Some(first), Some(last)) => format!("{first} to {last}"),
        _ => "none".into(),
    }
}

/// Seconds for people: rounded to the millisecond, without trailing zeros ("1.725 s" for
/// the `f32` 1.7249999 a header holds as 115 ticks of 0.015 s). JSON keeps the exact value.
pub(crate) fn seconds(value: f32) -> String {
    trimmed(format!("{value:.3}"))
}

/// A tick interval for people: to the microsecond, with the tick rate it makes
/// ("0.016667 s, 60 ticks/s").
pub(crate) fn interval(value: f32) -> String {
    let rate = if value > 0.0 {
        format!(
            ", {} ticks/s",
            trimmed(format!("{:.2}", 1.0 / f64::from(value)))
        )
    } else {
        String::new()
    };
    format!("{} s{rate}", trimmed(format!("{value:.6}")))
}

/// A decimal without trailing zeros after its point (and without the point if nothing
/// follows it); "-0" becomes "0".
fn trimmed(mut text: String) -> String {
    if text.contains('.') {
        let keep = text.trim_end_matches('0').trim_end_matches('.').len();
        text.truncate(keep);
    }
    if text == "-0" {
        text.remove(0);
    }
    text
}

/// Ticks as `n (t1, t2, ...)`, or `none`.
pub(crate) fn tick_list(ticks: &[i32]) -> String {
    if ticks.is_empty() {
        return "none".into();
    }
    let list: Vec<String> = ticks.iter().map(i32::to_string).collect();
    format!("{} ({})", ticks.len(), list.join(", "))
}

/// `n` and `noun`, plural unless `n` is 1: "1 keyframe", "20 deltas".
pub(crate) fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

impl Display for Summary {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Summary::TwDemo(s) => demo_summary(f, s),
            Summary::Teehistorian(s) => teehistorian_summary(f, s),
            Summary::Source(s) => source_summary(f, s),
            Summary::Map(m) => {
                row(f, "format", "Teeworlds/DDNet map (datafile)")?;
                row(f, "size", format_args!("{} bytes", m.size))?;
                row(f, "sha256", &m.sha256)?;
                map_facts(f, m)
            }
        }
    }
}

/// A demo's summary, then its embedded map's facts.
fn demo_summary(f: &mut Formatter<'_>, s: &DemoSummary) -> fmt::Result {
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
        ("start time", s.start_time.clone()),
        ("markers", tick_list(&s.markers)),
        (
            "map offset",
            format!("{} (chunks at {})", s.map_offset, s.chunks_offset),
        ),
        ("ticks", tick_range(s.first_tick, s.last_tick)),
        (
            "tick markers",
            format!(
                "{} ({})",
                c.tick_markers,
                counted(c.keyframes as usize, "keyframe")
            ),
        ),
        ("snapshots", c.snapshots.to_string()),
        ("deltas", c.deltas.to_string()),
        ("messages", c.messages.to_string()),
        ("unknown chunks", c.unknown.to_string()),
        ("payload bytes", format!("{} (stored)", s.payload_bytes)),
    ];
    for (key, value) in rows {
        row(f, key, value)?;
    }
    demo_map(f, s)
}

/// The embedded map's own facts (from its datafile).
fn demo_map(f: &mut Formatter<'_>, s: &DemoSummary) -> fmt::Result {
    if let Some(e) = &s.map_error {
        return row(
            f,
            "map file",
            format_args!("not a datafile: at byte {}: {}", e.offset, e.message),
        );
    }
    match &s.map {
        Some(m) => map_facts(f, m),
        None => Ok(()),
    }
}

/// A map's facts (from its datafile), as rows.
fn map_facts(f: &mut Formatter<'_>, m: &crate::datafile::MapFacts) -> fmt::Result {
    row(
        f,
        "map file",
        format_args!(
            "datafile v{}, {} items ({} types), {} data blocks, crc {}",
            m.datafile_version, m.items, m.item_types, m.data_blocks, m.crc32
        ),
    )?;
    let version = m.map_version.map_or("none".to_string(), |v| v.to_string());
    row(f, "map version", version)?;
    if let Some(info) = &m.info {
        for (key, value) in [
            ("map author", &info.author),
            ("map release", &info.version),
            ("map credits", &info.credits),
            ("map license", &info.license),
        ] {
            if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
                row(f, key, v)?;
            }
        }
    }
    let game = m.game_layer.map_or("no game layer".to_string(), |g| {
        format!("game layer {}x{}", g.width, g.height)
    });
    row(
        f,
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
    )?;
    match &m.load_error {
        None => row(f, "map loads", "yes (DDNet's map checks pass)"),
        Some(e) => row(
            f,
            "map loads",
            format_args!("no: at map byte {}: {}", e.offset, e.message),
        ),
    }
}

/// A teehistorian file's summary, then its messages counted by kind.
fn teehistorian_summary(f: &mut Formatter<'_>, s: &TeehistorianSummary) -> fmt::Result {
    let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    let version = match &s.version_minor {
        Some(minor) => format!("{} (minor {minor})", s.version),
        None => s.version.clone(),
    };
    let rows: [(&str, String); 11] = [
        ("format", s.format.to_string()),
        ("version", version),
        ("game uuid", or_none(&s.game_uuid)),
        ("server version", or_none(&s.server_version)),
        ("map name", or_none(&s.map_name)),
        ("start time", or_none(&s.start_time)),
        ("header", format!("{} bytes", s.header_len)),
        ("ticks", tick_range(s.first_tick, s.last_tick)),
        (
            "finished",
            if s.finished {
                "yes (FINISH)"
            } else {
                "no (the server did not finish it; a repair appends FINISH)"
            }
            .to_string(),
        ),
        ("trailing bytes", s.trailing_bytes.to_string()),
        (
            "messages",
            format!(
                "{} ({} with non-canonical ints)",
                s.messages, s.non_canonical_messages
            ),
        ),
    ];
    for (key, value) in rows {
        row(f, key, value)?;
    }
    let kind_width = s.counts.keys().map(String::len).max().unwrap_or(0);
    let count_width = s.counts.values().map(|n| n.to_string().len()).max();
    for (kind, n) in &s.counts {
        writeln!(
            f,
            "  {kind:<kind_width$}  {n:>w$}",
            w = count_width.unwrap_or(0)
        )?;
    }
    Ok(())
}

/// A Source demo's summary, then its frames counted by command.
fn source_summary(f: &mut Formatter<'_>, s: &SourceSummary) -> fmt::Result {
    let or_none = |v: Option<String>| v.unwrap_or_else(|| "none".into());
    let rows: [(&str, String); 14] = [
        ("format", s.format.to_string()),
        (
            "protocol",
            format!("demo {}, network {}", s.demo_protocol, s.network_protocol),
        ),
        ("server", s.server.clone()),
        ("client", s.client.clone()),
        ("map", s.map_name.clone()),
        ("game dir", s.game_dir.clone()),
        ("playback time", format!("{} s", seconds(s.playback_time))),
        ("ticks", s.ticks.to_string()),
        ("frames", s.frames.to_string()),
        ("signon length", format!("{} bytes", s.signon_length)),
        (
            "profile",
            format!(
                "{} view split{}, {}slot byte, {} (from the {})",
                s.view_splits,
                if s.view_splits == 1 { "" } else { "s" },
                if s.slot_byte { "" } else { "no " },
                command_table(s.command_table),
                match s.profile_origin {
                    ProfileOrigin::Header => "header",
                    ProfileOrigin::Detected => "first frames",
                    ProfileOrigin::Guessed => "defaults: a guess",
                    ProfileOrigin::Given => "caller",
                },
            ),
        ),
        ("frames read", s.total_frames.to_string()),
        (
            "stop",
            match (s.stop_offset, &s.stop_tail) {
                (Some(offset), Some(tail)) => format!(
                    "at byte {offset}, tick {}, tail {tail} ({} bytes)",
                    or_none(s.stop_tick.map(|t| t.to_string())),
                    s.stop_tail_len.unwrap_or(0)
                ),
                _ => "none".into(),
            },
        ),
        ("payload bytes", s.payload_bytes.to_string()),
    ];
    for (key, value) in rows {
        row(f, key, value)?;
    }
    let width = s.counts.keys().map(|k| k.len()).max().unwrap_or(0);
    for (command, n) in &s.counts {
        writeln!(f, "  {command:<width$}  {n}")?;
    }
    Ok(())
}

/// The command numbers above 7 a table gives, e.g. "commands 8 = customdata, 9 =
/// stringtables" (1 to 7 are the same in every table).
fn command_table(table: CommandTable) -> String {
    let extra: Vec<String> = (8..=u8::MAX)
        .filter_map(|n| table.command(n).map(|c| format!("{n} = {}", c.name())))
        .collect();
    if extra.is_empty() {
        "commands 1 to 7 only".into()
    } else {
        format!("commands {}", extra.join(", "))
    }
}

impl Display for RepairReport {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            RepairReport::TwDemo(report) => {
                if !report.changed() {
                    row(f, "unchanged", "the demo was already complete")?;
                }
                if let Some(cut) = &report.break_off {
                    row(
                        f,
                        "cut at",
                        format_args!("byte {} ({})", cut.offset, cut.reason),
                    )?;
                }
                row(f, "bytes dropped", report.bytes_dropped)?;
                row(
                    f,
                    "chunks kept",
                    format_args!(
                        "{} ({} tick markers, {} keyframes)",
                        report.chunks_kept, report.tick_markers_kept, report.keyframes_kept
                    ),
                )?;
                row(
                    f,
                    "length",
                    format_args!("{} -> {} s", report.old_length, report.new_length),
                )?;
                if !report.markers_dropped.is_empty() {
                    row(f, "markers dropped", tick_list(&report.markers_dropped))?;
                }
                Ok(())
            }
            RepairReport::Teehistorian(report) => {
                if !report.changed() {
                    row(f, "unchanged", "the file was already finished")?;
                }
                if let Some(cut) = &report.break_off {
                    row(
                        f,
                        "cut at",
                        format_args!("byte {} ({})", cut.offset, cut.reason),
                    )?;
                }
                row(f, "bytes dropped", report.bytes_dropped)?;
                row(f, "messages kept", report.messages_kept)?;
                if let Some(tick) = report.last_tick {
                    row(f, "last tick", tick)?;
                }
                row(
                    f,
                    "finish",
                    if report.finish_appended {
                        "appended"
                    } else {
                        "already there"
                    },
                )
            }
            RepairReport::Source(report) => source_repair(f, report),
        }
    }
}

/// A Source demo's repair: each header field changed, what was kept and dropped, and where
/// the tick interval came from.
fn source_repair(
    f: &mut Formatter<'_>,
    report: &crate::source::repair::RepairReport,
) -> fmt::Result {
    use crate::source::repair::IntervalSource;
    if report.is_unchanged() {
        row(
            f,
            "unchanged",
            "the file was already complete and consistent",
        )?;
    }
    for change in &report.changes {
        // The time as people read it; the report (and its JSON) keep the exact value.
        let time = |v: &str| v.parse().map_or_else(|_| v.to_string(), seconds);
        let (old, new) = match change.field {
            "playback_time" => (time(&change.old), time(&change.new)),
            _ => (change.old.clone(), change.new.clone()),
        };
        row(f, change.field, format_args!("{old} -> {new}"))?;
    }
    row(f, "frames kept", report.frames_kept)?;
    if report.bytes_dropped > 0 {
        row(
            f,
            "bytes dropped",
            format_args!("{} (a partial frame at the end)", report.bytes_dropped),
        )?;
    }
    if report.stop_appended {
        row(f, "stop appended", "yes")?;
    }
    row(
        f,
        "tick interval",
        format_args!(
            "{} ({})",
            interval(report.interval),
            match report.interval_source {
                IntervalSource::Given => "given",
                IntervalSource::GameDir => "the game's",
                IntervalSource::HeaderTime => "the header's time over its ticks",
                IntervalSource::Guessed => "a guess: the engine's default",
            }
        ),
    )?;
    if let Some(e) = &report.read_error {
        row(f, "read stopped", e)?;
    }
    Ok(())
}

impl Display for RewriteStats {
    /// What the rewrite did to the records, in one phrase.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            RewriteStats::TwDemo(s) => write!(
                f,
                "{} tick markers, {} data chunks re-encoded, {} kept stored, {} chunk headers \
                 kept as stored",
                s.tick_markers, s.reencoded, s.kept_stored, s.kept_raw_headers
            ),
            RewriteStats::Teehistorian(s) => write!(
                f,
                "{} messages re-encoded, {} copied as stored (non-canonical ints), header JSON \
                 kept as stored",
                s.reencoded, s.copied
            ),
            RewriteStats::Source(s) => {
                write!(f, "{} frames laid out again, header kept", s.frames)
            }
        }
    }
}

/// A block's fate in a conversion, as its JSON name says it (with spaces).
fn block_change(change: BlockChange) -> &'static str {
    match change {
        BlockChange::Absent => "absent",
        BlockChange::Kept => "kept",
        BlockChange::Added => "added",
        BlockChange::Dropped => "dropped",
    }
}

impl Display for ConvertReport {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        row(
            f,
            "version",
            format_args!("{} -> {}", self.from_version, self.to_version),
        )?;
        row(f, "markers", block_change(self.markers))?;
        if !self.markers_dropped.is_empty() {
            row(f, "markers dropped", tick_list(&self.markers_dropped))?;
        }
        row(f, "map sha256", block_change(self.sha256))?;
        row(
            f,
            "tick markers",
            format_args!(
                "{} ({} re-encoded)",
                self.tick_markers, self.tick_markers_reencoded
            ),
        )?;
        row(
            f,
            "data chunks",
            format_args!("{} (copied)", self.data_chunks),
        )?;
        row(
            f,
            "bytes",
            format_args!("{} -> {}", self.input_len, self.output_len),
        )
    }
}

impl Display for MarkersReport {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if !self.changed {
            row(f, "unchanged", "the demo already had these markers")?;
        }
        row(f, "timeline markers", tick_list(&self.after))?;
        row(f, "added", tick_list(&self.added))?;
        row(f, "removed", tick_list(&self.removed))
    }
}

impl Display for super::TrimReport {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            super::TrimReport::TwDemo(report) => demo_trim(f, report),
            super::TrimReport::Teehistorian(report) => teehistorian_trim(f, report),
            super::TrimReport::Source(report) => {
                row(
                    f,
                    "ticks",
                    format_args!(
                        "{} to {} (the output's 0 to {})",
                        report.from,
                        report.to,
                        report.to - report.from
                    ),
                )?;
                row(f, "frames kept", report.frames_kept)?;
                row(f, "frames dropped", report.frames_dropped)?;
                row(
                    f,
                    "state at the cut",
                    format_args!(
                        "{} packets: {} entities, {} baselines, {} string-table entries",
                        report.packets_written,
                        report.entities,
                        report.baselines,
                        report.table_entries
                    ),
                )?;
                if report.tables_not_carried > 0 {
                    row(
                        f,
                        "not carried",
                        format_args!(
                            "{} dictionary-encoded string-table updates before the cut",
                            report.tables_not_carried
                        ),
                    )?;
                }
                Ok(())
            }
        }
    }
}

/// A demo's trim: the ticks kept, the snapshots written and the Huffman rule used.
fn demo_trim(f: &mut Formatter<'_>, report: &crate::twdemo::edit::trim::TrimReport) -> fmt::Result {
    use crate::twdemo::edit::trim::RuleSource;
    row(
        f,
        "ticks",
        format_args!(
            "{} to {} ({} ticks)",
            report.first_tick, report.last_tick, report.ticks
        ),
    )?;
    row(
        f,
        "snapshots",
        format_args!(
            "{} ({}, {} of them to keep the item order; {}; {} unchanged)",
            report.snapshots,
            counted(report.keyframes, "keyframe"),
            report.order_keyframes,
            counted(report.deltas, "delta"),
            counted(report.unchanged_ticks, "tick"),
        ),
    )?;
    row(f, "messages", report.messages)?;
    row(f, "markers", tick_list(&report.markers))?;
    let source = match report.rule_source {
        RuleSource::Given => "given".to_string(),
        RuleSource::Detected { offset } => format!("as the chunk at byte {offset}"),
        RuleSource::Fallback => {
            "no chunk tells the rules apart; the usual one for the version".to_string()
        }
    };
    row(
        f,
        "huffman rule",
        format_args!("{} ({source})", huffman_rule(report.huffman_rule)),
    )
}

/// A Huffman length rule as its JSON name says it (with spaces).
fn huffman_rule(rule: crate::codec::huffman::LengthRule) -> &'static str {
    use crate::codec::huffman::LengthRule;
    match rule {
        LengthRule::TrailingByte => "trailing byte",
        LengthRule::Tight => "tight",
    }
}

/// A teehistorian file's trim: the ticks kept, the messages copied and the state written.
fn teehistorian_trim(
    f: &mut Formatter<'_>,
    report: &crate::teehistorian::trim::TrimReport,
) -> fmt::Result {
    row(
        f,
        "ticks",
        format_args!(
            "{} to {} ({} ticks; the file has {} to {})",
            report.first_tick,
            report.last_tick,
            report.ticks,
            report.input_ticks.from,
            report.input_ticks.to
        ),
    )?;
    row(
        f,
        "messages",
        format_args!(
            "{} copied, {} folded into the first tick's state or renumbered",
            report.messages_kept, report.messages_replaced
        ),
    )?;
    let kinds: Vec<String> = report
        .synthesized
        .iter()
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    row(
        f,
        "state written",
        if kinds.is_empty() {
            "nothing".to_string()
        } else {
            kinds.join(", ")
        },
    )?;
    row(f, "game uuid", &report.game_uuid)?;
    row(
        f,
        "original game",
        report.original_game_uuid.as_deref().unwrap_or("none"),
    )?;
    if let Some(cut) = &report.break_off {
        row(
            f,
            "input breaks off",
            format_args!("at byte {} ({}); kept up to there", cut.offset, cut.reason),
        )?;
    }
    row(
        f,
        "finish",
        if report.finish_appended {
            "appended"
        } else {
            "the file's own"
        },
    )
}

impl Display for crate::twdemo::edit::markers::MarkerList {
    /// The markers as `m1`, `m2`, ... (what a trim takes) with their time from the first
    /// tick.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        row(f, "version", self.version)?;
        row(f, "ticks", tick_range(self.first_tick, self.last_tick))?;
        match self.stored_count {
            None => row(
                f,
                "timeline markers",
                "none (version 3 has no marker block)",
            )?,
            Some(count) => {
                row(f, "timeline markers", self.markers.len())?;
                // The player clamps the count to 0..=64.
                if i64::from(count) != self.markers.len() as i64 {
                    row(
                        f,
                        "stored count",
                        format_args!("{count} (read as {})", self.markers.len()),
                    )?;
                }
            }
        }
        for (i, &tick) in self.markers.iter().enumerate() {
            let at = match self.first_tick {
                Some(first) => format!(
                    " ({} s)",
                    seconds(
                        (tick as i64 - first as i64) as f32 / crate::time::SERVER_TICK_SPEED as f32
                    )
                ),
                None => String::new(),
            };
            row(f, &format!("m{}", i + 1), format_args!("tick {tick}{at}"))?;
        }
        Ok(())
    }
}

impl Display for super::ScrubReport {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            super::ScrubReport::TwDemo(report) => {
                if !report.changed() {
                    row(f, "unchanged", "nothing to scrub was found")?;
                }
                row(f, "chunks", report.chunks)?;
                row(f, "kept as stored", report.chunks_kept)?;
                row(f, "keyframes edited", report.snapshots_rewritten)?;
                row(f, "deltas edited", report.deltas_rewritten)?;
                row(f, "messages edited", report.messages_rewritten)?;
                row(f, "names", report.names_rewritten)?;
                row(f, "clans", report.clans_rewritten)?;
                row(f, "texts", report.texts_rewritten)?;
                for (kind, n) in &report.dropped {
                    row(f, "dropped", format_args!("{n} {kind}"))?;
                }
                row(f, "pseudonyms", report.mapping.len())
            }
            super::ScrubReport::Teehistorian(report) => {
                if !report.changed() {
                    row(f, "unchanged", "nothing to scrub was found")?;
                }
                row(f, "messages", report.messages)?;
                row(f, "kept as stored", report.messages_kept)?;
                row(f, "names", report.names_rewritten)?;
                row(f, "clans", report.clans_rewritten)?;
                row(f, "accounts", report.accounts_rewritten)?;
                row(f, "texts", report.texts_rewritten)?;
                row(f, "drop reasons", report.reasons_cleared)?;
                for (kind, n) in &report.dropped {
                    row(f, "dropped", format_args!("{n} {kind}"))?;
                }
                if !report.header_cleared.is_empty() {
                    row(f, "header cleared", report.header_cleared.join(", "))?;
                }
                row(f, "pseudonyms", report.mapping.len())
            }
            super::ScrubReport::Source(report) => {
                if !report.changed() {
                    row(f, "unchanged", "nothing to scrub was found")?;
                }
                row(f, "frames", report.frames)?;
                row(f, "frames edited", report.frames_rewritten)?;
                row(f, "players", report.players_rewritten)?;
                row(f, "events", report.events_rewritten)?;
                row(f, "texts", report.texts_rewritten)?;
                for (kind, n) in &report.dropped {
                    row(f, "dropped", format_args!("{n} {kind}"))?;
                }
                if !report.header_fields.is_empty() {
                    row(f, "header changed", report.header_fields.join(", "))?;
                }
                row(f, "pseudonyms", report.mapping.len())
            }
        }
    }
}

/// A demo's chat line exactly as DDNet's `demo_extract_chat` prints it, without the
/// newline: `[time] prefix: ...`, the time as `str_time` writes whole seconds in its
/// `HOURS` format (`mm:ss`, and `hh:mm:ss` from an hour on).
impl Display for crate::twdemo::game::chat::DemoChatLine {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use crate::twdemo::game::chat::ChatKind;
        let s = self.seconds.max(0);
        if s >= 3600 {
            write!(f, "[{:02}:{:02}:{:02}] ", s / 3600, s % 3600 / 60, s % 60)?;
        } else {
            write!(f, "[{:02}:{:02}] ", s / 60, s % 60)?;
        }
        let prefix = self.kind.prefix();
        match (self.kind, self.channel) {
            (ChatKind::Broadcast, _) => write!(f, "{prefix}: {}", self.text),
            _ if self.client_id < 0 => write!(f, "{prefix}: *** {}", self.text),
            (_, 2) => write!(f, "{prefix}: -> {}: {}", self.name, self.text),
            (_, 3) => write!(f, "{prefix}: <- {}: {}", self.name, self.text),
            _ => write!(f, "{prefix}: {}: {}", self.name, self.text),
        }
    }
}
