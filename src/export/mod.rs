//! Tables: recordings as Arrow record batches and Parquet datasets, for analysts.
//!
//! Every file becomes rows of a few tables, each declared once (see [`Table`]): `files`
//! (one row per file, with its error if it could not be read to the end), `chat`,
//! `players` (one row per player stint), `ticks` (one row per tick per character or
//! player position), `inputs` (teehistorian: every input a client sent, as absolute
//! values) and `frames` (Source: the frame index). Every row starts with the file's
//! `path` (dictionary-encoded: a file's rows share one copy of it per batch), so tables join
//! on it. [`Exporter`] reads files into the tables; a
//! [`DatasetWriter`] writes their batches to Parquet, one directory per table, either
//! flat or in Hive-style partitions by format and date (`format=twdemo/date=2023-05-11/`,
//! see [`Partitioning`]; a file's [`Partition`] comes from the values of its `files`
//! row). The partition columns are only in the directory names, as Hive has them, not in
//! the Parquet files. A teehistorian file, the kind that grows to gigabytes, can be read
//! as a stream ([`Exporter::add_recording`] of a file opened with
//! [`Recording::open`](crate::recording::Recording::open), or [`Exporter::add_teehistorian`]
//! over any reader) and, for one long file, walked on a thread of its own
//! ([`Exporter::pipelined`]); the rows are the same.
//!
//! The entry point ([`crate::recording`]) chooses the format: the exporter is a
//! [`Visitor`] with a walk per format, and never tells formats
//! apart itself. What this layer leaves to others: reading the formats (the format
//! modules), walking directories and running in parallel (the CLI), and SQL (DuckDB,
//! Spark, ... read the Parquet files).
//!
//! The schemas are versioned by [`SCHEMA_VERSION`], written into each Parquet file's
//! metadata as `demokit.schema_version`; a change to a table's columns or their types raises it,
//! and [`DatasetWriter::exported`] refuses a dataset of another version.

mod partition;
mod table;
pub mod units;
mod writer;

/// The Arrow record batch the tables are handed on as.
pub use arrow_array::RecordBatch;
pub use partition::{NULL_PARTITION, Partition, Partitioning};
pub use writer::{
    COMMIT_JOURNAL, DatasetWriter, ExportError, ExportedFile, LOCK_FILE, MAX_OPEN_PARTS,
    MAX_ROW_GROUPS_PER_PART,
};

use crate::gamenet::names::weapon_name;
use crate::model::Sample;
use crate::recording::{Error, Recording, TeehistorianStream, Visitor};
use crate::source::SourceSlice;
use crate::teehistorian::game::EventLogger;
use crate::teehistorian::{
    EventKind, Header, TeehistorianReader, TeehistorianSlice, TickWalk, WalkSource,
};
use crate::twdemo::DemoSlice;
use crate::twdemo::game::{GameReplay, TickLogger};
use table::tables;

/// The version of the table schemas below.
pub const SCHEMA_VERSION: u32 = 6;

/// Rows collected per table before a batch is handed on: with the batch being written, most
/// of what a long file holds in memory.
pub const BATCH_ROWS: usize = 16 * 1024;

