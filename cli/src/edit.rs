//! The CLI's commands that write a file or list a recording's records: `dump`,
//! `rewrite`, `repair`, `trim`, `convert`, `markers`, `extract-map` and `scrub`. Each opens
//! the input through [`demokit::recording::Recording`], hands the operation to it and
//! prints the report it returns (JSON from its serde form, text from its `Display`).

use super::destination::{Destination, OutputDir, Sink, write_output, write_private};
use super::input::{failure, open_recording};
use super::output::{FileJson, Output, complain, row, say, shown_name, warn_skipped};
use super::output_dir::{self, Naming};
use super::{Exit, Outcome, Stop};
use demokit::datafile::MapFacts;
use demokit::recording::ExtractedMap;
use demokit::recording::{DumpRecord, Error, Recording, RepairOptions};
use demokit::scrub::Mapping;
use demokit::time::RangeBound;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::{Display, Write as _};
use std::path::Path;

/// Prints `report` as one JSON line (naming `named` first, for a run over several files),
/// or as its text: on stdout, or on stderr when the command's output file goes to stdout.
fn print_report<T: Serialize + Display>(
    output: &Destination,
    report: &T,
    json: bool,
    named: Option<&FileJson>,
) -> Outcome {
    let mut out = Output::for_report(output.is_stdout());
    if json {
        out.json_record(named, report)?;
    } else {
        write!(out, "{report}")?;
    }
    out.flush()
}

/// Opens `input` as a recording, for a command whose operation the library may refuse for
/// its format: the refusal names the command.
fn open_for(input: &Path) -> Outcome<Recording> {
    open_recording(input)
}

/// Reports an error of the library about `input` (an operation its format does not have
/// says which formats have it).
fn refused(input: &Path, error: Error) -> Stop {
    failure(input, &error)
}

/// [`refused`], naming the output when it was writing the output that failed (the result
/// streams into `sink`; the temporary file is removed and the output left as it was).
fn failed_writing(input: &Path, output: &Destination, sink: &Sink, error: Error) -> Stop {
    match error {
        Error::Io { source, .. } if error.is_write() => output.write_failed(sink, source),
        error => failure(input, &error),
    }
}

/// `demokit dump`: every stored record, in JSON each format's serde form.
pub(crate) fn dump(
    file: &Path,
    json: bool,
    named: Option<&FileJson>,
    ticks: &super::Ticks,
) -> Outcome {
    let recording = open_for(file)?;
    let range = ticks.of(file, &recording)?;
    let mut out = Output::new();
    if !json {
        writeln!(out, "{}", DumpRecord::header(recording.format()))?;
    }
    let mut written = Ok(());
    let end = recording.dump(|record| {
        if written.is_err() || range.is_some_and(|r| record.tick().is_none_or(|t| !r.contains(t))) {
            return;
        }
        written = if json {
            out.json_record(named, &record)
        } else {
            writeln!(out, "{record}")
        };
    });
    written?;
    out.flush()?;
    let end = end.map_err(|e| refused(file, e))?;
    if let Some(e) = &end.error {
        return Err(failure(file, e));
    }
    match end.undecodable {
        None => Ok(()),
        Some((count, offset, error)) => {
            let plural = if count == 1 { "" } else { "s" };
            complain(
                file,
                format_args!(
                    "at byte {offset}: {count} chunk payload{plural} could not be decoded; \
                     the first: {error}"
                ),
            );
            Err(Stop(Exit::Invalid))
        }
    }
}

/// `demokit rewrite`: the recording through its format's writer. On a read error, what
/// came before it is written too (when there is anything).
pub(crate) fn rewrite_file(input: &Path, output: &Destination) -> Outcome {
    let recording = open_for(input)?;
    let mut sink = output.sink()?;
    let report = recording
        .rewrite(&mut sink)
        .map_err(|e| failed_writing(input, output, &sink, e))?;
    // What came before a read error is kept (the writer may still hold it in its buffer).
    if report.error.is_none() || report.written > 0 {
        output.commit(sink)?;
    }
    super::output::to_stderr(&format!(
        "demokit: {} -> {}: {}{} bytes; {}\n",
        shown_name(input),
        output.name(),
        if report.error.is_some() {
            "stopped early, "
        } else {
            ""
        },
        report.written,
        report.stats,
    ));
    match &report.error {
        None => Ok(()),
        Some(e) => Err(failure(input, e)),
    }
}

/// `--tick-interval` must be a positive number of seconds (exit 2 otherwise): the
/// complaint names `file`, or no file for a run over several (checked once, before any).
pub(crate) fn check_tick_interval(file: Option<&Path>, tick_interval: Option<f32>) -> Outcome {
    match tick_interval {
        Some(interval) if !(interval.is_finite() && interval > 0.0) => {
            let message =
                format!("--tick-interval must be a positive number of seconds, not {interval}");
            match file {
                Some(file) => complain(file, message),
                None => say(message),
            }
            Err(Stop(Exit::Usage))
        }
        _ => Ok(()),
    }
}

