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
//! [`Recording::open`](crate::recording::Recording::open)) and, for one long file, walked
//! on a thread of its own
//! ([`Exporter::pipelined`]); the rows are the same.
//!
//! The rows are the game stream of the entry point
//! ([`Recording::game`](crate::recording::Recording::game)): the model's players, inputs,
//! typed events and frames, with the facts and the log at its end; the exporter never
//! tells formats apart, and asks the stream for only what its tables want. What this layer leaves to others: reading the formats (the format
//! modules), walking directories and running in parallel (the CLI), and SQL (DuckDB,
//! Spark, ... read the Parquet files).
//!
//! The schemas are versioned by [`SCHEMA_VERSION`], written into each Parquet file's
//! metadata as `demokit.schema_version`; a change to a table's columns or their types raises it,
//! and [`DatasetWriter::exported`] refuses a dataset of another version.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

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

use crate::format::GameEnd;
use crate::gamenet::names::weapon_name;
use crate::model::{FrameAt, GameOptions, GameSink, InputAt, PlayerAt, ProtocolEvent, Sample};
use crate::recording::{Error, Recording};
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
}

/// One file's game stream going into the tables: the exporter is its sink.
struct Rows<'e, 'p, 's> {
    exporter: &'e mut Exporter,
    path: &'p str,
    sink: &'s mut dyn FnMut(Table, RecordBatch),
}

impl GameSink for Rows<'_, '_, '_> {
    fn players(&mut self, tick: i32, players: &[PlayerAt<'_>]) {
        let path = self.path;
        self.exporter.ticks.push_rows(players.len(), |i| {
            let p = players.get(i).copied().unwrap_or(PlayerAt {
                sample: Sample::default(),
                name: "",
                camera: false,
            });
            TickRow::of(path, tick, p.name, &p.sample)
        });
        self.exporter.flush(false, self.sink);
    }

    fn inputs(&mut self, inputs: &[InputAt]) {
        let path = self.path;
        self.exporter.inputs.push_rows(inputs.len(), |i| {
            let input = inputs.get(i).copied().unwrap_or_default();
            InputRow::of(path, &input)
        });
        self.exporter.flush(false, self.sink);
    }

    fn protocol_event(&mut self, event: &ProtocolEvent<'_>) {
        let values: serde_json::Map<String, serde_json::Value> = event
            .values
            .iter()
            .map(|(key, value)| {
                let value = serde_json::to_value(value).unwrap_or_default();
                (key.clone().into_owned(), value)
            })
            .collect();
        self.exporter.game_events.push(&GameEventRow {
            path: self.path,
            tick: event.tick,
            name: &event.name,
            values: &serde_json::Value::Object(values).to_string(),
        });
        self.exporter.flush(false, self.sink);
    }

    fn frame(&mut self, frame: &FrameAt<'_>) {
        self.exporter.frames.push(&FrameRow {
            path: self.path,
            index: frame.index,
            offset: frame.offset,
            len: frame.len,
            command: frame.command,
            tick: frame.tick,
            slot: frame.slot,
        });
        self.exporter.flush(false, self.sink);
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
        let mut file = FileRow::new(path, data.len() as u64, modified_ns);
        let options = self.game_options();
        let mut rows = Rows {
            exporter: self,
            path,
            sink,
        };
        let walked = Recording::game_of_bytes(data, &options, &mut rows);
        let Rows { sink, .. } = rows;
        let end = match walked {
            Ok((format, end)) => {
                file.format = format.id();
                end
            }
            Err(e) => Err(e),
        };
        self.end_file(path, file, end, sink)
    }

    /// Reads a recording opened through the entry point: a file on disk as a stream as it
    /// arrives rather than whole where the format allows (a teehistorian file), with the
    /// same rows (memory stays that of the reader's buffer and of the batches, whatever
    /// the length of the file); one in memory as [`add_modified`](Self::add_modified)
    /// does.
    pub fn add_recording(
        &mut self,
        path: &str,
        modified_ns: Option<i64>,
        recording: &Recording,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> FileEnd {
        let bytes = match recording.path() {
            Some(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            None => recording.bytes().map_or(0, |b| b.len() as u64),
        };
        let mut file = FileRow::new(path, bytes, modified_ns);
        file.format = recording.format().id();
        let options = self.game_options();
        let mut rows = Rows {
            exporter: self,
            path,
            sink,
        };
        let end = recording.game(&options, &mut rows);
        let Rows { sink, .. } = rows;
        self.end_file(path, file, end, sink)
    }

    /// What the game stream is asked for: what the wanted tables need, and no more.
    fn game_options(&self) -> GameOptions {
        let mut options = GameOptions::over(
            self.selection
                .ticks
                .as_ref()
                .map(|r| crate::time::TickRange::new(r.start, r.end.saturating_sub(1))),
        );
        options.stop_after_range = self.stops_early();
        if let Some(ids) = &self.selection.client_ids {
            options = options.following(ids);
        }
        options.players = self.wants(Table::Ticks);
        options.names = self.wants(Table::Ticks) && self.selection.keeps_column("name");
        options.log =
            self.wants(Table::Chat) || self.wants(Table::Players) || self.wants(Table::Events);
        options.inputs = self.wants(Table::Inputs);
        options.protocol_events = self.wants(Table::GameEvents);
        options.frames = self.wants(Table::Frames);
        options.pipelined = self.pipelined;
        options
    }

    /// Adds a file's log and its `files` row, from how its game stream ended.
    fn end_file(
        &mut self,
        path: &str,
        mut file: FileRow<'_>,
        end: Result<GameEnd, Error>,
        sink: &mut dyn FnMut(Table, RecordBatch),
    ) -> FileEnd {
        let (end, read) = match end {
            Ok(end) => (end, true),
            Err(e) => (
                GameEnd {
                    error: Some(e),
                    ..GameEnd::default()
                },
                false,
            ),
        };
        let ending = end.error.as_ref().map(Ending::of).unwrap_or_default();
        let facts = &end.facts;
        let text = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        let strings = FileStrings {
            version: text(&facts.version),
            map_name: text(&facts.map),
            game_uuid: text(&facts.game_uuid),
            start_time: text(&facts.start_time),
            server: text(&facts.server).or_else(|| text(&facts.server_version)),
        };
        if read {
            file.first_tick = end.first_tick;
            file.last_tick = end.last_tick;
            file.records = end.records;
            file.finished = end.finished;
            self.game_log(path, end.log);
        }
        self.push_file(file, &strings, &ending, sink);
        FileEnd::of(&ending, read)
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

/// A file's modification time in nanoseconds since the Unix epoch, when the system says:
/// the `modified_ns` of its `files` row.
pub fn modified_ns(path: &std::path::Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(since.as_nanos()).ok()
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

impl<'a> InputRow<'a> {
    /// The row of a model [`InputAt`].
    fn of(path: &'a str, input: &InputAt) -> Self {
        InputRow {
            path,
            tick: input.tick,
            client_id: input.client_id,
            direction: input.direction,
            target_x: input.target_x,
            target_y: input.target_y,
            jump: input.jump,
            fire: input.fire,
            hook: input.hook,
            player_flags: input.player_flags,
            wanted_weapon: input.wanted_weapon,
            next_weapon: input.next_weapon,
            prev_weapon: input.prev_weapon,
            new: input.new,
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
