//! `demokit`: the command-line front end.
//!
//! A thin layer over the library: it opens every input through the library's one entry
//! point, [`demokit::recording::Recording`], asks it for the operation and prints what comes
//! back (JSON from the library's serde types, text from their `Display`). It holds no format
//! logic of its own and never matches on the format.
//!
//! This file holds the command line (clap) and the dispatch to the modules:
//!
//! * [`batch`]: `info` and `validate` over several files and directories, read on all
//!   cores and reported in sorted path order, with a progress bar when stderr is a
//!   terminal.
//! * [`info`] and [`validate`]: those two commands on one file.
//! * [`game`]: the game-layer commands (`chat`, `players`, `events`, `dump --game-records`).
//! * [`edit`]: `dump` and the editing commands (`rewrite`, `convert`, `repair`, `trim`,
//!   `markers`, `extract-map`, `scrub`, `dump --snapshots`).
//! * [`output_dir`]: `--output-dir`, the editing commands over several files and
//!   directories, every output checked before any work and each file run in turn.
//! * [`render`]: `render`, a picture of a game (PNG or SVG) drawn by the library.
//! * [`input`]: opening an input through the library; [`output`]: stdout, stderr
//!   messages and JSON lines; [`destination`]: every file a command writes, checked
//!   against the input before any work and written atomically with [`demokit::output`].
//!
//! Every error goes to stderr as `demokit: FILE: at byte N: message` (or
//! `demokit: FILE: message` where no offset applies, such as a file that cannot be opened),
//! and the exit status says what kind of failure it was (see [`LONG_ABOUT`]).

#![forbid(unsafe_code)]
// No panics outside tests: errors are returned, and the few invariants that rule one out
// are proven where they are allowed (clippy.toml lets tests use these).
#![cfg_attr(
    not(test),
    deny(
        clippy::expect_used,
        clippy::unwrap_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod batch;
mod destination;
mod edit;
mod export;
mod game;
mod info;
mod input;
mod output;
mod output_dir;
mod render;
mod report;
mod validate;

use batch::run_jobs;
use clap::{CommandFactory, Parser, Subcommand};
use demokit::time::{RangeBound, TickRange};
use destination::{ChangeOutputArgs, EditOutputArgs, NamedOutputArgs, OutputArgs, Target};
use output_dir::Naming;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `chat`, `players` and `events` keep: the game model's selection
/// (`demokit::model::Selection`), checked against each recording.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct Select {
    /// Only these kinds of event, comma-separated (join, leave, name, team, kill, death,
    /// finish, team_finish, vote_start); `events` only.
    #[arg(long, value_delimiter = ',', value_name = "KIND,...")]
    kind: Vec<String>,
    /// The ticks.
    #[command(flatten)]
    ticks: Ticks,
    /// Only these players, by client id or name, comma-separated: their chat, their
    /// stints, the events they did or suffered.
    #[arg(long, value_delimiter = ',', value_name = "ID|NAME,...")]
    players: Vec<String>,
}

/// `--from`/`--to`: a range of ticks, both ends kept, written as `trim` takes it.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct Ticks {
    /// From this tick on: TICK, SECONDSs or (demos) mMARKER, as `trim` takes it.
    #[arg(long, allow_hyphen_values = true, value_name = "TICK|SECONDSs|mN")]
    from: Option<RangeBound>,
    /// Up to this tick (kept): TICK, SECONDSs or (demos) mMARKER.
    #[arg(long, allow_hyphen_values = true, value_name = "TICK|SECONDSs|mN")]
    to: Option<RangeBound>,
}

impl Ticks {
    /// The ticks of `recording` the options select (`None`: all), checked against the
    /// recording's own: a range outside them fails, naming them.
    fn of(
        &self,
        file: &Path,
        recording: &demokit::recording::Recording,
    ) -> Outcome<Option<TickRange>> {
        if self.from.is_none() && self.to.is_none() {
            return Ok(None);
        }
        recording
            .select(&[], &[], self.from, self.to)
            .map(|selected| selected.ticks)
            .map_err(|e| input::failure(file, &e))
    }
}

impl Select {
    /// The selection checked against `recording` (its players' names resolved): an
    /// [`Error::Argument`](demokit::recording::Error) that lists what exists when it
    /// selects nothing.
    fn resolve(
        &self,
        recording: &demokit::recording::Recording,
    ) -> Result<demokit::model::Selected, demokit::recording::Error> {
        recording.select(&self.kind, &self.players, self.ticks.from, self.ticks.to)
    }