tables! {
    /// One row per file.
    Files "files", FileRow, FileColumns {
        /// The file's path as given.
        path: (runs str),
        /// `twdemo`, `teehistorian`, `source` or `unknown`.
        format: str,
        /// Size in bytes.
        bytes: u64,
        /// Last modification time in nanoseconds since the Unix epoch, when known: with
        /// `path` and `bytes`, what an incremental export compares to skip a file.
        modified_ns: (opt i64),
        /// Format version (teehistorian: the header's `version`).
        version: (opt str),
        /// Map name.
        map_name: (opt str),
        /// Teehistorian: the header's `game_uuid`.
        game_uuid: (opt str),
        /// Teehistorian: the header's `start_time`; demos: the header's timestamp.
        start_time: (opt str),
        /// Teehistorian: the server's version; Source: the server's name.
        server: (opt str),
        /// The first tick of play, as `info` says it (a file read in part: of what was
        /// read before its break).
        first_tick: (opt i32),
        /// The last tick of play, as `info` says it (a file read in part: of what was
        /// read before its break).
        last_tick: (opt i32),
        /// Records read: demo chunks, teehistorian messages or Source frames.
        records: u64,
        /// Teehistorian: whether the file ends with FINISH.
        finished: (opt bool),
        /// Why the file could not be read to the end, if it could not; the tables hold
        /// what came before.
        error: (opt str),
        /// Where that error is, in bytes from the start of the file.
        error_offset: (opt u64),
        /// The selection the file's rows were exported with (`demokit export --kind`,
        /// `--from`, `--to`, `--players`), as given; null when every row was.
        selection: (opt str),
    }

    /// One row per chat line (teehistorian: the console's `say`).
    Chat "chat", ChatRow, ChatColumns {
        /// The file.
        path: (runs str),
        /// The tick it was said at.
        tick: i32,
        /// Who said it, -1 the server.
        client_id: i32,
        /// The speaker's name then (empty if unknown).
        name: str,
        /// The channel as the protocol numbers it (see [`ChatLine`](crate::gamenet::summary::ChatLine)).
        channel: i32,
        /// The text.
        text: str,
    }

    /// One row per player stint: a client id from joining to leaving.
    Players "players", PlayerRow, PlayerColumns {
        /// The file.
        path: (runs str),
        /// Client id.
        client_id: i32,
        /// The last name it had.
        name: str,
        /// Clan.
        clan: str,
        /// ISO 3166-1 numeric country code, -1 none.
        country: i32,
        /// The country as DDNet's flag names it: ISO 3166-1 alpha-2 (`DE`), or a
        /// subdivision (`GB-SCT`); null for none.
        country_code: (opt str),
        /// The last team it was in, as the game numbers it; null for none (a player in a
        /// Teeworlds game without teams). See [`crate::model::team`].
        team: (opt i32),
        /// The team's name as the game names it: `spectators`, `red`, `blue`, DDNet's
        /// `team N`; Source: `Unassigned`, `Spectator`, TF2's `RED`/`BLU`, CS's
        /// `TERRORIST`/`CT`, ...
        team_name: (opt str),
        /// The tick it appeared at.
        first_tick: i32,
        /// The last tick it was there.
        last_tick: i32,
    }

    /// One row per game event: kills, deaths, race finishes, votes called, joins, leaves,
    /// name and team changes (chat is its own table).
    Events "events", EventRow, EventColumns {
        /// The file.
        path: (runs str),
        /// The tick it happened at.
        tick: i32,
        /// What happened: `join`, `leave`, `name`, `team`, `kill`, `death`, `finish`,
        /// `team_finish`, `vote_start`.
        kind: str,
        /// The player it is about (a kill's killer).
        client_id: (opt i32),
        /// That player's name then (empty if unknown).
        name: (dict str),
        /// A kill's victim.
        victim: (opt i32),
        /// The victim's name then.
        victim_name: (opt str),
        /// A kill's weapon as the protocol numbers it.
        weapon: (opt i32),
        /// Its name (`hammer` .. `ninja`; `world`, `self`, `game` for deaths by the map,
        /// self-kills and team changes).
        weapon_name: (opt str),
        /// The team of a team change or a team's finish (teehistorian: DDNet's race team).
        team: (opt i32),
        /// That team's name, as `players` names it.
        team_name: (opt str),
        /// A finish's time.
        time_ms: (opt i64),
        /// Where a death happened.
        x: (opt i32),
        /// Where a death happened.
        y: (opt i32),
        /// A leave's reason, a vote's subject and reason.
        text: (opt str),
    }

    /// One row per player per tick in play: each character of a demo, each player with a
    /// position of a teehistorian file, each player entity of a Source demo. Ticks the
    /// format did not store are filled forward (see [`crate::model`]).
    Ticks "ticks", TickRow, TickColumns {
        /// The file.
        path: (runs str),
        /// The tick.
        tick: i32,
        /// Client id.
        client_id: i32,
        /// The player's name at that tick (empty if unknown).
        name: (dict str),
        /// Position.
        x: i32,
        /// Position.
        y: i32,
        /// The tick the position is from: `tick`, but a demo's character is the physics
        /// state DDNet last sent, which can be older (see [`crate::model`]).
        position_tick: i32,
        /// Demos: velocity (in 1/256 units per tick).
        vel_x: (opt i32),
        /// Demos: velocity.
        vel_y: (opt i32),
        /// Demos: the weapon held.
        weapon: (opt i32),
        /// Demos: the weapon's name (`hammer`, `gun`, `shotgun`, `grenade`, `laser`,
        /// `ninja`).
        weapon_name: (opt str),
        /// Demos: health, where the protocol sends it.
        health: (opt i32),
        /// Demos: armor, where the protocol sends it.
        armor: (opt i32),
    }

    /// One row per input a client sent (teehistorian), as absolute values.
    Inputs "inputs", InputRow, InputColumns {
        /// The file.
        path: (runs str),
        /// The tick.
        tick: i32,
        /// Client id.
        client_id: i32,
        /// -1 left, 0 none, 1 right.
        direction: i32,
        /// Aim, relative to the character.
        target_x: i32,
        /// Aim, relative to the character.
        target_y: i32,
        /// Jump held.
        jump: i32,
        /// Fire presses counter.
        fire: i32,
        /// Hook held.
        hook: i32,
        /// Player flags (chatting, scoreboard, ...).
        player_flags: i32,
        /// Weapon wanted.
        wanted_weapon: i32,
        /// Next-weapon presses counter.
        next_weapon: i32,
        /// Previous-weapon presses counter.
        prev_weapon: i32,
        /// Whether it was stored whole (INPUT_NEW) rather than as a difference.
        new: bool,
    }

    /// One row per game event of a Source demo, typed by the demo's own descriptors (the
    /// events that mean a kill, a join or a team change are in `events` too).
    GameEvents "game_events", GameEventRow, GameEventColumns {
        /// The file.
        path: (runs str),
        /// The tick.
        tick: i32,
        /// The event's name (`player_death`, `round_start`, ...).
        name: (dict str),
        /// Its values as a JSON object keyed by the descriptor's key names.
        values: str,
    }

    /// One row per frame of a Source demo.
    Frames "frames", FrameRow, FrameColumns {
        /// The file.
        path: (runs str),
        /// The frame's place in the file, from 0.
        index: u64,
        /// Offset of its command byte.
        offset: u64,
        /// Its length in bytes.
        len: u64,
        /// The command's name.
        command: str,
        /// The tick.
        tick: i32,
        /// The player slot, in profiles that have one.
        slot: (opt i32),
    }
}

/// Reads recordings into the tables. Rows gather per table; every [`BATCH_ROWS`] rows (and
/// at [`finish`](Self::finish)) they go to the sink as a record batch, so memory stays
/// bounded whatever the length of a file.
#[derive(Debug, Default)]
pub struct Exporter {
    /// Tables left out, one bit per [`Table`] (none by default).
    skipped: u32,
    /// Whether a teehistorian file's walk runs on a thread of its own
    /// ([`pipelined`](Self::pipelined)).
    pipelined: bool,
    /// Which `ticks` rows are kept ([`select_ticks`](Self::select_ticks)).
    selection: TickSelection,
    /// The game model's selection, and how it was given, for every table
    /// ([`select_game`](Self::select_game)).
    game_selection: Option<(crate::model::Selected, String)>,
    /// While a teehistorian file is walked: each client id's name for its `ticks` rows.
    tick_names: Vec<String>,
    files: FileColumns,
    chat: ChatColumns,
    players: PlayerColumns,
    events: EventColumns,
    ticks: TickColumns,
    inputs: InputColumns,
    game_events: GameEventColumns,
    frames: FrameColumns,
}

/// A selection of the `ticks` rows and columns, pushed into the reading: rows outside it
/// are never made, a column left out is not computed where it costs (a teehistorian
/// file's player names need the players followed through the file), and a reading that
/// wants no other table than `files` and `ticks` stops after the last selected tick (its
/// `files` row then ends there, with `finished` false for a teehistorian file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickSelection {
    /// Only these client ids (every one when `None`).
    pub client_ids: Option<Vec<i32>>,
    /// Only the ticks of this range (every one when `None`).
    pub ticks: Option<std::ops::Range<i32>>,
    /// Only these columns, in this order, as indexes into [`Table::Ticks`]' schema (every
    /// one when `None`; indexes past its columns are left out);
    /// [`TickSelection::column_indexes`] finds them by name.
    pub columns: Option<Vec<usize>>,
}

impl TickSelection {
    /// The indexes of the `ticks` columns named `names`, for
    /// [`columns`](Self::columns); the first name the table has no column of, if any.
    pub fn column_indexes<S: AsRef<str>>(names: &[S]) -> Result<Vec<usize>, String> {
        let schema = Table::Ticks.schema();
        names
            .iter()
            .map(|name| {
                let name = name.as_ref();
                schema.index_of(name).map_err(|_| name.to_owned())
            })
            .collect()
    }