/// `demokit repair`: every complete record kept, the end the recorder never wrote added.
pub(crate) fn repair_file(
    input: &Path,
    output: &Destination,
    tick_interval: Option<f32>,
    json: bool,
    named: Option<&FileJson>,
) -> Outcome {
    check_tick_interval(Some(input), tick_interval)?;
    let recording = open_for(input)?;
    let mut sink = output.sink()?;
    let options = RepairOptions::with_tick_interval(tick_interval);
    let report = recording
        .repair(&options, &mut sink)
        .map_err(|e| failed_writing(input, output, &sink, e))?;
    output.commit(sink)?;
    print_report(output, &report, json, named)
}

/// `demokit trim IN OUT [--from BOUND] [--to BOUND]`: the bounds resolved by the library
/// (a bound that does not fit the recording is a usage error).
pub(crate) fn trim_file(
    input: &Path,
    output: &Destination,
    from: Option<RangeBound>,
    to: Option<RangeBound>,
    json: bool,
    named: Option<&FileJson>,
) -> Outcome {
    let recording = open_for(input)?;
    let mut sink = output.sink()?;
    let report = recording
        .trim(from, to, &mut sink)
        .map_err(|e| failed_writing(input, output, &sink, e))?;
    output.commit(sink)?;
    print_report(output, &report, json, named)
}

/// `demokit convert IN OUT --version N`.
pub(crate) fn convert_file(
    input: &Path,
    output: &Destination,
    version: u8,
    json: bool,
    named: Option<&FileJson>,
) -> Outcome {
    let recording = open_for(input)?;
    let mut bytes = Vec::new();
    let report = recording
        .convert(version, &mut bytes)
        .map_err(|e| refused(input, e))?;
    write_output(output, &bytes)?;
    print_report(output, &report, json, named)
}

/// `demokit markers FILE`: the markers as `m1`, `m2`, ... (what `trim` takes); in JSON the
/// library's [`MarkerList`](demokit::twdemo::edit::markers::MarkerList). Chunks that stop
/// reading early are named on stderr after the list, which covers the ticks before them
/// (exit 1).
pub(crate) fn list_markers_of(file: &Path, json: bool) -> Outcome {
    let recording = open_for(file)?;
    let list = recording.markers().map_err(|e| refused(file, e))?;
    let mut out = Output::new();
    if json {
        out.json_line(&list)?;
    } else {
        write!(out, "{list}")?;
    }
    out.flush()?;
    match &list.break_off {
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

/// `demokit markers IN --add B... --remove B... (-o OUT | --in-place)`: the demo
/// with only its marker block changed, written atomically; nothing is written when the
/// library refuses (exit 1).
pub(crate) fn markers_file(
    input: &Path,
    output: &Destination,
    add: &[RangeBound],
    remove: &[RangeBound],
    json: bool,
) -> Outcome {
    let recording = open_for(input)?;
    let mut bytes = Vec::new();
    let report = recording
        .edit_markers(add, remove, &mut bytes)
        .map_err(|e| refused(input, e))?;
    write_output(output, &bytes)?;
    print_report(output, &report, json, None)
}

/// What `demokit extract-map --json` prints: the library's [`ExtractedMap`] (`name`,
/// `offset`, `crc32` and `sha256` as `{expected, actual}`), the map's size, whether it
/// matches, and its facts.
#[derive(Debug, Serialize)]
struct ExtractJson<'a> {
    /// The map and its checks.
    #[serde(flatten)]
    map: &'a ExtractedMap,
    /// Its size in bytes.
    size: usize,
    /// Whether it matches the header's checksums.
    matches: bool,
    /// Its datafile's facts, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    facts: Option<MapFacts>,
    /// Why it is not a datafile.
    #[serde(skip_serializing_if = "Option::is_none")]
    datafile_error: Option<String>,
}

impl Display for ExtractJson<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let map = self.map;
        let mut t = String::new();
        row(&mut t, "map", &map.name);
        row(
            &mut t,
            "size",
            format_args!("{} bytes at offset {}", map.bytes.len(), map.offset),
        );
        row(
            &mut t,
            "crc32",
            format_args!(
                "{:08x} (header {:08x})",
                map.crc32.actual, map.crc32.expected
            ),
        );
        if let Some(sha) = &map.sha256 {
            let (actual, expected) = (hex::encode(sha.actual), hex::encode(sha.expected));
            row(
                &mut t,
                "sha256",
                format_args!("{actual} (header {expected})"),
            );
        }
        if let Some(e) = &self.datafile_error {
            row(&mut t, "datafile", format_args!("not a datafile: {e}"));
        }
        if let Some(facts) = &self.facts {
            row(
                &mut t,
                "datafile",
                format_args!(
                    "v{}, {} items, {} data blocks",
                    facts.datafile_version, facts.items, facts.data_blocks
                ),
            );
            if let Some(author) = facts.info.as_ref().and_then(|i| i.author.as_ref()) {
                row(&mut t, "author", author);
            }
            if let Some(g) = facts.game_layer {
                row(
                    &mut t,
                    "game layer",
                    format_args!("{}x{}", g.width, g.height),
                );
            }
            match &facts.load_error {
                None => row(&mut t, "loads", "yes (DDNet's map checks pass)"),
                Some(e) => row(
                    &mut t,
                    "loads",
                    format_args!("no: at map byte {}: {}", e.offset, e.message),
                ),
            }
        }
        f.write_str(&t)
    }
}