    /// The selection as its options say it (`--kind kill --from 30s`), `None` when it
    /// selects everything: what `export` records in each `files` row.
    fn described(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.kind.is_empty() {
            parts.push(format!("--kind {}", self.kind.join(",")));
        }
        if let Some(from) = self.ticks.from {
            parts.push(format!("--from {from}"));
        }
        if let Some(to) = self.ticks.to {
            parts.push(format!("--to {to}"));
        }
        if !self.players.is_empty() {
            parts.push(format!("--players {}", self.players.join(",")));
        }
        (!parts.is_empty()).then(|| parts.join(" "))
    }
}

/// The text `demokit --help` prints after the usage, documenting the exit codes.
const LONG_ABOUT: &str = "\
Inspects, checks and rewrites game recordings byte for byte.

The format is detected from the file's magic bytes. Teeworlds/DDNet demos (TWDEMO), DDNet
teehistorian files and Source engine demos (HL2DEMO: TF2, HL2, Portal 1 and 2, Left 4 Dead
1 and 2, CS:GO) are supported; GoldSrc (HLDEMO) and Source 2 (PBDEMS2) demos are different
formats and are refused.

`info`, `validate`, `chat`, `players`, `events` and `dump` take several files and directories.
Directories are searched recursively for recordings of the supported formats by their magic
bytes; any other file found there is passed over quietly and counted as skipped (`--json`
lists it with the reason), unless its name ends like a recording's (.demo, .teehistorian,
.dem): then it fails. `dump` goes through the files one after the other, each under a
`==> FILE <==` line. The files are read in parallel on all cores and reported in sorted path
order (with --json: one JSON object per line, each with a \"file\" field, and \"file_hex\"
with the name's bytes when it is not UTF-8; a file that cannot be read at all gets an
\"error\": {offset, message}). A progress bar counting the files is drawn when stderr is a
terminal. A closing note on stderr counts the files, how many were ok, partial (read up to
a break), failed and skipped, and names those not read whole; --quiet keeps only that note
and the exit status on stderr.

A FILE or INPUT of - is standard input (a file named - is ./-); an OUTPUT of - is
standard output (refused when that is a terminal), and the command's report then goes to
stderr.

The commands that write a file (rewrite, repair, convert, trim, scrub, extract-map, and
markers with --add or --remove) never destroy their input: an OUTPUT that is the input, under any
spelling or through a hard or symbolic link, is refused (exit 2). An existing OUTPUT is
refused too (exit 2) unless --force (-f) is given. repair, convert and scrub also take --in-place
instead of OUTPUT to replace the input with the result, and so does markers, which names
its OUTPUT with -o. The result is written to a temporary file beside OUTPUT, synced to disk
and renamed over it: a failure leaves no partial file, and any file already there stays as
it was.

rewrite, repair, scrub, convert, trim and extract-map also take `--output-dir DIR
FILE|DIR...` instead of INPUT and OUTPUT: each recording named or found writes the file of
its name (or path under the directory named) in DIR, every output checked before any work.

Errors go to stderr as `demokit: FILE: at byte N: message`.

Exit codes (one rule for every command):
  0  every input was read whole (for validate: accepted) and every output written
  1  some input was not read whole: cut short, broken, no recording, of a format demokit
     does not read, or rejected by validate, whether named or found in a directory (what
     could be read is still shown or written, and the error says where)
  2  usage error: a bad command line (an empty trim range included), or an output refused
     (the input itself, an existing file without --force, not a regular file)
  3  I/O error: a file could not be opened, read or written
With several files, the highest code any file earned (skipped files count as 0).";

/// The usage lines of an editing command: its one-file form, `<INPUT>` then `$output`, and
/// its form over several files, which clap's own line (`[INPUT] [OUTPUT]`, as neither is
/// needed with `--output-dir`) would hide.
macro_rules! usage {
    ($command:literal, $output:literal) => {
        concat!(
            "demokit ",
            $command,
            " [OPTIONS] <INPUT> ",
            $output,
            "\n       demokit ",
            $command,
            " [OPTIONS] --output-dir <DIR> <FILE|DIR>..."
        )
    };
}

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(name = "demokit", version, about = "Inspects, checks and rewrites game recordings", long_about = LONG_ABOUT)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
    /// No messages about single files and no progress bar on stderr: only a batch's
    /// closing count of files ok, partial, failed and skipped, and the exit status.
    #[arg(short, long, global = true)]
    quiet: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Prints the header fields and chunk or message counts of recordings.
    ///
    /// If the chunk or message stream breaks off, the summary of everything before the break
    /// is still printed (in JSON with an "error" field) and the exit status is non-zero.
    Info {
        /// Recordings, or directories to search for them.
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Print one JSON object per file (JSON Lines) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Prints every chunk or message with its offset, tick, kind and decoded contents.
    ///
    /// One line per demo chunk or teehistorian message. A demo chunk payload that fails to decode is reported on its own line and the dump
    /// goes on (the exit status is then 1); a read error ends the dump, with the error on
    /// stderr and a non-zero exit status.
    Dump {
        /// Recordings, or directories to search for them (each file's output after a
        /// `==> FILE <==` line; with --json, every line has `file`).
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Print JSON Lines (one object per chunk or message) instead of text.
        #[arg(long)]
        json: bool,
        /// Teeworlds demos: print the full snapshot at each tick instead (every item by
        /// type and id, deltas applied), one JSON object per tick with --json.
        #[arg(long, conflicts_with = "game_records")]
        snapshots: bool,
        /// Print every snapshot item and message typed by name instead (Teeworlds demos:
        /// tick by tick, in the protocol the header names; teehistorian: the game events,
        /// each client message typed; Source: entity updates and messages), one JSON
        /// object per record with --json: the library's `Recording::game_records`.
        /// (`--objects` is its former name.)
        #[arg(long, alias = "objects")]
        game_records: bool,
        /// Only the records of these ticks (a demo's data chunks before its first tick
        /// marker have none and are left out too).
        #[command(flatten)]
        ticks: Ticks,
    },
    /// Writes recordings as a Parquet dataset: one directory per table (files, chat,
    /// players, ticks, inputs, frames), for DuckDB, Spark, pandas or Polars.
    ///
    /// Every file gets a row in `files`, with its error if it could not be read to the
    /// end (the other tables keep what came before). Schemas: docs/export.md.
    Export {
        /// Recordings, or directories to search for them.
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// The dataset's directory (made if missing; each run adds new part files).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// Hive-style partition directories under each table's:
        /// `format=<format>/date=<YYYY-MM-DD>/` (the date the recording started, as it
        /// says, else the file's modification date in UTC), or `none` for the flat layout.
        #[arg(long, value_enum, value_name = "KEYS", default_value_t = export::PartitionArg::FormatDate)]
        partition_by: export::PartitionArg,
        /// What to keep of the game model's tables (`ticks`, `events`, `chat`,
        /// `players`); the format's own tables are then left out, and each file's `files`
        /// row says the selection.
        #[command(flatten)]
        select: Select,
    },
    /// Prints the chat lines of recordings.
    ///
    /// Demos: the lines DDNet's demo_extract_chat prints (chat, whispers, the server's
    /// lines and broadcasts), 0.7 demos read as DDNet's client reads them. Teehistorian
    /// files: DDNet does not record chat, only what the server says through its console
    /// (`say`).
    Chat {
        /// Recordings, or directories to search for them.
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Print JSON Lines (one object per line said) instead of text.
        #[arg(long)]
        json: bool,
        /// What to keep.
        #[command(flatten)]
        select: Select,
    },
    /// Prints the players of recordings: one line per player and client id, with the ticks
    /// it was there and its last name, clan, country and team.
    Players {
        /// Recordings, or directories to search for them.
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Print JSON Lines (one object per player) instead of text.
        #[arg(long)]
        json: bool,
        /// What to keep.
        #[command(flatten)]
        select: Select,
    },
    /// Prints what happened in recordings, tick by tick.
    ///
    /// Demos: chat, kills, race finishes, broadcasts, votes, emoticons, joins and leaves
    /// (players appearing and disappearing), deaths, spawns, explosions and hammer hits.
    /// Teehistorian files: joins and drops, names and teams, every client message typed,
    /// console commands, finishes and DDNet's other records.
    Events {
        /// Recordings, or directories to search for them.
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Print JSON Lines (one object per event) instead of text.
        #[arg(long)]
        json: bool,
        /// What to keep.
        #[command(flatten)]
        select: Select,
    },
    /// Decodes every chunk or message and encodes it again into a new file.
    ///
    /// Statistics go to stderr. If the input is cut off, what precedes the cut is written
    /// and the exit status is non-zero.
    #[command(override_usage = usage!("rewrite", "<OUTPUT>"))]
    Rewrite {
        /// The recording to read.
        #[arg(required_unless_present = "output_dir", conflicts_with = "output_dir")]
        input: Option<PathBuf>,
        /// Where to write.
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Repairs a recording whose recorder never finished.
    ///
    /// Teeworlds demo: keeps every complete chunk, drops a partial one at the end, and sets
    /// the header length and timeline markers as the recorder's finish would have.
    ///
    /// Teehistorian: keeps every complete message (a message cut short, bytes that do not
    /// read as a message, or bytes after FINISH are dropped) and appends FINISH; the result
    /// reads, validates and rewrites byte for byte.
    ///
    /// Source demo: keeps every complete frame, drops a partial one at the end, appends a
    /// stop command if there is none, and recomputes the header's ticks, frames, playback
    /// time and signon length from the frames. The tick interval comes from the game
    /// directory; for an unknown game, from the header's own time and ticks when they are
    /// set, else 0.015 s, and the report says it guessed.
    ///
    /// What changed is printed (JSON with --json).
    #[command(override_usage = usage!("repair", "(<OUTPUT> | --in-place)"))]
    Repair {
        /// The recording to repair.
        #[arg(required_unless_present = "output_dir", conflicts_with = "output_dir")]
        input: Option<PathBuf>,
        /// Where to write.
        #[command(flatten)]
        output: EditOutputArgs,
        /// Source demos: seconds per tick, overriding the game directory's.
        #[arg(long, value_name = "SECONDS")]
        tick_interval: Option<f32>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Scrubs a recording before it is shared: player names and clans become pseudonyms,
    /// and credentials, chat, drop reasons and header fields are taken out; everything else
    /// is kept byte for byte, at the same ticks.
    ///
    /// Teehistorian files, Teeworlds/DDNet demos and Source demos (CS:GO's too). In a
    /// demo the names and clans of ClientInfo items and 0.7 Sv_ClientInfo messages become
    /// pseudonyms (names in chat, broadcasts, the MOTD and votes too), --chat drops Sv_Chat
    /// chunks, and --all means --names --chat all. In a Source demo the players' userinfo
    /// entries get pseudonyms and lose their Steam ids and spray CRCs, names are replaced
    /// in events, chat and console text, voice data goes, --chat drops chat lines and the
    /// recorder's say commands, --server the server's name, address, host name, passwords
    /// and connect/rcon commands, and --all means --names --chat all --server.
    /// --credentials, --drop-reasons and --clear-header mean nothing for a demo of either
    /// kind and are refused (exit 2). Names become
    /// `player-<8 hex>` and `clan-<6 hex>` from HMAC-SHA256 with the key of --key-file (the
    /// same name gets the same pseudonym in every file scrubbed with that key), or
    /// `player-1`, `player-2`, ... per file without one (so over several files, with
    /// --output-dir, only a key keeps one player's pseudonym). A file that does not read to its end
    /// is refused: run `demokit repair` first. What changed is printed (JSON with --json).
    /// At least one of --names, --credentials, --drop-reasons, --clear-header, --chat or
    /// --all is needed.
    #[command(override_usage = usage!("scrub", "(<OUTPUT> | --in-place)"))]
    Scrub {
        /// The recording to scrub.
        #[arg(required_unless_present = "output_dir", conflicts_with = "output_dir")]
        input: Option<PathBuf>,
        /// Where to write.
        #[command(flatten)]
        output: EditOutputArgs,
        /// Replace player names and clans with pseudonyms.
        #[arg(long)]
        names: bool,
        /// The pseudonyms' secret key: the file's bytes (a final newline dropped). Implies
        /// --names. Keep it private: with it, a name's pseudonym can be checked.
        #[arg(long, value_name = "FILE")]
        key_file: Option<PathBuf>,
        /// Write the pseudonyms given (original -> pseudonym) to this JSON file. Keep it
        /// private: it undoes the scrubbing. Refused if it exists, without --force. With
        /// --output-dir: one JSON object, each input's mapping under the input's name as
        /// messages show it, written once every file is done.
        #[arg(long, value_name = "OUT.json")]
        mapping: Option<PathBuf>,
        /// Drop console commands carrying passwords or keys (auth_add, sv_rcon_password,
        /// login, ...) and replace account names.
        #[arg(long)]
        credentials: bool,
        /// Empty the reasons of drops.
        #[arg(long)]
        drop_reasons: bool,
        /// Take out what identifies the server: its name, port and address, the free text
        /// of its version, and every config setting that is not a plain number (MOTD,
        /// welcome text, ...); a demo's MOTD messages; a Source demo's server name and
        /// address, host name, passwords and connect/rcon commands.
        #[arg(long)]
        server: bool,
        /// Empty this header key (repeatable), e.g. game_uuid, or take one setting out
        /// with config.NAME or tuning.NAME. A key no header holds is refused.
        #[arg(long, value_name = "KEY")]
        clear_header: Vec<String>,
        /// Drop chat messages: all, whispers or team.
        #[arg(long, value_enum, value_name = "WHICH")]
        chat: Option<edit::ChatArg>,
        /// Everything: --names --credentials --drop-reasons --server --chat all (for a
        /// demo: --names --server --chat all).
        #[arg(long)]
        all: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Converts a Teeworlds demo to another format version (3 to 6).
    ///
    /// Data chunks are copied untouched; tick markers are re-encoded as that version's
    /// recorder writes them; the timeline-marker block (from version 4) and the map SHA-256
    /// block (version 6, computed from the map) are added or dropped.
    #[command(override_usage = usage!("convert", "(<OUTPUT> | --in-place)"))]
    Convert {
        /// The demo to read.
        #[arg(required_unless_present = "output_dir", conflicts_with = "output_dir")]
        input: Option<PathBuf>,
        /// Where to write.
        #[command(flatten)]
        output: EditOutputArgs,
        /// The version to write.
        #[arg(long, value_parser = clap::value_parser!(u8).range(3..=6))]
        version: u8,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Cuts a tick range out of a Teeworlds demo, a teehistorian file or a Source demo, at
    /// any tick.
    ///
    /// Demo: the output starts with a keyframe rebuilt from the snapshot at the first tick;
    /// later ticks are recorded from their rebuilt snapshots as DDNet's recorder would
    /// (deltas re-encoded, a keyframe after more than 250 ticks, and one wherever a delta
    /// could not keep the snapshot's item order). Original tick numbers, messages and
    /// timeline markers in the range, the map and the header are kept; the length is
    /// recomputed.
    ///
    /// Teehistorian: the output's first tick holds the state a reader needs there (JOIN,
    /// with its JOINVER record, and the name, team, version and login records of every
    /// connected client, PLAYER_NEW for every character, INPUT_NEW for every input); the
    /// messages of the later ticks are copied as stored, with their tick numbers, and
    /// FINISH ends the file. The header is kept, with a new game_uuid and a "cut" key
    /// naming the range and the original game. A file that breaks off before the range is
    /// refused (exit 1); one that breaks off inside it is cut up to the break.
    ///
    /// Source demo: the signon frames are kept, then packets that
    /// restore the state at the first packet in range (string tables, instance baselines,
    /// a full entity update), then the frames in range, their ticks counted from it; the
    /// header's ticks, frames and playback time are recomputed. Its ends are ticks only.
    ///
    /// Each end is a tick (1500) or a time (30s, 12.5s; 50 ticks a second): for a demo from
    /// its first tick, for a teehistorian file from tick 0, the start of the game. Demos
    /// also take a timeline marker (m1 is the first); for a teehistorian file, which has
    /// none, a marker is a usage error (exit 2). Without --from the range starts at the
    /// first tick (teehistorian: tick 0), without --to it runs to the last. A range that
    /// ends before it starts is a usage error (exit 2).
    #[command(
        group = clap::ArgGroup::new("range").args(["from", "to"]).multiple(true).required(true),
        override_usage = usage!("trim", "<OUTPUT>"),
    )]
    Trim {
        /// The demo or teehistorian file to read.
        #[arg(required_unless_present = "output_dir", conflicts_with = "output_dir")]
        input: Option<PathBuf>,
        /// Where to write.
        #[command(flatten)]
        output: OutputArgs,
        /// First tick to keep: TICK, SECONDSs or (demos) mMARKER.
        #[arg(long, allow_hyphen_values = true, value_name = "TICK|SECONDSs|mN")]
        from: Option<RangeBound>,
        /// Last tick to keep: TICK, SECONDSs or (demos) mMARKER (default: the last tick).
        #[arg(long, allow_hyphen_values = true, value_name = "TICK|SECONDSs|mN")]
        to: Option<RangeBound>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Lists, adds or removes the timeline markers of a Teeworlds demo (versions 4 to 6).
    ///
    /// Without --add or --remove, prints the markers (m1, m2, ... as `trim` names them) with
    /// their time from the first tick, and the demo's tick range. With them, writes the demo
    /// with only its timeline-marker block changed, to -o OUTPUT or over the input
    /// (--in-place); the markers are written in ascending order. DDNet's recorder rules
    /// hold: at most 64 markers, each between the demo's first and last tick and at least
    /// 50 ticks (one second) after the one before. Anything else (a tick to remove that is
    /// no marker, one to add that is one already, a version-3 demo, which has no marker
    /// block) is refused with exit 1 and nothing is written.
    #[command(
        group = clap::ArgGroup::new("edits")
            .args(["add", "remove"])
            .multiple(true)
            .requires("destination"),
        group = clap::ArgGroup::new("destination")
            .args(["output", "in_place"])
            .requires("edits"),
    )]
    Markers {
        /// The demo.
        input: PathBuf,
        /// Where to mark, as trim's bounds: a tick (1500), seconds from the first tick
        /// (30s) or a marker (m2); several after one --add, comma-separated, or --add again.
        #[arg(
            long,
            num_args = 1..,
            value_delimiter = ',',
            allow_negative_numbers = true,
            value_name = "B"
        )]
        add: Vec<RangeBound>,
        /// Markers to take away, named as --add names them (m2: the second).
        #[arg(
            long,
            num_args = 1..,
            value_delimiter = ',',
            allow_negative_numbers = true,
            value_name = "B"
        )]
        remove: Vec<RangeBound>,
        /// Where to write the changed demo.
        #[command(flatten)]
        output: ChangeOutputArgs,
        /// Print the list or the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Writes the map embedded in a Teeworlds demo to a file.
    ///
    /// Its CRC-32 (and SHA-256, for a version-6 demo with the block) are checked against the
    /// header; the map is written either way, and a mismatch exits 1.
    #[command(override_usage = usage!("extract-map", "<OUTPUT>"))]
    ExtractMap {
        /// The demo to read.
        #[arg(required_unless_present = "output_dir", conflicts_with = "output_dir")]
        input: Option<PathBuf>,
        /// Where to write the map.
        #[command(flatten)]
        output: OutputArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Draws a picture of a game: the map, each player's path, and where they spawned,
    /// died, killed and finished.
    ///
    /// The map's physics tiles are coloured as DDNet's entities view colours them (solid,
    /// unhookable, death, freeze, start and finish, teleporters, speedups), from the demo's
    /// embedded map or, for a teehistorian file, the map file given with --map (which must
    /// be the one the file names: its SHA-256 or CRC-32 is checked). Each player's path has
    /// its own colour (64 colours; sides in reds and blues in two-sided games), named in
    /// the legend in any script; the title gives the map, the date and the length drawn.
    /// A Source demo holds no map geometry: its paths are drawn on the map's x/y plane
    /// (north up), over the map's floors (shaded by height) and walls when its BSP file is
    /// given (--map FILE.bsp, or found in --maps DIR), over its overview image when DIR
    /// has one (resource/overview/MAP.txt and .png), else over a grid, with their bounds;
    /// its SourceTV camera is no player. The picture takes the game's shape within
    /// --size. The image kind follows OUTPUT's extension (.png or .svg) unless --format is
    /// given; the file is written atomically.
    /// A teehistorian file without --map, a map that is not the recording's, a range or
    /// player the recording does not have are refused (exit 2).
    Render {
        /// The demo, teehistorian file or Source demo to draw.
        input: PathBuf,
        /// Where to write the picture.
        #[command(flatten)]
        output: NamedOutputArgs,
        /// The map file (.map): needed for a teehistorian file; for a demo it replaces the
        /// embedded map (its CRC-32 must match the header's). For a Source demo: the map's
        /// BSP file (.bsp).
        #[arg(long, value_name = "MAP", conflicts_with = "maps")]
        map: Option<PathBuf>,
        /// For a Source demo: a directory holding MAP.bsp or maps/MAP.bsp (MAP the demo's
        /// map name), and optionally resource/overview/MAP.txt with MAP.png beside it.
        #[arg(long, value_name = "DIR")]
        maps: Option<PathBuf>,
        /// First tick drawn: TICK, SECONDSs or (demos) mMARKER, as `trim` takes it
        /// (Source: TICK only).
        #[arg(long, allow_hyphen_values = true, value_name = "TICK|SECONDSs|mN")]
        from: Option<RangeBound>,
        /// Last tick drawn: TICK, SECONDSs or (demos) mMARKER (default: the last tick).
        #[arg(long, allow_hyphen_values = true, value_name = "TICK|SECONDSs|mN")]
        to: Option<RangeBound>,
        /// Draw only these players, by name (comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
        players: Vec<String>,
        /// Draw where the players were most (a heat map) instead of their paths.
        #[arg(long)]
        heatmap: bool,
        /// The box the picture fits in, in pixels, WIDTHxHEIGHT (each side 64 to 8192): the
        /// picture takes the game's shape, one side the box's.
        #[arg(long, value_name = "WxH", default_value = "1024x768", value_parser = render::parse_size)]
        size: (u32, u32),
        /// The image kind, when OUTPUT's extension does not say (e.g. for - , stdout).
        #[arg(long, value_enum)]
        format: Option<ImageKind>,
    },
    /// Writes a report page that plays a game in any browser, or an index of a directory.
    ///
    /// For a FILE: one self-contained HTML page (styles, script, map picture and data
    /// inside; it works offline and from a file:// URL and fetches nothing) with the
    /// header's facts, the players, the chat, a timeline of events and markers, and the
    /// map with the tees moving as the slider or the play button runs through the ticks.
    /// Positions are thinned (every player on the same ticks) to at most --max-positions,
    /// which keeps a page's positions at about 2 MB however long the recording.
    ///
    /// For a DIR: a page for every recording under it, in OUTPUT's name with `.pages`
    /// (`index.pages/` for `index.html`), and OUTPUT, an index that sorts by any column
    /// and filters as one types. Files are read in parallel; a second run reads only the
    /// files that changed since the first. Teehistorian files find their maps in --maps.
    /// Recordings that cannot be read get a row that says why, and exit 1.
    Report {
        /// The recording, or a directory to search for recordings.
        input: PathBuf,
        /// Where to write the page (or the index).
        #[command(flatten)]
        output: NamedOutputArgs,
        /// The map file (.map) for a teehistorian FILE; for a demo it replaces the
        /// embedded map (its checksum must match the header's).
        #[arg(long, value_name = "MAP", conflicts_with = "maps")]
        map: Option<PathBuf>,
        /// For a DIR: where teehistorian files find their maps, as NAME.map.
        #[arg(long, value_name = "DIR")]
        maps: Option<PathBuf>,
        /// First tick shown: TICK, SECONDSs or (demos) mMARKER, as `trim` takes it.
        #[arg(long, allow_hyphen_values = true, value_name = "TICK|SECONDSs|mN")]
        from: Option<RangeBound>,
        /// Last tick shown (default: the last tick).
        #[arg(long, allow_hyphen_values = true, value_name = "TICK|SECONDSs|mN")]
        to: Option<RangeBound>,
        /// Show only these players on the map, by name (comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
        players: Vec<String>,
        /// The box the map picture fits in, in pixels, WIDTHxHEIGHT (the picture takes the
        /// game's shape).
        #[arg(long, value_name = "WxH", default_value = "1024x768", value_parser = render::parse_size)]
        size: (u32, u32),
        /// At most this many positions (all players together) in a page.
        #[arg(long, value_name = "N", default_value_t = demokit::page::DEFAULT_MAX_SAMPLES)]
        max_positions: usize,
    },
    /// Checks recordings; exits 0 if every one passes.
    ///
    /// Each fatal problem is printed to stderr and makes the exit status non-zero; non-fatal
    /// problems are printed as warnings. A demo passes if DDNet's player would accept it. A
    /// Source demo passes if it reads to its stop command and its header agrees with its
    /// frames (signon length, frames, ticks, playback time). A teehistorian file passes if it
    /// reads to FINISH without error; fatal: an unreadable header or message, a missing
    /// FINISH (cut off), bytes after FINISH; a warning: messages holding ints in a
    /// non-canonical form (DDNet reads them, and a rewrite keeps them as stored).
    Validate {
        /// Recordings, or directories to search for them.
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Also print the report as JSON on stdout (one object per file).
        #[arg(long)]
        json: bool,
    },
    /// Prints a completion script for a shell, generated from these commands.
    ///
    /// E.g. `demokit completions bash > ~/.local/share/bash-completion/completions/demokit`,
    /// or `demokit completions zsh > "${fpath[1]}/_demokit"`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Prints the manual page (roff), generated from these commands.
    ///
    /// E.g. `demokit man > ~/.local/share/man/man1/demokit.1`, then `man demokit`.
    Man,
}