    /// Whether the rows made keep the column `name`.
    fn keeps_column(&self, name: &str) -> bool {
        let schema = Table::Ticks.schema();
        self.columns
            .as_ref()
            .is_none_or(|columns| columns.iter().any(|&c| schema.field(c).name() == name))
    }

    /// Whether the rows are all made, whole.
    fn is_everything(&self) -> bool {
        self.client_ids.is_none() && self.ticks.is_none()
    }

    /// Whether a row of `client_id` at `tick` is kept.
    fn keeps(&self, tick: i32, client_id: i32) -> bool {
        self.keeps_tick(tick) && self.keeps_client(client_id)
    }

    /// Whether rows of `client_id` may be kept.
    fn keeps_client(&self, client_id: i32) -> bool {
        self.client_ids
            .as_ref()
            .is_none_or(|ids| ids.contains(&client_id))
    }

    /// Whether rows of `tick` may be kept.
    fn keeps_tick(&self, tick: i32) -> bool {
        self.ticks
            .as_ref()
            .is_none_or(|range| range.contains(&tick))
    }

    /// Whether every tick from `tick` on is past the selection.
    fn is_past(&self, tick: i32) -> bool {
        self.ticks
            .as_ref()
            .is_some_and(|range| tick.saturating_add(1) >= range.end)
    }
}

/// How the reading of one file added to an [`Exporter`] ended: what its `files` row's
/// `error` and `error_offset` say, as a value the caller can act on (the tool's exit
/// status and closing note, Python's warnings).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "end", rename_all = "snake_case"))]
pub enum FileEnd {
    /// Read to its end: every row it holds was made.
    Whole,
    /// A recording read up to a break (cut off, damaged): the rows before it were made.
    Partial {
        /// Where the reading stopped, when known.
        offset: Option<u64>,
        /// Why.
        message: String,
    },
    /// Not read at all: no recording, its format unsupported, or its start unreadable;
    /// only its `files` row was made.
    Unread {
        /// Where the trouble is, when known.
        offset: Option<u64>,
        /// Why.
        message: String,
    },
}

impl FileEnd {
    /// Whether the file was read to its end.
    pub fn is_whole(&self) -> bool {
        matches!(self, FileEnd::Whole)
    }

    /// The `files` row's form of a reading that ended with `ending` (`read`: whether the
    /// recording's reading began at all).
    fn of(ending: &Ending, read: bool) -> FileEnd {
        match (&ending.error, read) {
            (None, _) => FileEnd::Whole,
            (Some(message), true) => FileEnd::Partial {
                offset: ending.offset,
                message: message.clone(),
            },
            (Some(message), false) => FileEnd::Unread {
                offset: ending.offset,
                message: message.clone(),
            },
        }
    }
}

/// One player's state at one tick of a Source demo, waiting for its `ticks` row.
#[derive(Debug, Clone)]
struct SourceSample {
    slot: i32,
    name: String,
    x: i32,
    y: i32,
    health: Option<i32>,
}

/// What a file's reading ended with, for its `files` row.
#[derive(Default)]
struct Ending {
    error: Option<String>,
    offset: Option<u64>,
}

impl Ending {
    /// An error of the entry point: its message and offset.
    fn of(error: &Error) -> Ending {
        Ending {
            error: Some(error.message()),
            offset: error.offset(),
        }
    }

    fn at(error: impl std::fmt::Display, offset: u64) -> Ending {
        Ending {
            error: Some(error.to_string()),
            offset: Some(offset),
        }
    }
}

/// One file being added: the entry point calls the exporter's walk for its format.
struct Adding<'e, 'p, 's> {
    exporter: &'e mut Exporter,
    path: &'p str,
    file: FileRow<'p>,
    sink: &'s mut dyn FnMut(Table, RecordBatch),
}

impl Visitor for Adding<'_, '_, '_> {
    type Output = (FileStrings, Ending);

    fn twdemo(&mut self, data: &[u8]) -> Self::Output {
        self.file.bytes = data.len() as u64;
        self.exporter
            .twdemo(self.path, data, &mut self.file, self.sink)
    }

    fn teehistorian(&mut self, data: &[u8]) -> Self::Output {
        self.file.bytes = data.len() as u64;
        self.exporter
            .teehistorian(self.path, data, &mut self.file, self.sink)
    }

    fn teehistorian_stream(&mut self, reader: TeehistorianStream, len: u64) -> Self::Output {
        self.file.bytes = len;
        let strings = FileStrings::of_teehistorian(reader.header());
        let team_game = team_game_of(reader.header());
        let walk = TickWalk::from_reader(reader);
        let ending =
            self.exporter
                .teehistorian_walk(self.path, walk, team_game, &mut self.file, self.sink);
        (strings, ending)
    }

    fn source(&mut self, data: &[u8]) -> Self::Output {
        self.file.bytes = data.len() as u64;
        self.exporter
            .source(self.path, data, &mut self.file, self.sink)
    }
}

impl Exporter {
    /// An exporter with no rows, for every table.
    pub fn new() -> Self {
        Self::default()
    }

    /// An exporter for `tables` only (and `files`, which every file gets a row of): the
    /// work that only other tables need is not done (for teehistorian files, a second pass
    /// for the chat and players).
    pub fn with_tables(tables: &[Table]) -> Self {
        let wanted = tables
            .iter()
            .chain([&Table::Files])
            .fold(0, |bits, &t| bits | 1 << t as u32);
        Exporter {
            skipped: !wanted,
            ..Self::default()
        }
    }

    /// Reads a teehistorian file on two threads: one walks the file, the caller's fills the
    /// tables (and calls the sink). For reading one long file with a core to spare (the
    /// Python package's `open`); an export of many files in parallel gains nothing by it.
    /// The rows and batches are the same either way.
    pub fn pipelined(mut self, pipelined: bool) -> Self {
        self.pipelined = pipelined;
        self
    }

    /// Keeps only the `ticks` rows and columns of `selection`; see [`TickSelection`].
    pub fn select_ticks(mut self, mut selection: TickSelection) -> Self {
        if let Some(columns) = &mut selection.columns {
            let count = Table::Ticks.schema().fields().len();
            columns.retain(|&i| i < count);
        }
        self.selection = selection;
        self
    }