/// `demokit extract-map IN OUT.map`: writes the embedded map; exits 1 (after writing it) if
/// it does not match the header's checksums.
pub(crate) fn extract_map_file(
    input: &Path,
    output: &Destination,
    json: bool,
    named: Option<&FileJson>,
) -> Outcome {
    let recording = open_for(input)?;
    let map = recording.extract_map().map_err(|e| refused(input, e))?;
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
    print_report(output, &summary, json, named)?;
    map.verify().map_err(|mismatch| {
        complain(
            input,
            format_args!("the embedded map does not match the header: {mismatch}"),
        );
        Stop(Exit::Invalid)
    })
}

/// `demokit dump --snapshots`: the full snapshot at every tick, items sorted by type and id;
/// in JSON the library's [`ReplayedTick`](demokit::twdemo::snapshot::replay::ReplayedTick)
/// (see its docs for the fields).
pub(crate) fn dump_snapshots(
    file: &Path,
    json: bool,
    named: Option<&FileJson>,
    ticks: &super::Ticks,
) -> Outcome {
    let recording = open_for(file)?;
    let range = ticks.of(file, &recording)?;
    let mut out = Output::new();
    let mut written = Ok(());
    let walked = recording.snapshots(|tick| {
        if written.is_err() || range.is_some_and(|r| !r.contains(tick.tick)) {
            return;
        }
        if json {
            written = out.json_record(named, &tick);
            return;
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
        written = out.write_str(&text);
    });
    written?;
    out.flush()?;
    let walk = walked.map_err(|e| refused(file, e))?;
    if let Some(e) = &walk.error {
        return Err(failure(file, e));
    }
    warn_skipped(file, walk.skipped);
    Ok(())
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
    pub(crate) server: bool,
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
        Stop(Exit::Io)
    })?;
    if key.ends_with(b"\n") {
        key.pop();
        if key.ends_with(b"\r") {
            key.pop();
        }
    }
    if key.is_empty() {
        complain(path, "the key file is empty");
        return Err(Stop(Exit::Usage));
    }
    // With the key, anyone can check which pseudonym a name got: say so when others may
    // read it (as ssh does of a private key), but go on: the file is the user's to guard.
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            complain(
                path,
                format_args!(
                    "warning: the key file can be read by others (mode {mode:o}); with it, \
                     anyone can tell whose a pseudonym is (chmod 600 it)"
                ),
            );
        }
    }
    Ok(key)
}

/// A scrub ready for any number of files: the command line, checked, and its key, read
/// once (so that a key file others can read is warned about once, and every file gets the
/// same pseudonym for the same name).
pub(crate) struct Scrub<'a> {
    /// What the command line asks.
    request: &'a ScrubRequest<'a>,
    /// The key of `--key-file`.
    key: Option<Vec<u8>>,
}