/// How the process ends; a later variant is the more serious.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Exit {
    /// Exit code 0 (also used to stop quietly when stdout is closed by the reader).
    Success = 0,
    /// Exit code 1: a format error, an unsupported format, or a rejected file.
    Invalid = 1,
    /// Exit code 2: a bad command line (clap exits with 2 itself for what it checks).
    Usage = 2,
    /// Exit code 3: a file or stream could not be opened, read or written.
    Io = 3,
}

/// A command stopped early; whatever needed saying has been said on stderr.
#[derive(Debug, Clone, Copy)]
struct Stop(Exit);

/// The result of a command or a step of one.
type Outcome<T = ()> = Result<T, Stop>;

/// Writes `bytes` to stdout (a closed pipe ends quietly).
fn print_bytes(bytes: &[u8]) -> Outcome {
    let mut out = output::Output::new();
    out.write_bytes(bytes)?;
    out.flush()
}

/// The image kinds `render --format` names.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ImageKind {
    /// PNG.
    Png,
    /// SVG.
    Svg,
}

/// Parses the command line, runs the command and turns its outcome into the exit status.
fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.quiet {
        output::set_quiet();
    }
    let outcome = match &cli.command {
        Command::Info { files, json } => {
            run_jobs(files, |job, batch| info::info_job(job, *json, batch))
        }
        Command::Dump {
            files,
            json,
            snapshots,
            game_records,
            ticks,
        } => batch::run_in_turn(
            files,
            |file, named| match (snapshots, game_records) {
                (true, _) => edit::dump_snapshots(file, *json, named, ticks),
                (_, true) => game::dump_game_records(file, *json, named, ticks),
                _ => edit::dump(file, *json, named, ticks),
            },
            *json,
        ),
        Command::Export {
            files,
            output,
            partition_by,
            select,
        } => export::export(files, output, (*partition_by).into(), select),
        Command::Chat {
            files,
            json,
            select,
        } => run_jobs(files, |job, batch| {
            game::listing_job(job, game::Listing::Chat, *json, select, batch)
        }),
        Command::Players {
            files,
            json,
            select,
        } => run_jobs(files, |job, batch| {
            game::listing_job(job, game::Listing::Players, *json, select, batch)
        }),
        Command::Events {
            files,
            json,
            select,
        } => run_jobs(files, |job, batch| {
            game::listing_job(job, game::Listing::Events, *json, select, batch)
        }),
        Command::Rewrite { input, output } => output.target(input.as_deref()).and_then(|target| {
            output_dir::edit(target, Naming::Same, false, |input, output, _| {
                edit::rewrite_file(input, output)
            })
        }),
        Command::Repair {
            input,
            output,
            tick_interval,
            json,
        } => output.target(input.as_deref()).and_then(|target| {
            if let Target::Dir(_) = target {
                // Once for every file, before any.
                edit::check_tick_interval(None, *tick_interval)?;
            }
            output_dir::edit(target, Naming::Same, *json, |input, output, named| {
                edit::repair_file(input, output, *tick_interval, *json, named)
            })
        }),
        Command::Scrub {
            input,
            output,
            names,
            key_file,
            mapping,
            credentials,
            drop_reasons,
            server,
            clear_header,
            chat,
            all,
            json,
        } => {
            let request = edit::ScrubRequest {
                names: *names,
                key_file: key_file.as_deref(),
                mapping: mapping.as_deref(),
                credentials: *credentials,
                drop_reasons: *drop_reasons,
                server: *server,
                clear_header,
                chat: *chat,
                all: *all,
                force: output.force(),
            };
            output
                .target(input.as_deref())
                .and_then(|target| match target {
                    Target::One(input, output) => edit::scrub_file(input, &output, &request, *json),
                    Target::Dir(dir) => edit::scrub_many(dir, &request, *json),
                })
        }
        Command::Convert {
            input,
            output,
            version,
            json,
        } => output.target(input.as_deref()).and_then(|target| {
            output_dir::edit(target, Naming::Same, *json, |input, output, named| {
                edit::convert_file(input, output, *version, *json, named)
            })
        }),
        Command::Trim {
            input,
            output,
            from,
            to,
            json,
        } => output.target(input.as_deref()).and_then(|target| {
            output_dir::edit(target, Naming::Same, *json, |input, output, named| {
                edit::trim_file(input, output, *from, *to, *json, named)
            })
        }),
        Command::Markers {
            input,
            add,
            remove,
            output,
            json,
        } => output.destination(input).and_then(|output| match &output {
            None => edit::list_markers_of(input, *json),
            Some(output) => edit::markers_file(input, output, add, remove, *json),
        }),
        Command::ExtractMap {
            input,
            output,
            json,
        } => output.target(input.as_deref()).and_then(|target| {
            output_dir::edit(target, Naming::Map, *json, |input, output, named| {
                edit::extract_map_file(input, output, *json, named)
            })
        }),
        Command::Render {
            input,
            output,
            map,
            maps,
            from,
            to,
            players,
            heatmap,
            size,
            format,
        } => {
            let mut options = demokit::render::RenderOptions::default();
            options.from = *from;
            options.to = *to;
            options.players = players.clone();
            options.heatmap = *heatmap;
            options.size = *size;
            let format = format.map(|f| match f {
                ImageKind::Png => demokit::render::ImageFormat::Png,
                ImageKind::Svg => demokit::render::ImageFormat::Svg,
            });
            render::render_file(
                input,
                output,
                map.as_deref(),
                maps.as_deref(),
                format,
                options,
            )
        }
        Command::Report {
            input,
            output,
            map,
            maps,
            from,
            to,
            players,
            size,
            max_positions,
        } => {
            let mut options = demokit::page::PageOptions::default();
            options.render.from = *from;
            options.render.to = *to;
            options.render.players = players.clone();
            options.render.size = *size;
            options.max_samples = *max_positions;
            if input.is_dir() {
                if map.is_some() {
                    output::complain(
                        input,
                        "--map names one recording's map: for a directory give --maps DIR",
                    );
                    return ExitCode::from(Exit::Usage as u8);
                }
                report::report_dir(input, output, maps.as_deref(), options)
            } else {
                report::report_file(input, output, map.as_deref(), options)
            }
        }
        Command::Validate { files, json } => {
            run_jobs(files, |job, _batch| validate::validate_job(job, *json))
        }
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "demokit", &mut script);
            print_bytes(&script)
        }
        Command::Man => {
            let mut page = Vec::new();
            // Into memory: rendering cannot fail.
            let _ = clap_mangen::Man::new(Cli::command()).render(&mut page);
            print_bytes(&page)
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Stop(exit)) => ExitCode::from(exit as u8),
    }
}