    /// Keeps only what `selected` selects of the game model's tables: the `ticks` rows of
    /// its ticks and players (as [`select_ticks`](Self::select_ticks)), the events of its
    /// kinds, ticks and players, their chat lines and their stints that overlap the
    /// ticks. The format's own tables (`inputs`, `game_events`, `frames`: whole-file
    /// records, not the model's) are left out. Each `files` row says the selection as
    /// `described` (how the user gave it), so that a later export can tell a file's
    /// selected rows from its whole ones.
    pub fn select_game(mut self, selected: crate::model::Selected, described: String) -> Self {
        self.selection.ticks = selected.ticks.map(|r| r.from..r.to.saturating_add(1));
        self.selection.client_ids = selected.client_ids.clone();
        for table in [Table::Inputs, Table::GameEvents, Table::Frames] {
            self.skipped |= 1 << table as u32;
        }
        self.game_selection = Some((selected, described));
        self
    }

    /// The schema of the batches of `table` handed on: the table's, with only the
    /// selected columns of `ticks`.
    pub fn schema(&self, table: Table) -> arrow_schema::SchemaRef {
        match (table, &self.selection.columns) {
            (Table::Ticks, Some(columns)) => {
                let schema = table.schema();
                let fields = schema.fields();
                let selected: Vec<_> = columns
                    .iter()
                    .filter_map(|&i| fields.get(i).cloned())
                    .collect();
                let metadata = schema.metadata().clone();
                std::sync::Arc::new(arrow_schema::Schema::new_with_metadata(selected, metadata))
            }
            _ => table.schema(),
        }
    }

    /// Whether the reading may stop once the selected ticks are past: nothing but `files`
    /// and `ticks` is wanted.
    fn stops_early(&self) -> bool {
        self.selection.ticks.is_some()
            && Table::ALL
                .iter()
                .all(|&t| matches!(t, Table::Files | Table::Ticks) || !self.wants(t))
    }

    /// Whether rows of `table` are collected.
    pub fn wants(&self, table: Table) -> bool {
        self.skipped & 1 << table as u32 == 0
    }