impl<'a> ScrubRequest<'a> {
    /// Reads the key and checks that something is asked (exit 2 otherwise); the complaint
    /// names `file`, or no file for a run over several.
    pub(crate) fn prepare(&'a self, file: Option<&Path>) -> Outcome<Scrub<'a>> {
        let key = self.key_file.map(read_key).transpose()?;
        let explicit = self.names
            || key.is_some()
            || self.credentials
            || self.drop_reasons
            || self.server
            || !self.clear_header.is_empty()
            || self.chat.is_some();
        if !self.all && !explicit {
            let message = "nothing to scrub: give --all, or --names, --credentials, \
                           --drop-reasons, --server, --clear-header or --chat";
            match file {
                Some(file) => complain(file, message),
                None => say(message),
            }
            return Err(Stop(Exit::Usage));
        }
        Ok(Scrub { request: self, key })
    }
}

/// `demokit scrub IN OUT ...`: what each option asks, on top of what `--all` means for the
/// recording's format (the library says: [`Recording::scrub_everything`]). Options the
/// format cannot carry are refused by the library (exit 2) before anything is written.
pub(crate) fn scrub_file(
    input: &Path,
    output: &Destination,
    request: &ScrubRequest<'_>,
    json: bool,
) -> Outcome {
    let mapping = request
        .mapping
        .map(|path| super::destination::side_file(input, output, path, request.force))
        .transpose()?;
    let scrub = request.prepare(Some(input))?;
    scrub
        .file(input, output, mapping.as_ref(), json, None)
        .map(drop)
}

/// `demokit scrub --output-dir DIR FILE|DIR...`: every recording found scrubbed as
/// [`scrub_file`] scrubs one. `--mapping` gets one JSON object, each input's mapping under
/// its name as messages show it, only for its owner to read, written before any output:
/// the mapping is the one file that can undo the pseudonyms, so no scrubbed file may
/// exist without it. A first pass scrubs every file into nothing to learn its mapping;
/// once the mapping is written (atomically), the second pass writes the outputs. A run
/// stopped before the mapping lands leaves no output; one stopped later leaves the
/// mapping of every file, some not written yet.
pub(crate) fn scrub_many(dir: OutputDir<'_>, request: &ScrubRequest<'_>, json: bool) -> Outcome {
    let scrub = request.prepare(None)?;
    let plan = output_dir::plan(dir, Naming::Same, request.mapping, json)?;
    let mut mappings = BTreeMap::new();
    if let Some(side) = plan.side() {
        for input in plan.inputs() {
            // A file that fails here fails again in its turn, which says why.
            if let Some(mapping) = scrub.mapping_of(input) {
                mappings.insert(shown_name(input), mapping);
            }
        }
        write_private(side, &mapping_json(side, &mappings)?)?;
    }
    output_dir::run(&plan, json, |input, output, named| {
        let mapping = scrub.file(input, output, None, json, named)?;
        if plan.side().is_some() && mappings.get(&shown_name(input)) != Some(&mapping) {
            // The scrub is deterministic: the same file gives the same mapping twice.
            complain(
                input,
                "its mapping differs from the one written first (was the file changed \
                 during the run?): run the scrub again",
            );
            return Err(Stop(Exit::Invalid));
        }
        Ok(())
    })
}

/// `mapping` as `--mapping` writes it: pretty JSON and a final newline.
fn mapping_json(side: &Destination, mapping: &impl Serialize) -> Outcome<Vec<u8>> {
    let mut text = serde_json::to_vec_pretty(mapping).map_err(|e| {
        complain(side.path(), e);
        Stop(Exit::Io)
    })?;
    text.push(b'\n');
    Ok(text)
}

impl Scrub<'_> {
    /// The options for `recording`: what each option asks, on top of what `--all` means
    /// for its format (the library says: [`Recording::scrub_everything`]).
    fn options(&self, recording: &Recording) -> demokit::scrub::ScrubOptions {
        use demokit::scrub::{ChatFilter, Pseudonyms, ScrubOptions};
        let request = self.request;
        let mut options = if request.all {
            recording.scrub_everything(self.key.clone())
        } else {
            ScrubOptions::default()
        };
        if request.names || self.key.is_some() {
            options.names = Some(Pseudonyms {
                key: self.key.clone(),
            });
        }
        options.credentials |= request.credentials;
        options.drop_reasons |= request.drop_reasons;
        options.server |= request.server;
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
        options
    }

    /// The mapping scrubbing `input` gives, the output thrown away; `None` when the file
    /// cannot be scrubbed (its turn says why).
    fn mapping_of(&self, input: &Path) -> Option<Mapping> {
        let recording = super::input::open(input).ok()?;
        let options = self.options(&recording);
        let report = recording.scrub(&options, &mut std::io::sink()).ok()?;
        Some(report.mapping().clone())
    }

    /// Scrubs `input` into `output` and prints the report (naming `named` on its JSON
    /// line); with `mapping`, writes the mapping there, both files landing or neither.
    /// Options the format cannot carry are refused by the library (exit 2) before anything
    /// is written. Returns the mapping, for a run over several files to gather.
    pub(crate) fn file(
        &self,
        input: &Path,
        output: &Destination,
        mapping: Option<&Destination>,
        json: bool,
        named: Option<&FileJson>,
    ) -> Outcome<Mapping> {
        let recording = open_for(input)?;
        let options = self.options(&recording);
        let mut sink = output.sink()?;
        let report = recording
            .scrub(&options, &mut sink)
            .map_err(|e| failed_writing(input, output, &sink, e))?;
        match mapping {
            // The mapping undoes the scrub: both files land or neither.
            Some(mapping) => {
                let text = mapping_json(mapping, report.mapping())?;
                output.commit_with_private_side(sink, mapping, &text)?;
            }
            None => output.commit(sink)?,
        }
        print_report(output, &report, json, named)?;
        Ok(report.mapping().clone())
    }
}