    /// Reads one file into the tables; `sink` gets the batches that fill up meanwhile.
    /// Never fails: a file that is not a recording, or breaks off, gets its error in its
    /// `files` row and keeps the rows read before the break; the returned [`FileEnd`] says
    /// which.
    pub fn add(
        &mut self,
        path: &str,
        data: &[u8],
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> FileEnd {
        self.add_modified(path, None, data, sink)
    }

    /// [`add`](Self::add) with the file's modification time (nanoseconds since the Unix
    /// epoch) for its `files` row.
    pub fn add_modified(
        &mut self,
        path: &str,
        modified_ns: Option<i64>,
        data: &[u8],
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> FileEnd {
        let mut adding = Adding {
            exporter: self,
            path,
            file: FileRow::new(path, data.len() as u64, modified_ns),
            sink,
        };
        let ((strings, ending), read) = match Recording::visit_bytes(data, &mut adding) {
            Ok((format, read)) => {
                adding.file.format = format.id();
                (read, true)
            }
            Err(e) => ((FileStrings::default(), Ending::of(&e)), false),
        };
        let Adding { file, sink, .. } = adding;
        let end = FileEnd::of(&ending, read);
        self.push_file(file, &strings, &ending, sink);
        end
    }

    /// Reads a recording opened through the entry point: a teehistorian file on disk as a
    /// stream as it arrives rather than whole, with the same rows (memory stays that of
    /// the reader's buffer and of the batches, whatever the length of the file); any other
    /// as [`add_modified`](Self::add_modified) does.
    pub fn add_recording(
        &mut self,
        path: &str,
        modified_ns: Option<i64>,
        recording: &Recording,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> FileEnd {
        let bytes = recording
            .path()
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len());
        let mut adding = Adding {
            exporter: self,
            path,
            file: FileRow::new(path, bytes, modified_ns),
            sink,
        };
        adding.file.format = recording.format().id();
        let ((strings, ending), read) = match recording.visit(&mut adding) {
            Ok(read) => (read, true),
            Err(e) => ((FileStrings::default(), Ending::of(&e)), false),
        };
        let Adding { file, sink, .. } = adding;
        let end = FileEnd::of(&ending, read);
        self.push_file(file, &strings, &ending, sink);
        end
    }

    /// [`add_modified`](Self::add_modified) for a teehistorian file read from a stream as
    /// it arrives rather than whole, with the same rows: memory stays that of the reader's
    /// buffer and of the batches, whatever the length of the file. `bytes` is the file's
    /// size, for its `files` row. ([`add_recording`](Self::add_recording) calls it for a
    /// teehistorian file on disk.)
    pub fn add_teehistorian<R: std::io::Read + Send>(
        &mut self,
        path: &str,
        modified_ns: Option<i64>,
        bytes: u64,
        reader: TeehistorianReader<R>,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> FileEnd {
        let mut file = FileRow::new(path, bytes, modified_ns);
        file.format = "teehistorian";
        let strings = FileStrings::of_teehistorian(reader.header());
        let team_game = team_game_of(reader.header());
        let ending = self.teehistorian_walk(
            path,
            TickWalk::from_reader(reader),
            team_game,
            &mut file,
            sink,
        );
        let end = FileEnd::of(&ending, true);
        self.push_file(file, &strings, &ending, sink);
        end
    }

    /// Completes a file's row with what its reading found, and adds it.
    fn push_file<'a>(
        &mut self,
        mut file: FileRow<'a>,
        strings: &'a FileStrings,
        ending: &'a Ending,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) {
        file.version = strings.version.as_deref();
        file.map_name = strings.map_name.as_deref();
        file.game_uuid = strings.game_uuid.as_deref();
        file.start_time = strings.start_time.as_deref();
        file.server = strings.server.as_deref();
        file.error = ending.error.as_deref();
        file.error_offset = ending.offset;
        let selection = self.game_selection.as_ref().map(|(_, s)| s.as_str());
        self.files.push(&FileRow { selection, ..file });
        self.flush(false, sink);
    }

    /// Records a file that could not be read at all (its `files` row carries `error`).
    pub fn add_unreadable(&mut self, path: &str, error: &str) {
        self.files.push(&FileRow {
            error: Some(error),
            ..FileRow::new(path, 0, None)
        });
    }

    /// Hands every table's remaining rows to `sink`.
    pub fn finish(&mut self, sink: &mut dyn FnMut(Table, RecordBatch)) {
        self.flush(true, sink);
    }

    /// Hands on the tables that have [`BATCH_ROWS`] rows (`all`: any rows).
    // `select_ticks` keeps only the selected columns that index the `ticks` schema, which
    // every `ticks` batch has: the projection does not fail.
    #[allow(clippy::expect_used)]
    fn flush(&mut self, all: bool, sink: &mut dyn FnMut(Table, RecordBatch)) {
        let at = if all { 1 } else { BATCH_ROWS };
        let columns = &self.selection.columns;
        // The selected columns of `ticks`; the others are made (cheaply, or not at all
        // when costly) and dropped here.
        let select = |table: Table, batch: RecordBatch| match (table, columns) {
            (Table::Ticks, Some(columns)) => batch
                .project(columns)
                .expect("a selection's columns index the table's schema"),
            _ => batch,
        };
        macro_rules! flush {
            ($($field:ident $table:ident),*) => {$(
                if self.$field.len() >= at {
                    sink(Table::$table, select(Table::$table, self.$field.finish()));
                }
            )*};
        }
        flush!(files Files, chat Chat, players Players, events Events, ticks Ticks, inputs Inputs, game_events GameEvents, frames Frames);
    }

    fn twdemo(
        &mut self,
        path: &str,
        data: &[u8],
        file: &mut FileRow<'_>,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> (FileStrings, Ending) {
        let demo = match DemoSlice::parse(data) {
            Ok(demo) => demo,
            Err(e) => return (FileStrings::default(), Ending::at(&e, e.offset)),
        };
        let header = &demo.prelude().header;
        let strings = FileStrings {
            version: Some(demo.prelude().version().to_string()),
            map_name: Some(lossy(header.map_name.text_bytes())),
            start_time: Some(demo_start_time(&demo)),
            ..FileStrings::default()
        };
        let mut ending = Ending::default();
        let mut log = TickLogger::default();
        let wants_log =
            self.wants(Table::Chat) || self.wants(Table::Players) || self.wants(Table::Events);
        let wants_ticks = self.wants(Table::Ticks);
        let stops_early = self.stops_early();
        // The last tick sampled and its samples, for the ticks after it that have none.
        let mut last_sampled: Option<i32> = None;
        let mut previous: Vec<(Sample, String)> = Vec::new();
        let mut replay = GameReplay::new(&demo);
        while let Some(tick) = replay.next() {
            let tick = match tick {
                Ok(tick) => tick,
                Err(e) => {
                    ending = Ending::at(&e, e.offset());
                    break;
                }
            };
            file.first_tick.get_or_insert(tick.tick);
            file.last_tick = Some(tick.tick);
            if wants_log {
                log.tick(&tick);
            }
            if !wants_ticks {
                if stops_early && self.selection.is_past(tick.tick) {
                    break;
                }
                continue;
            }
            // Ticks without a snapshot of their own hold the last one's characters (the
            // model's sampling rule), up to a minute of them.
            if let Some(skipped) = crate::model::filled_ticks(last_sampled, tick.tick) {
                for skipped in skipped {
                    if !self.selection.keeps_tick(skipped) {
                        continue;
                    }
                    for (sample, name) in &previous {
                        self.ticks.push(&TickRow::of(path, skipped, name, sample));
                    }
                    self.flush(false, sink);
                }
            }
            last_sampled = Some(tick.tick);
            previous.clear();
            // A tick before the selection still gives the samples its following ticks
            // are filled with, so a selection's rows are the whole read's.
            let kept = self.selection.keeps_tick(tick.tick);
            let selection = &self.selection;
            for c in tick
                .world
                .characters()
                .filter(|c| selection.keeps_client(c.client_id))
            {
                let sample = c.sample(tick.tick);
                let name = tick
                    .world
                    .player(c.client_id)
                    .map_or("", |p| p.name.as_str());
                if kept {
                    self.ticks
                        .push(&TickRow::of(path, tick.tick, name, &sample));
                }
                previous.push((sample, name.to_owned()));
            }
            if kept {
                self.flush(false, sink);
            }
            if stops_early && self.selection.is_past(tick.tick) {
                break;
            }
        }
        file.records = demo.chunks().count() as u64;
        self.game_log(path, log.finish());
        (strings, ending)
    }

    fn teehistorian(
        &mut self,
        path: &str,
        data: &[u8],
        file: &mut FileRow<'_>,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> (FileStrings, Ending) {
        let th = match TeehistorianSlice::parse(data) {
            Ok(th) => th,
            Err(e) => return (FileStrings::default(), Ending::at(&e, e.offset)),
        };
        let strings = FileStrings::of_teehistorian(th.header());
        let ending = self.teehistorian_walk(
            path,
            TickWalk::new(&th),
            team_game_of(th.header()),
            file,
            sink,
        );
        (strings, ending)
    }

    /// Walks a teehistorian body into the tables; what ended it, for the `files` row.
    fn teehistorian_walk<S: WalkSource + Send>(
        &mut self,
        path: &str,
        walk: TickWalk<S>,
        team_game: crate::model::TeamGame,
        file: &mut FileRow<'_>,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> Ending {
        let wanted = WalkWants {
            inputs: self.wants(Table::Inputs),
            positions: self.wants(Table::Ticks),
            names: self.wants(Table::Ticks) && self.selection.keeps_column("name"),
            // The players, chat and events come from the same pass.
            log: self.wants(Table::Chat) || self.wants(Table::Players) || self.wants(Table::Events),
        };
        let selection = (!self.selection.is_everything()).then(|| Selected {
            selection: self.selection.clone(),
            client_ids: self.selection.client_ids.as_ref().map(|ids| {
                let mut ids = ids.clone();
                ids.sort_unstable();
                ids.dedup();
                ids
            }),
            stops_early: self.stops_early(),
        });
        // Inputs are most of a server's file: without the `inputs` table the walk steps
        // over them.
        let walk = if wanted.inputs {
            walk
        } else {
            walk.skipping_inputs()
        };
        // Only the selected players' moves are followed (the others' are stepped over);
        // no one's when no `ticks` row is wanted (the players, chat and events come from
        // joins, drops, messages and commands, never from moves).
        let walk = match &self.selection.client_ids {
            Some(ids) => walk.following(ids),
            None if !wanted.positions => walk.following(&[]),
            None => walk,
        };
        let end = if self.pipelined {
            // Batches of rows go to this thread, and their buffers come back for reuse.
            let (full, filled) = std::sync::mpsc::sync_channel::<WalkRows>(2);
            let (empty, emptied) = std::sync::mpsc::channel::<WalkRows>();
            std::thread::scope(|scope| {
                let walker = scope.spawn(move || {
                    walk_rows(walk, wanted, selection.as_ref(), WALK_ROWS, |rows| {
                        let _ = full.send(std::mem::replace(
                            rows,
                            emptied.try_recv().unwrap_or_default(),
                        ));
                    })
                });
                for mut rows in filled {
                    self.take_rows(path, &rows, file, sink);
                    rows.clear();
                    let _ = empty.send(rows);
                }
                walker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        } else {
            // Each tick's rows, still in the cache, go straight into the tables; a
            // selection's few rows gather for a while first (handing on each tick's
            // costs more than its rows then).
            let at_least = if selection.is_some() { WALK_ROWS } else { 1 };
            walk_rows(walk, wanted, selection.as_ref(), at_least, |rows| {
                self.take_rows(path, rows, file, sink);
                rows.clear();
            })
        };
        self.tick_names.clear();
        file.records = end.records;
        file.finished = Some(end.finished);
        if let Some(log) = end.log {
            self.game_log(
                path,
                crate::gamenet::summary::GameLog {
                    team_game: Some(team_game),
                    ..log
                },
            );
        }
        end.ending
    }

    /// Puts a walk's rows into the tables, tick by tick as the walk went: each tick's
    /// inputs, then its positions, then the batches that filled; inputs after the last
    /// tick (of a tick an error ended) last.
    fn take_rows(
        &mut self,
        path: &str,
        rows: &WalkRows,
        file: &mut FileRow<'_>,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) {
        let (mut inputs, mut positions) = (0, 0);
        // Each client id's name, as the renames the walk noted leave it.
        let mut names = std::mem::take(&mut self.tick_names);
        let mut renames = rows.renames.iter().peekable();
        let mut push_inputs = |this: &mut Self, to: usize| {
            let tick_inputs = &rows.inputs[inputs..to];
            this.inputs.push_rows(tick_inputs.len(), |i| {
                let (tick, client_id, input, new) = tick_inputs[i];
                let [
                    direction,
                    target_x,
                    target_y,
                    jump,
                    fire,
                    hook,
                    player_flags,
                    wanted_weapon,
                    next_weapon,
                    prev_weapon,
                ] = input;
                InputRow {
                    path,
                    tick,
                    client_id,
                    direction,
                    target_x,
                    target_y,
                    jump,
                    fire,
                    hook,
                    player_flags,
                    wanted_weapon,
                    next_weapon,
                    prev_weapon,
                    new,
                }
            });
            inputs = to;
        };
        for &(tick, inputs_end, positions_end) in &rows.ticks {
            push_inputs(self, inputs_end);
            while let Some((_, client_id, name)) = renames.next_if(|r| r.0 < positions_end) {
                rename(&mut names, *client_id, name);
            }
            let tick_positions = &rows.positions[positions..positions_end];
            self.ticks.push_rows(tick_positions.len(), |i| {
                let [client_id, x, y] = tick_positions[i];
                TickRow {
                    path,
                    tick,
                    client_id,
                    name: names.get(client_id as usize).map_or("", String::as_str),
                    x,
                    y,
                    // A teehistorian file records a position when it changed: the one
                    // after the tick, filled forward or not.
                    position_tick: tick,
                    vel_x: None,
                    vel_y: None,
                    weapon: None,
                    weapon_name: None,
                    health: None,
                    armor: None,
                }
            });
            positions = positions_end;
            file.first_tick.get_or_insert(tick);
            file.last_tick = Some(tick);
            self.flush(false, sink);
        }
        push_inputs(self, rows.inputs.len());
        // Renames after the last row (a tick without rows) hold for the next rows.
        for (_, client_id, name) in renames {
            rename(&mut names, *client_id, name);
        }
        self.tick_names = names;
    }

    fn source(
        &mut self,
        path: &str,
        data: &[u8],
        file: &mut FileRow<'_>,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> (FileStrings, Ending) {
        let demo = match SourceSlice::parse(data) {
            Ok(demo) => demo,
            Err(e) => return (FileStrings::default(), Ending::at(&e, e.offset)),
        };
        let header = demo.header();
        let strings = FileStrings {
            version: Some(header.demo_protocol.to_string()),
            map_name: Some(lossy(header.map.text_bytes())),
            server: Some(lossy(header.server.text_bytes())),
            ..FileStrings::default()
        };
        let mut ending = Ending::default();
        let mut play = crate::source::summary::PlayTicks::default();
        for (index, frame) in demo.frames().enumerate() {
            let frame = match frame {
                Ok(frame) => frame,
                Err(e) => {
                    ending = Ending::at(&e, e.offset);
                    break;
                }
            };
            // Source ticks are not in order (sign-on frames, a level change): the ticks
            // of play are the model's, as `info` gives them.
            play.add(frame.frame.command(), frame.frame.tick);
            (file.first_tick, file.last_tick) = (play.first, play.last);
            file.records += 1;
            if !self.wants(Table::Frames) {
                continue;
            }
            self.frames.push(&FrameRow {
                path,
                index: index as u64,
                offset: frame.offset,
                len: frame.len as u64,
                command: frame.frame.command().name(),
                tick: frame.frame.tick,
                slot: frame.frame.slot.map(i32::from),
            });
            self.flush(false, sink);
        }
        let wants_log = [Table::Chat, Table::Players, Table::Events, Table::Ticks]
            .into_iter()
            .any(|t| self.wants(t));
        if wants_log || self.wants(Table::GameEvents) {
            self.source_game(path, data, &mut ending, sink);
        }
        (strings, ending)
    }

    /// The chat, players, events and typed game events of a Source demo, from one walk.
    fn source_game(
        &mut self,
        path: &str,
        data: &[u8],
        ending: &mut Ending,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) {
        use crate::source::game::{Item, Walk};
        let typed = self.wants(Table::GameEvents);
        let positions = self.wants(Table::Ticks);
        let options = Walk {
            // The entities give the positions, and every player's team.
            entities: positions || self.wants(Table::Players),
            ..Walk::default()
        };
        // The players' names by slot, as the walk has met them so far.
        let mut names: Vec<(i32, String)> = Vec::new();
        // One row per player per tick: the walk can hand out several updates of one tick
        // (a packet per view split, frames of one tick), so the rows of the latest tick
        // wait here, each player's last state kept, until another tick comes.
        let mut pending: Option<(i32, Vec<SourceSample>)> = None;
        // Rows go to their builders as the walk hands them out: memory does not grow with
        // the demo's length.
        let walked = crate::source::game::game_log_reader_with(data, options, |item| match item {
            Item::Event(event) if typed => {
                let values = serde_json::to_value(event)
                    .ok()
                    .and_then(|mut v| v.get_mut("values").map(std::mem::take))
                    .unwrap_or_default();
                self.game_events.push(&GameEventRow {
                    path,
                    tick: event.tick,
                    name: &event.name(),
                    values: &values.to_string(),
                });
                self.flush(false, sink);
            }
            Item::Join { slot, player, .. } | Item::Rename { slot, player, .. } => {
                names.retain(|n| n.0 != *slot);
                names.push((*slot, player.name.clone()));
            }
            Item::Players { tick, players } if positions => {
                if pending.as_ref().is_some_and(|(t, _)| t != tick) {
                    let (t, samples) = pending.take().unwrap_or_default();
                    self.source_ticks(path, t, &samples, sink);
                }
                let (_, samples) = pending.get_or_insert_with(|| (*tick, Vec::new()));
                for p in players.iter().filter(|p| p.in_pvs) {
                    let slot = p.index as i32 - 1;
                    let Some([x, y, _]) = p.origin else { continue };
                    if !self.selection.keeps(*tick, slot) {
                        continue;
                    }
                    let name = names
                        .iter()
                        .find(|n| n.0 == slot)
                        .map_or("", |n| n.1.as_str());
                    let sample = SourceSample {
                        slot,
                        name: name.to_owned(),
                        x: x.round() as i32,
                        y: y.round() as i32,
                        health: p.health.and_then(|h| i32::try_from(h).ok()),
                    };
                    match samples.iter_mut().find(|s| s.slot == slot) {
                        Some(earlier) => *earlier = sample,
                        None => samples.push(sample),
                    }
                }
            }
            _ => {}
        });
        if let Some((tick, samples)) = pending {
            self.source_ticks(path, tick, &samples, sink);
        }
        let (log, error) = match walked {
            Ok(walked) => walked,
            Err(e) => {
                if ending.error.is_none() {
                    *ending = Ending::at(&e, e.offset());
                }
                return;
            }
        };
        if let Some(e) = error
            && ending.error.is_none()
        {
            *ending = Ending::at(&e, e.offset());
        }
        self.game_log(path, log);
        self.flush(false, sink);
    }

    /// The `ticks` rows of one tick of a Source demo, in slot order.
    fn source_ticks(
        &mut self,
        path: &str,
        tick: i32,
        samples: &[SourceSample],
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) {
        let mut order: Vec<&SourceSample> = samples.iter().collect();
        order.sort_by_key(|s| s.slot);
        for s in order {
            let sample = Sample {
                client_id: s.slot,
                x: s.x,
                y: s.y,
                position_tick: tick,
                health: s.health,
                ..Sample::default()
            };
            self.ticks.push(&TickRow::of(path, tick, &s.name, &sample));
            self.flush(false, sink);
        }
    }

    /// The chat lines, player stints and game events of a file.
    fn game_log(&mut self, path: &str, log: crate::gamenet::summary::GameLog) {
        let log = match &self.game_selection {
            Some((selected, _)) => selected.apply(log),
            None => log,
        };
        let (chat, players) = (self.wants(Table::Chat), self.wants(Table::Players));
        let events = self.wants(Table::Events);
        // The log holds the model's values, teams and weapons named: the rows copy them.
        for e in log.events.iter().filter(|_| events) {
            self.events.push(&EventRow {
                path,
                tick: e.tick,
                kind: e.kind.name(),
                client_id: e.client_id,
                name: &e.name,
                victim: e.victim,
                victim_name: e.victim_name.as_deref(),
                weapon: e.weapon,
                weapon_name: e.weapon_name.as_deref(),
                team: e.team,
                team_name: e.team_name.as_deref(),
                time_ms: e.time_ms,
                x: e.x,
                y: e.y,
                text: e.text.as_deref(),
            });
        }
        for line in log.chat.iter().filter(|_| chat) {
            self.chat.push(&ChatRow {
                path,
                tick: line.tick,
                client_id: line.client_id,
                name: &line.name,
                channel: line.channel,
                text: &line.text,
            });
        }
        for p in log.players.iter().filter(|_| players) {
            self.players.push(&PlayerRow {
                path,
                client_id: p.client_id,
                name: &p.name,
                clan: &p.clan,
                country: p.country,
                country_code: p.country_code.as_deref(),
                team: p.team,
                team_name: p.team_name.as_deref(),
                first_tick: p.first_tick,
                last_tick: p.last_tick,
            });
        }
    }
}

/// The kind of game a teehistorian file is of, by its header's `game_type`.
fn team_game_of(header: &Header) -> crate::model::TeamGame {
    crate::model::TeamGame::of_game_type(header.game_type.as_deref().unwrap_or(""))
}

/// Gives client id `client_id` (from a walk's world: `0..128`) the name `name` in `names`.
fn rename(names: &mut Vec<String>, client_id: i32, name: &str) {
    let slot = client_id as usize;
    if names.len() <= slot {
        names.resize(slot + 1, String::new());
    }
    names[slot].clear();
    names[slot].push_str(name);
}

/// Rows a pipelined walk gathers before it hands them over (a few hundred KB).
const WALK_ROWS: usize = 16 * 1024;

/// The tables a teehistorian walk gathers rows for.
#[derive(Debug, Clone, Copy)]
struct WalkWants {
    inputs: bool,
    positions: bool,
    /// The players' names on the positions' rows (which needs the players followed).
    names: bool,
    log: bool,
}

/// A walk's [`TickSelection`], and whether it may stop after the selected ticks.
#[derive(Debug, Clone)]
struct Selected {
    selection: TickSelection,
    /// The selection's client ids, ascending, once each: the rows' order.
    client_ids: Option<Vec<i32>>,
    stops_early: bool,
}

/// A teehistorian walk's rows, gathered tick by tick before they go into the tables.
#[derive(Debug, Default)]
struct WalkRows {
    /// Every input: tick, client id, the input, whether it was stored whole.
    inputs: Vec<(i32, i32, crate::teehistorian::semantic::Input, bool)>,
    /// Every position after each tick: client id, x, y.
    positions: Vec<[i32; 3]>,
    /// Every tick walked: its number, and where its inputs and positions end.
    ticks: Vec<(i32, usize, usize)>,
    /// Names that changed: the first position row with the new name, its client id and
    /// the name (a rename per change rather than a name per row).
    renames: Vec<(usize, i32, String)>,
}

impl WalkRows {
    fn clear(&mut self) {
        self.inputs.clear();
        self.positions.clear();
        self.ticks.clear();
        self.renames.clear();
    }

    fn len(&self) -> usize {
        self.inputs.len() + self.positions.len() + self.ticks.len()
    }
}

/// How a teehistorian walk ended.
struct WalkEnd {
    ending: Ending,
    records: u64,
    finished: bool,
    log: Option<crate::gamenet::summary::GameLog>,
}

/// Walks `walk` to its end, gathering the rows `wanted` and handing them to `hand` (which
/// leaves the buffer empty) whenever `at_least` have gathered, at a tick's end, and at
/// the end.
fn walk_rows<S: WalkSource>(
    mut walk: TickWalk<S>,
    wanted: WalkWants,
    selected: Option<&Selected>,
    at_least: usize,
    mut hand: impl FnMut(&mut WalkRows),
) -> WalkEnd {
    let mut ending = Ending::default();
    let mut log = (wanted.log || wanted.names).then(EventLogger::new);
    let mut rows = WalkRows::default();
    // The name each client id's rows were last given, and the roster they came from.
    let mut named = vec![String::new(); crate::teehistorian::format::MAX_CLIENTS as usize];
    let mut names_seen = 0;
    // The positions after the last tick the walk met, for the ticks the file skips (it
    // stores a tick only when something changed): the game model fills them forward.
    let mut previous: Vec<[i32; 3]> = Vec::new();
    let mut last_tick: Option<i32> = None;
    loop {
        let inputs_before = rows.inputs.len();
        let inputs = &mut rows.inputs;
        let tick = match walk.next_tick(|event| {
            if let Some(log) = &mut log {
                log.add(&event);
            }
            if let EventKind::Input { cid, input, new } = event.kind
                && wanted.inputs
            {
                inputs.push((event.tick, cid, input, new));
            }
        }) {
            None => break,
            Some(Ok(tick)) => tick,
            Some(Err(e)) => {
                ending = Ending::at(&e, e.offset());
                break;
            }
        };
        if wanted.positions
            && let Some(skipped) = crate::model::filled_ticks(last_tick, tick)
            && !previous.is_empty()
        {
            for skipped in skipped {
                if selected.is_some_and(|s| !s.selection.keeps_tick(skipped)) {
                    continue;
                }
                rows.positions.extend_from_slice(&previous);
                rows.ticks
                    .push((skipped, inputs_before, rows.positions.len()));
            }
        }
        last_tick = Some(tick);
        let first_position = rows.positions.len();
        match selected {
            _ if !wanted.positions => {}
            None => rows
                .positions
                .extend(walk.world().players().map(|(cid, (x, y))| [cid, x, y])),
            // A few players of many: looked up rather than filtered out.
            Some(Selected {
                client_ids: Some(ids),
                ..
            }) => {
                let world = walk.world();
                rows.positions.extend(ids.iter().filter_map(|&cid| {
                    let (x, y) = world.position(cid)?;
                    Some([cid, x, y])
                }))
            }
            Some(Selected { .. }) => rows
                .positions
                .extend(walk.world().players().map(|(cid, (x, y))| [cid, x, y])),
        }
        if wanted.positions {
            previous.clear();
            previous.extend_from_slice(&rows.positions[first_position..]);
            // Computed for the ticks before a selected range too, which may fill into
            // it; not kept as rows.
            if selected.is_some_and(|s| !s.selection.keeps_tick(tick)) {
                rows.positions.truncate(first_position);
            }
        }
        // When a player came, went or was renamed, every client id's name is compared with
        // the one its rows were given, and a rename noted for those that differ (from this
        // tick's first row on).
        if let Some(log) = log.as_ref().filter(|_| wanted.names)
            && log.name_changes() != names_seen
        {
            names_seen = log.name_changes();
            for (cid, named) in (0..).zip(&mut named) {
                let name = log.roster().player(cid).map_or("", |p| p.name.as_str());
                if named != name {
                    named.clear();
                    named.push_str(name);
                    rows.renames.push((first_position, cid, name.to_owned()));
                }
            }
        }
        rows.ticks
            .push((tick, rows.inputs.len(), rows.positions.len()));
        if rows.len() >= at_least {
            hand(&mut rows);
        }
        if selected.is_some_and(|s| s.stops_early && s.selection.is_past(tick)) {
            break;
        }
    }
    if rows.len() > 0 {
        hand(&mut rows);
    }
    WalkEnd {
        ending,
        records: walk.records(),
        finished: walk.finished(),
        log: log
            .filter(|_| wanted.log)
            .map(|log| log.finish(walk.tick())),
    }
}

/// A file's modification time in nanoseconds since the Unix epoch, when the system says:
/// the `modified_ns` of its `files` row.
pub fn modified_ns(path: &std::path::Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(since.as_nanos()).ok()
}

/// A demo's `start_time`: its header's timestamp.
fn demo_start_time(demo: &DemoSlice<'_>) -> String {
    crate::model::start_time_of_demo(&lossy(demo.prelude().header.timestamp.text_bytes()))
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The text fields of a `files` row, owned while the row is made.
#[derive(Default)]
struct FileStrings {
    version: Option<String>,
    map_name: Option<String>,
    game_uuid: Option<String>,
    start_time: Option<String>,
    server: Option<String>,
}

impl FileStrings {
    /// What a teehistorian header gives the `files` row.
    fn of_teehistorian(header: &Header) -> Self {
        FileStrings {
            version: Some(header.version.clone()),
            map_name: header.map_name.clone(),
            game_uuid: header.game_uuid.clone(),
            start_time: header.start_time.clone(),
            server: header.server_version.clone(),
        }
    }
}

impl<'a> TickRow<'a> {
    /// The row of a model [`Sample`].
    fn of(path: &'a str, tick: i32, name: &'a str, sample: &Sample) -> Self {
        TickRow {
            path,
            tick,
            client_id: sample.client_id,
            name,
            x: sample.x,
            y: sample.y,
            position_tick: sample.position_tick,
            vel_x: sample.vel_x,
            vel_y: sample.vel_y,
            weapon: sample.weapon,
            weapon_name: sample.weapon.and_then(weapon_name),
            health: sample.health,
            armor: sample.armor,
        }
    }
}

impl<'a> FileRow<'a> {
    /// The row of the file at `path` before it is read: its size and time, no format.
    fn new(path: &'a str, bytes: u64, modified_ns: Option<i64>) -> Self {
        FileRow {
            path,
            format: "unknown",
            bytes,
            modified_ns,
            version: None,
            map_name: None,
            game_uuid: None,
            start_time: None,
            server: None,
            first_tick: None,
            last_tick: None,
            records: 0,
            finished: None,
            error: None,
            error_offset: None,
            selection: None,
        }
    }
}
