//! A recorder for game servers: DDNet's `CTeeHistorian` behind a Rust API that follows a
//! server's tick loop.
//!
//! The [`writer`](super::writer) writes whatever messages it is given. The recorder decides
//! which messages there are, the way DDNet's server does, so that a Rust server records the
//! same bytes DDNet would:
//!
//! * **Ticks.** A tick costs bytes only if something is recorded in it. It stays implicit
//!   (no TICK_SKIP) when it is the tick after the last one written and its first player
//!   record has a client id no higher than the highest one written in the previous tick's
//!   player section; otherwise the first record of the tick is preceded by a TICK_SKIP.
//!   Every record other than a player record makes the tick explicit if it is not written
//!   yet.
//! * **Players.** A living player is written as PLAYER_NEW when it was not alive before,
//!   as PLAYER_DIFF when it moved, and not at all when it stood still; a dead player is
//!   written as PLAYER_OLD only if it was alive.
//! * **Inputs.** An input is written whole (INPUT_NEW) when the client's unique id differs
//!   from the stored one, as a wrapping difference (INPUT_DIFF) when only the input changed,
//!   and not at all when it is byte-identical.
//! * **Teams.** PLAYER_TEAM and TEAM_PRACTICE are written only when the value changes
//!   (starting from team 0 and no practice).
//!
//! A server drives it once per tick:
//!
//! ```text
//! begin_tick(t) → begin_players() → record_player / record_dead_player (ascending cid)
//!               → end_players() → begin_inputs() → inputs, messages, events → end_inputs()
//!               → end_tick()
//! ```
//!
//! Calls out of that order return [`RecorderError::Phase`] and change nothing. Records
//! other than player records are accepted in any phase, as DDNet accepts them: joins and
//! names arrive before the first tick, and DDNet's own tests record inputs and events
//! while the players phase is open.
//!
//! The recorder writes nothing a reader refuses, nor what no DDNet server writes: a record
//! of a client id outside `0..MAX_CLIENTS` (a console command may also come from DDNet's
//! console itself, [`MIN_CONSOLE_CLIENT_ID`]`..0`) is
//! [`RecorderError::ClientIdOutOfRange`], a record longer than the readers'
//! [`MAX_MESSAGE_LEN`] is [`RecorderError::MessageTooLong`], and a header longer than
//! [`MAX_HEADER_LEN`] is [`RecorderError::Header`]. Each leaves the file as it was.
//!
//! The messages of a tick are collected in one reused buffer and handed to the sink with
//! a single `write_all` at [`end_tick`](Recorder::end_tick), which then flushes according
//! to the [`FlushPolicy`]. (Only a tick of more than 64 KiB is handed on in parts, so that
//! the buffer stays bounded.) Once the buffer has grown to the size of a tick, recording
//! allocates nothing. With the default policy a crash leaves every completed tick on
//! disk, as a readable file without FINISH. The recorder never seeks.
//!
//! ```
//! use demokit::gamenet::Protocol;
//! use demokit::teehistorian::{Header, Recorder, TeehistorianSlice};
//!
//! let header = Header { map_name: Some("dm1".into()), ..Header::new("2") };
//! let mut rec = Recorder::new(Vec::new(), &header)?;
//! rec.record_player_join(0, Protocol::Six)?;
//! for tick in 1..=3 {
//!     rec.begin_tick(tick)?;
//!     rec.begin_players()?;
//!     rec.record_player(0, 100 + tick, 200)?;
//!     rec.end_players()?;
//!     rec.begin_inputs()?;
//!     rec.record_player_input(0, 1, &[1, 10, -20, 0, 0, 0, 0, 0, 0, 0])?;
//!     rec.end_inputs()?;
//!     rec.end_tick()?; // the tick's bytes are written and flushed here
//! }
//! let bytes = rec.finish()?;
//!
//! let file = TeehistorianSlice::parse(&bytes)?;
//! let last = file.messages().last().unwrap()?;
//! assert_eq!(last.tick, 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{EncodeError, ReadError, ReadErrorKind};
use super::format::{FILE_UUID, INPUT_INTS, MAX_CLIENTS};
use super::header::Header;
use super::message::{Args, AuthRole, Ex, Message, has_legacy_packer, input_diff};
use super::reader::{MAX_HEADER_LEN, MAX_MESSAGE_LEN, TickState, parse_header};
use crate::gamenet::Protocol;
use std::fmt;
use std::io::{self, Write};
use std::num::NonZeroU32;
use uuid::Uuid;

/// Buffered bytes beyond which a record hands them to the sink before the tick ends, so
/// that a caller who records a lot without ending ticks (or before the first one) does not
/// grow the buffer without bound. A server tick is far smaller.
const COMMIT_THRESHOLD: usize = 64 * 1024;

/// Console arguments converted on the stack; longer lists are rare enough to allocate.
const STACK_ARGS: usize = 16;

/// The lowest client id a console command may carry. DDNet's console hands the id it runs a
/// command for to the teehistorian unchanged: a client's (`0..MAX_CLIENTS`), or one of its
/// own below 0: -1 (`IConsole::CLIENT_ID_UNSPECIFIED`: the server console, econ, fifo,
/// passed votes), -2 (`CLIENT_ID_GAME`: the map's settings) and -3 (`CLIENT_ID_NO_GAME`:
/// the map's config file).
pub const MIN_CONSOLE_CLIENT_ID: i32 = -3;

/// When the recorder flushes its sink.
///
/// Flushing hands the bytes to the operating system (for a `BufWriter<File>`); it does not
/// `fsync`. Bytes are handed to the sink itself at every [`Recorder::end_tick`] whatever
/// the policy; the policy only decides when [`Write::flush`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FlushPolicy {
    /// Flush at every [`end_tick`](Recorder::end_tick) that wrote something (the header
    /// counts), so a crash leaves every completed tick readable. The default.
    #[default]
    EveryTick,
    /// Flush at every n-th [`end_tick`](Recorder::end_tick): fewer system calls, at most n
    /// ticks lost in a crash.
    EveryNTicks(NonZeroU32),
    /// Never flush before [`finish`](Recorder::finish); the caller calls
    /// [`flush`](Recorder::flush) when it likes.
    Never,
}

/// Where the recorder is in the tick loop; the calls a phase allows are listed per phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Before the first [`begin_tick`](Recorder::begin_tick): records belong to tick 0.
    Start,
    /// After [`end_tick`](Recorder::end_tick): the next call is `begin_tick`.
    BeforeTick,
    /// After `begin_tick`: the next call is `begin_players`.
    BeforePlayers,
    /// After `begin_players`: player records, then `end_players`.
    Players,
    /// After `end_players`: the next call is `begin_inputs`.
    BeforeInputs,
    /// After `begin_inputs`: inputs and events, then `end_inputs`.
    Inputs,
    /// After `end_inputs`: the next call is `end_tick`.
    BeforeEndTick,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Start => "before the first begin_tick",
            Phase::BeforeTick => "after end_tick (expected begin_tick)",
            Phase::BeforePlayers => "after begin_tick (expected begin_players)",
            Phase::Players => "in the players phase (expected player records or end_players)",
            Phase::BeforeInputs => "after end_players (expected begin_inputs)",
            Phase::Inputs => "in the inputs phase (expected inputs, events or end_inputs)",
            Phase::BeforeEndTick => "after end_inputs (expected end_tick)",
        })
    }
}

/// Why a recorder call failed. Each names the call; except for [`RecorderError::Io`], a
/// failed call changed nothing and the recorder can go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecorderError {
    /// The call is not allowed in the current phase of the tick loop.
    #[error("{call} called {phase}")]
    Phase {
        /// The call.
        call: &'static str,
        /// The phase the recorder was in.
        phase: Phase,
    },
    /// Player records of a tick must come in strictly ascending client id order: the tick
    /// rule (is this tick implicit?) depends on it.
    #[error(
        "{call}({cid}) after client id {previous} in the same tick: player records must come in strictly ascending client id order"
    )]
    PlayerOrder {
        /// The call.
        call: &'static str,
        /// Its client id.
        cid: i32,
        /// The client id of the previous player record of the tick.
        previous: i32,
    },
    /// A client id outside the range of the call: `0..MAX_CLIENTS` (128) for every record
    /// of a client, [`MIN_CONSOLE_CLIENT_ID`]`..MAX_CLIENTS` for a console command. No
    /// DDNet server writes another id (readers would take some of them, but not a player
    /// record's), and the recorder keeps per-client state for `0..MAX_CLIENTS`.
    #[error("{call}: client id {cid} is outside {min}..{max}", max = MAX_CLIENTS)]
    ClientIdOutOfRange {
        /// The call.
        call: &'static str,
        /// The client id.
        cid: i32,
        /// The lowest id the call takes (0, or [`MIN_CONSOLE_CLIENT_ID`]).
        min: i32,
    },
    /// The record would be longer than [`MAX_MESSAGE_LEN`], the longest message demokit's
    /// readers accept (a network message, string or antibot payload of about 1 MiB).
    #[error(
        "{call}: the record would take {len} bytes, beyond MAX_MESSAGE_LEN ({limit}), the longest a reader accepts",
        limit = MAX_MESSAGE_LEN
    )]
    MessageTooLong {
        /// The call.
        call: &'static str,
        /// The length of the encoded record.
        len: usize,
    },
    /// `begin_tick` with a tick not above the previous one (ticks start at 1).
    #[error("begin_tick({tick}): ticks must increase, and the previous one was {previous}")]
    TickNotIncreasing {
        /// The tick asked for.
        tick: i32,
        /// The previous tick (0 before the first).
        previous: i32,
    },
    /// The record cannot be encoded, e.g. a string with a NUL byte.
    #[error("{call}: {source}")]
    Encode {
        /// The call.
        call: &'static str,
        /// Why.
        #[source]
        source: EncodeError,
    },
    /// The sink failed. How much of the failed write reached it is unknown, so the recorder
    /// writes nothing more: later calls return [`RecorderError::Poisoned`]. Everything up to
    /// the previous successful write is a readable file without FINISH.
    #[error("{call}: writing to the sink failed: {source}")]
    Io {
        /// The call during which the sink failed.
        call: &'static str,
        /// The sink's error.
        #[source]
        source: io::Error,
    },
    /// A call after the sink failed.
    #[error("{call}: refused, an earlier write to the sink failed")]
    Poisoned {
        /// The call.
        call: &'static str,
    },
    /// The header is not one a reader accepts (not a JSON object, a version other than "1"
    /// and "2", or longer than [`MAX_HEADER_LEN`]); nothing was written.
    #[error("new: the header is not one a reader accepts: {0}")]
    Header(#[source] ReadError),
}

/// What the recorder remembers of one client, to decide what to write next time.
#[derive(Debug, Clone, Copy, Default)]
struct Client {
    /// Whether the last player record saw a character.
    alive: bool,
    /// The character's position at that record.
    x: i32,
    y: i32,
    /// The unique client id of the stored input; 0 means none (DDNet's convention).
    unique_client_id: u32,
    /// The last input written.
    input: [i32; INPUT_INTS],
    /// The last team written (0 at the start).
    team: i32,
}

/// Records a teehistorian file to any [`Write`], append-only, with DDNet's rules for what
/// to write. See the [module documentation](self) for the rules and the tick loop.
pub struct Recorder<W: Write> {
    sink: W,
    /// Encoded messages not yet handed to the sink (the current tick's, mostly).
    buf: Vec<u8>,
    policy: FlushPolicy,
    phase: Phase,
    /// The tick begun last (DDNet's `m_Tick`).
    tick: i32,
    /// The last tick that has bytes (DDNet's `m_LastWrittenTick`).
    last_written_tick: i32,
    /// Whether the current tick has been written, implicitly or by TICK_SKIP.
    tick_written: bool,
    /// Highest client id written in this tick's player section, -1 for none yet (DDNet's
    /// `m_MaxClientId`; `MAX_CLIENTS` = 128 before the first tick).
    max_written_cid: i32,
    /// `max_written_cid` of the previous tick: a first record above it needs a TICK_SKIP.
    prev_max_written_cid: i32,
    /// The client id of the previous player call of this tick, written or not, -1 for none:
    /// the order check covers every call, not only those that happen to write.
    last_player_cid: i32,
    clients: [Client; MAX_CLIENTS as usize],
    /// Teams in practice mode, sorted (few, and no hashing needed).
    practice: Vec<i32>,
    /// The tick numbering a reader will apply to what has been recorded: a cross-check of
    /// the rules above.
    reader_ticks: TickState,
    /// Bytes handed to the sink.
    position: u64,
    /// Whether bytes were handed to the sink since the last flush.
    unflushed: bool,
    /// Ticks ended since the last flush, for [`FlushPolicy::EveryNTicks`].
    ticks_since_flush: u32,
    /// Set when the sink failed: nothing more is written.
    poisoned: bool,
    /// The header names DDNet's old 2 KiB packer: readers take some long console commands
    /// for cut ones, so those are refused.
    legacy_packer: bool,
    /// Where such a command is encoded for that check (kept, so that it allocates once).
    scratch: Vec<u8>,
}

impl<W: Write> fmt::Debug for Recorder<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("phase", &self.phase)
            .field("tick", &self.tick)
            .field("last_written_tick", &self.last_written_tick)
            .field("position", &self.position)
            .field("buffered", &self.buf.len())
            .field("policy", &self.policy)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

impl<W: Write> Recorder<W> {
    /// Writes the file UUID and `header` the way DDNet does ([`Header::write_json`]) and
    /// returns a recorder at tick 0. The header should say version `"2"` (version 1 has no
    /// EX messages).
    pub fn new(sink: W, header: &Header) -> Result<Self, RecorderError> {
        let mut buf = Vec::with_capacity(4096);
        buf.extend_from_slice(&FILE_UUID);
        header.write_json(&mut buf);
        Self::start(sink, buf)
    }

    /// Writes the file UUID, `json` as it is and the NUL: for a header built elsewhere or
    /// copied from another file byte for byte. `json` must not contain a NUL byte.
    pub fn with_header_json(sink: W, json: &[u8]) -> Result<Self, RecorderError> {
        if json.contains(&0) {
            return Err(RecorderError::Encode {
                call: "with_header_json",
                source: EncodeError::NulInString {
                    what: "header JSON",
                },
            });
        }
        let mut buf = Vec::with_capacity((FILE_UUID.len() + json.len() + 1).max(4096));
        buf.extend_from_slice(&FILE_UUID);
        buf.extend_from_slice(json);
        Self::start(sink, buf)
    }

    /// Writes the header (in `buf`, still without its NUL) and sets up DDNet's initial
    /// state: tick 0 counts as written ("the game starts at tick 1") and the previous
    /// tick's highest client id is `MAX_CLIENTS`, so that tick 1 can be implicit.
    fn start(mut sink: W, mut buf: Vec<u8>) -> Result<Self, RecorderError> {
        // `buf` starts with the file UUID.
        let json = buf.get(FILE_UUID.len()..).unwrap_or_default();
        if json.len() > MAX_HEADER_LEN {
            // The readers look for the header's NUL within that many bytes.
            return Err(RecorderError::Header(ReadError::new(
                FILE_UUID.len() as u64,
                ReadErrorKind::HeaderTooLong,
            )));
        }
        let header = parse_header(json).map_err(RecorderError::Header)?;
        let legacy_packer = has_legacy_packer(&header.version, header.version_minor.as_deref());
        buf.push(0);
        if let Err(source) = sink.write_all(&buf) {
            return Err(RecorderError::Io {
                call: "new",
                source,
            });
        }
        let position = buf.len() as u64;
        buf.clear();
        Ok(Recorder {
            sink,
            buf,
            policy: FlushPolicy::default(),
            phase: Phase::Start,
            tick: 0,
            last_written_tick: 0,
            tick_written: true,
            max_written_cid: MAX_CLIENTS,
            prev_max_written_cid: MAX_CLIENTS,
            last_player_cid: -1,
            clients: [Client::default(); MAX_CLIENTS as usize],
            practice: Vec::new(),
            reader_ticks: TickState::new(),
            position,
            unflushed: true,
            ticks_since_flush: 0,
            poisoned: false,
            legacy_packer,
            scratch: Vec::new(),
        })
    }

    /// Sets the flush policy (builder style).
    pub fn with_flush_policy(mut self, policy: FlushPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Changes the flush policy from now on.
    pub fn set_flush_policy(&mut self, policy: FlushPolicy) {
        self.policy = policy;
        self.ticks_since_flush = 0;
    }

    /// The flush policy.
    pub fn flush_policy(&self) -> FlushPolicy {
        self.policy
    }

    /// The current phase of the tick loop.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The tick begun last (0 before the first `begin_tick`).
    pub fn tick(&self) -> i32 {
        self.tick
    }

    /// The tick numbering a reader will be at after everything recorded so far (buffered
    /// bytes included).
    pub fn tick_state(&self) -> TickState {
        self.reader_ticks
    }

    /// Bytes handed to the sink so far, header included.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Bytes recorded but not yet handed to the sink (they go at the next `end_tick`).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Whether the sink failed; the recorder then refuses every call.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// The sink, as far as it has been written.
    pub fn get_ref(&self) -> &W {
        &self.sink
    }

    // ---- the tick loop ----

    /// Starts tick `tick`, which must be above the previous one. Nothing is written until
    /// something is recorded in it.
    pub fn begin_tick(&mut self, tick: i32) -> Result<(), RecorderError> {
        const CALL: &str = "begin_tick";
        self.live(CALL)?;
        self.expect_phase(CALL, &[Phase::Start, Phase::BeforeTick])?;
        if tick <= self.tick {
            return Err(RecorderError::TickNotIncreasing {
                tick,
                previous: self.tick,
            });
        }
        self.tick = tick;
        self.tick_written = false;
        self.phase = Phase::BeforePlayers;
        Ok(())
    }

    /// Opens the players phase.
    pub fn begin_players(&mut self) -> Result<(), RecorderError> {
        const CALL: &str = "begin_players";
        self.live(CALL)?;
        self.expect_phase(CALL, &[Phase::BeforePlayers])?;
        self.prev_max_written_cid = self.max_written_cid;
        self.max_written_cid = -1;
        self.last_player_cid = -1;
        self.phase = Phase::Players;
        Ok(())
    }

    /// Records that client `cid` has a character at (`x`, `y`): PLAYER_NEW if it had none,
    /// PLAYER_DIFF if it moved, nothing if it stood still. Player records of a tick must
    /// come in strictly ascending client id order.
    pub fn record_player(&mut self, cid: i32, x: i32, y: i32) -> Result<(), RecorderError> {
        const CALL: &str = "record_player";
        self.player_call(CALL, cid)?;
        let prev = *client_mut(&mut self.clients, CALL, cid)?;
        if !prev.alive || prev.x != x || prev.y != y {
            let message = if prev.alive {
                Message::PlayerDiff {
                    cid,
                    dx: x.wrapping_sub(prev.x),
                    dy: y.wrapping_sub(prev.y),
                }
            } else {
                Message::PlayerNew { cid, x, y }
            };
            self.emit(CALL, &message, Some(cid))?;
        }
        self.last_player_cid = cid;
        *client_mut(&mut self.clients, CALL, cid)? = Client {
            alive: true,
            x,
            y,
            ..prev
        };
        Ok(())
    }

    /// Records that client `cid` has no character: PLAYER_OLD if it had one, else nothing.
    /// Same order rule as [`record_player`](Self::record_player).
    pub fn record_dead_player(&mut self, cid: i32) -> Result<(), RecorderError> {
        const CALL: &str = "record_dead_player";
        self.player_call(CALL, cid)?;
        if client_mut(&mut self.clients, CALL, cid)?.alive {
            self.emit(CALL, &Message::PlayerOld { cid }, Some(cid))?;
        }
        self.last_player_cid = cid;
        client_mut(&mut self.clients, CALL, cid)?.alive = false;
        Ok(())
    }

    /// Closes the players phase.
    pub fn end_players(&mut self) -> Result<(), RecorderError> {
        const CALL: &str = "end_players";
        self.live(CALL)?;
        self.expect_phase(CALL, &[Phase::Players])?;
        self.phase = Phase::BeforeInputs;
        Ok(())
    }

    /// Opens the inputs phase, where the server records inputs and network events until
    /// the next tick.
    pub fn begin_inputs(&mut self) -> Result<(), RecorderError> {
        const CALL: &str = "begin_inputs";
        self.live(CALL)?;
        self.expect_phase(CALL, &[Phase::BeforeInputs])?;
        self.phase = Phase::Inputs;
        Ok(())
    }

    /// Closes the inputs phase.
    pub fn end_inputs(&mut self) -> Result<(), RecorderError> {
        const CALL: &str = "end_inputs";
        self.live(CALL)?;
        self.expect_phase(CALL, &[Phase::Inputs])?;
        self.phase = Phase::BeforeEndTick;
        Ok(())
    }

    /// Ends the tick: hands its bytes to the sink in one `write_all` and flushes as the
    /// [`FlushPolicy`] says.
    pub fn end_tick(&mut self) -> Result<(), RecorderError> {
        const CALL: &str = "end_tick";
        self.live(CALL)?;
        self.expect_phase(CALL, &[Phase::BeforeEndTick])?;
        self.phase = Phase::BeforeTick;
        self.commit(CALL)?;
        let flush = match self.policy {
            FlushPolicy::EveryTick => true,
            FlushPolicy::EveryNTicks(n) => {
                self.ticks_since_flush += 1;
                self.ticks_since_flush >= n.get()
            }
            FlushPolicy::Never => false,
        };
        if flush {
            self.ticks_since_flush = 0;
            if self.unflushed {
                self.flush_sink(CALL)?;
            }
        }
        Ok(())
    }

    // ---- records allowed in any phase ----

    /// Records client `cid`'s input: INPUT_NEW if `unique_client_id` differs from the one
    /// stored for this client id, else INPUT_DIFF with the wrapping difference, or nothing
    /// if the input is unchanged.
    ///
    /// The stored id starts as 0, which DDNet reserves for "no client": with a non-zero id
    /// a client's first input is written whole. (With 0 it would be diffed against an
    /// all-zero input, as DDNet would do too.)
    ///
    /// A server records each client's input for the next tick in the inputs phase; like
    /// DDNet the recorder accepts it in any phase.
    pub fn record_player_input(
        &mut self,
        cid: i32,
        unique_client_id: u32,
        input: &[i32; INPUT_INTS],
    ) -> Result<(), RecorderError> {
        const CALL: &str = "record_player_input";
        self.live(CALL)?;
        let prev = *client_mut(&mut self.clients, CALL, cid)?;
        let message = if prev.unique_client_id == unique_client_id {
            if prev.input == *input {
                return Ok(());
            }
            Message::InputDiff {
                cid,
                diff: input_diff(&prev.input, input),
            }
        } else {
            Message::InputNew { cid, input: *input }
        };
        self.emit(CALL, &message, None)?;
        let client = client_mut(&mut self.clients, CALL, cid)?;
        client.unique_client_id = unique_client_id;
        client.input = *input;
        Ok(())
    }

    /// Records a network message client `cid` sent (MESSAGE): the packed message as
    /// received, starting with the int `(msgid << 1) | sys`.
    pub fn record_player_message(&mut self, cid: i32, data: &[u8]) -> Result<(), RecorderError> {
        self.record_client(
            "record_player_message",
            cid,
            &Message::NetMessage { cid, data },
        )
    }

    /// Records that client `cid` joined with `protocol` (a 0.6/DDNet or a 0.7 client): EX
    /// JOINVER6 or JOINVER7, then JOIN.
    pub fn record_player_join(
        &mut self,
        cid: i32,
        protocol: Protocol,
    ) -> Result<(), RecorderError> {
        const CALL: &str = "record_player_join";
        self.record_client(CALL, cid, &Message::Ex(join_version(cid, protocol)))?;
        self.record(CALL, &Message::Join { cid })
    }

    /// Records that client `cid` left or was dropped (DROP).
    pub fn record_player_drop(&mut self, cid: i32, reason: &str) -> Result<(), RecorderError> {
        self.record_client(
            "record_player_drop",
            cid,
            &Message::Drop {
                cid,
                reason: reason.into(),
            },
        )
    }

    /// Records an executed console command (CONSOLE_COMMAND): the client id (a client's, or
    /// DDNet's console's own: -1 for the server, -2 and -3 for the map's settings and config
    /// file, down to [`MIN_CONSOLE_CLIENT_ID`]), the console's flag mask, the command name
    /// and its arguments.
    pub fn record_console_command(
        &mut self,
        cid: i32,
        flag_mask: i32,
        cmd: &str,
        args: &[&str],
    ) -> Result<(), RecorderError> {
        const CALL: &str = "record_console_command";
        self.live(CALL)?;
        if !(MIN_CONSOLE_CLIENT_ID..MAX_CLIENTS).contains(&cid) {
            return Err(RecorderError::ClientIdOutOfRange {
                call: CALL,
                cid,
                min: MIN_CONSOLE_CLIENT_ID,
            });
        }
        // The format layer takes byte strings; convert on the stack in the common case.
        let mut stack: [&[u8]; STACK_ARGS] = [&[]; STACK_ARGS];
        let heap: Vec<&[u8]>;
        let list: &[&[u8]] = if args.len() <= STACK_ARGS {
            for (slot, arg) in stack.iter_mut().zip(args) {
                *slot = arg.as_bytes();
            }
            stack.get(..args.len()).unwrap_or_default()
        } else {
            heap = args.iter().map(|arg| arg.as_bytes()).collect();
            &heap
        };
        let message = Message::ConsoleCommand {
            cid,
            flags: flag_mask,
            cmd: cmd.into(),
            args: Args::list(list),
        };
        if self.legacy_packer {
            let bytes = &mut self.scratch;
            bytes.clear();
            put(CALL, &message, bytes)?;
            if Message::decode_cut_console_command(bytes).is_some() {
                return Err(RecorderError::Encode {
                    call: CALL,
                    source: EncodeError::ReadsAsCutConsoleCommand,
                });
            }
        }
        self.record(CALL, &message)
    }

    // ---- EX records ----

    /// Records an EX message as given, including extensions this crate does not type
    /// ([`Ex::Unknown`]). PLAYER_TEAM and TEAM_PRACTICE are written unconditionally here but
    /// update the state that [`record_player_team`](Self::record_player_team) and
    /// [`record_team_practice`](Self::record_team_practice) compare against.
    ///
    /// Its client ids are written as given (readers take any in an EX record, and a copy of
    /// a file must keep them); only its length is checked, as for every record.
    pub fn record_ex(&mut self, ex: &Ex<'_>) -> Result<(), RecorderError> {
        const CALL: &str = "record_ex";
        self.record(CALL, &Message::Ex(*ex))?;
        match *ex {
            Ex::PlayerTeam { cid, team } => {
                if let Ok(client) = client_mut(&mut self.clients, CALL, cid) {
                    client.team = team;
                }
            }
            Ex::TeamPractice { team, practice } => self.set_practice(team, practice != 0),
            _ => {}
        }
        Ok(())
    }

    /// EX `teehistorian-test@ddnet.tw` (empty payload), as DDNet's tests write.
    pub fn record_test_extra(&mut self) -> Result<(), RecorderError> {
        self.record_typed_ex("record_test_extra", Ex::Test)
    }

    /// EX DDNETVER_OLD: a client's DDNet version number (clients that send no connection
    /// id).
    pub fn record_ddnet_version_old(
        &mut self,
        cid: i32,
        ddnet_version: i32,
    ) -> Result<(), RecorderError> {
        self.record_client_ex(
            "record_ddnet_version_old",
            cid,
            Ex::DdnetVersionOld { cid, ddnet_version },
        )
    }

    /// EX DDNETVER: a client's connection id, DDNet version number and version string.
    pub fn record_ddnet_version(
        &mut self,
        cid: i32,
        connection_id: Uuid,
        ddnet_version: i32,
        version_str: &str,
    ) -> Result<(), RecorderError> {
        self.record_client_ex(
            "record_ddnet_version",
            cid,
            Ex::DdnetVersion {
                cid,
                connection_id,
                ddnet_version,
                version_str: version_str.into(),
            },
        )
    }

    /// EX AUTH_INIT: a client authenticated when joining, at `level` (DDNet: 1 helper,
    /// 2 moderator, 3 admin) as `auth_name`.
    pub fn record_auth_initial(
        &mut self,
        cid: i32,
        level: i32,
        auth_name: &str,
    ) -> Result<(), RecorderError> {
        self.record_client_ex(
            "record_auth_initial",
            cid,
            Ex::AuthInit {
                cid,
                level,
                auth_name: auth_name.into(),
            },
        )
    }

    /// EX AUTH_LOGIN: a client logged in to the remote console at `level` (DDNet up to
    /// 20.x: 1 helper, 2 moderator, 3 admin).
    pub fn record_auth_login(
        &mut self,
        cid: i32,
        level: i32,
        auth_name: &str,
    ) -> Result<(), RecorderError> {
        self.record_client_ex(
            "record_auth_login",
            cid,
            Ex::AuthLogin {
                cid,
                role: AuthRole::Level(level),
                auth_name: auth_name.into(),
            },
        )
    }

    /// EX AUTH_INIT_ROLE: a client authenticated when joining, with the rcon role `role`
    /// (by name, as DDNet writes it since #12788) as `auth_name`.
    pub fn record_auth_initial_role(
        &mut self,
        cid: i32,
        role: &str,
        auth_name: &str,
    ) -> Result<(), RecorderError> {
        self.record_client_ex(
            "record_auth_initial_role",
            cid,
            Ex::AuthInitRole {
                cid,
                role: role.into(),
                auth_name: auth_name.into(),
            },
        )
    }

    /// EX AUTH_LOGIN with the rcon role `role` by name, as DDNet writes it since #12788.
    pub fn record_auth_login_role(
        &mut self,
        cid: i32,
        role: &str,
        auth_name: &str,
    ) -> Result<(), RecorderError> {
        self.record_client_ex(
            "record_auth_login_role",
            cid,
            Ex::AuthLogin {
                cid,
                role: AuthRole::Name(role.into()),
                auth_name: auth_name.into(),
            },
        )
    }

    /// EX AUTH_LOGOUT: a client logged out of the remote console.
    pub fn record_auth_logout(&mut self, cid: i32) -> Result<(), RecorderError> {
        self.record_client_ex("record_auth_logout", cid, Ex::AuthLogout { cid })
    }

    /// EX JOINVER6 or JOINVER7 alone. [`record_player_join`](Self::record_player_join)
    /// writes it with the JOIN that follows, as DDNet does.
    pub fn record_join_version(
        &mut self,
        cid: i32,
        protocol: Protocol,
    ) -> Result<(), RecorderError> {
        self.record_client_ex("record_join_version", cid, join_version(cid, protocol))
    }

    /// EX PLAYER_SWITCH (`teehistorian-player-swap`): two players swapped places.
    pub fn record_player_swap(&mut self, cid1: i32, cid2: i32) -> Result<(), RecorderError> {
        const CALL: &str = "record_player_swap";
        self.live(CALL)?;
        client_slot(CALL, cid1)?;
        self.record_client_ex(CALL, cid2, Ex::PlayerSwitch { cid1, cid2 })
    }

    /// EX SAVE_SUCCESS: `team` was saved as `save_id`, serialized as `team_save`.
    pub fn record_team_save_success(
        &mut self,
        team: i32,
        save_id: Uuid,
        team_save: &str,
    ) -> Result<(), RecorderError> {
        self.record_typed_ex(
            "record_team_save_success",
            Ex::SaveSuccess {
                team,
                save_id,
                team_save: team_save.into(),
            },
        )
    }

    /// EX SAVE_FAILURE: saving `team` failed.
    pub fn record_team_save_failure(&mut self, team: i32) -> Result<(), RecorderError> {
        self.record_typed_ex("record_team_save_failure", Ex::SaveFailure { team })
    }

    /// EX LOAD_SUCCESS: `team` was loaded from `save_id`, serialized as `team_save`.
    pub fn record_team_load_success(
        &mut self,
        team: i32,
        save_id: Uuid,
        team_save: &str,
    ) -> Result<(), RecorderError> {
        self.record_typed_ex(
            "record_team_load_success",
            Ex::LoadSuccess {
                team,
                save_id,
                team_save: team_save.into(),
            },
        )
    }

    /// EX LOAD_FAILURE: loading `team` failed.
    pub fn record_team_load_failure(&mut self, team: i32) -> Result<(), RecorderError> {
        self.record_typed_ex("record_team_load_failure", Ex::LoadFailure { team })
    }

    /// EX PLAYER_TEAM, only if client `cid`'s team differs from the last one recorded
    /// (every client starts in team 0). A server calls this for every client every tick.
    pub fn record_player_team(&mut self, cid: i32, team: i32) -> Result<(), RecorderError> {
        const CALL: &str = "record_player_team";
        self.live(CALL)?;
        if client_mut(&mut self.clients, CALL, cid)?.team != team {
            self.record_typed_ex(CALL, Ex::PlayerTeam { cid, team })?;
            client_mut(&mut self.clients, CALL, cid)?.team = team;
        }
        Ok(())
    }

    /// EX TEAM_PRACTICE, only if `team`'s practice mode differs from the last one recorded
    /// (every team starts without).
    pub fn record_team_practice(&mut self, team: i32, practice: bool) -> Result<(), RecorderError> {
        const CALL: &str = "record_team_practice";
        self.live(CALL)?;
        if self.practice.binary_search(&team).is_ok() != practice {
            self.record_typed_ex(
                CALL,
                Ex::TeamPractice {
                    team,
                    practice: i32::from(practice),
                },
            )?;
            self.set_practice(team, practice);
        }
        Ok(())
    }

    /// EX PLAYER_READY: a client finished connecting and is ready.
    pub fn record_player_ready(&mut self, cid: i32) -> Result<(), RecorderError> {
        self.record_client_ex("record_player_ready", cid, Ex::PlayerReady { cid })
    }

    /// EX PLAYER_REJOIN (`teehistorian-rejoinver6`): a 0.6 client rejoined without
    /// reconnecting.
    pub fn record_player_rejoin(&mut self, cid: i32) -> Result<(), RecorderError> {
        self.record_client_ex("record_player_rejoin", cid, Ex::PlayerRejoin { cid })
    }

    /// EX ANTIBOT: opaque bytes from the antibot module.
    pub fn record_antibot(&mut self, data: &[u8]) -> Result<(), RecorderError> {
        self.record_typed_ex("record_antibot", Ex::Antibot { data })
    }

    /// EX PLAYER_NAME: client `cid`'s name.
    pub fn record_player_name(&mut self, cid: i32, name: &str) -> Result<(), RecorderError> {
        self.record_client_ex(
            "record_player_name",
            cid,
            Ex::PlayerName {
                cid,
                name: name.into(),
            },
        )
    }

    /// EX PLAYER_FINISH: client `cid` finished the race in `time_ticks` ticks.
    pub fn record_player_finish(&mut self, cid: i32, time_ticks: i32) -> Result<(), RecorderError> {
        self.record_client_ex(
            "record_player_finish",
            cid,
            Ex::PlayerFinish {
                cid,
                time: time_ticks,
            },
        )
    }

    /// EX TEAM_FINISH: `team` finished the race in `time_ticks` ticks.
    pub fn record_team_finish(&mut self, team: i32, time_ticks: i32) -> Result<(), RecorderError> {
        self.record_typed_ex(
            "record_team_finish",
            Ex::TeamFinish {
                team,
                time: time_ticks,
            },
        )
    }

    // ---- ending ----

    /// Hands buffered bytes to the sink and flushes it, whatever the policy.
    pub fn flush(&mut self) -> Result<(), RecorderError> {
        const CALL: &str = "flush";
        self.live(CALL)?;
        self.commit(CALL)?;
        self.flush_sink(CALL)
    }

    /// Closes whatever phase is open, writes FINISH, flushes and returns the sink.
    ///
    /// Like DDNet's `Finish`, FINISH does not make the current tick explicit: a tick in
    /// which nothing was recorded still costs no bytes.
    pub fn finish(mut self) -> Result<W, RecorderError> {
        const CALL: &str = "finish";
        self.live(CALL)?;
        // Closing the phases writes nothing; only the phase itself changes.
        self.phase = Phase::BeforeTick;
        put(CALL, &Message::Finish, &mut self.buf)?;
        self.check_reader_tick(&Message::Finish);
        self.commit(CALL)?;
        self.flush_sink(CALL)?;
        Ok(self.sink)
    }

    /// Hands buffered bytes to the sink, flushes it and returns it without writing FINISH:
    /// the file a server leaves when it stops without finishing (readers report a
    /// truncation at the end).
    pub fn into_inner(mut self) -> Result<W, RecorderError> {
        const CALL: &str = "into_inner";
        self.live(CALL)?;
        self.commit(CALL)?;
        self.flush_sink(CALL)?;
        Ok(self.sink)
    }

    /// Returns the sink as it is, dropping buffered bytes and writing nothing: for taking
    /// the sink back after [`RecorderError::Io`].
    pub fn abandon(self) -> W {
        self.sink
    }

    // ---- internals ----

    /// Refuses every call once the sink has failed.
    fn live(&self, call: &'static str) -> Result<(), RecorderError> {
        if self.poisoned {
            Err(RecorderError::Poisoned { call })
        } else {
            Ok(())
        }
    }

    fn expect_phase(&self, call: &'static str, allowed: &[Phase]) -> Result<(), RecorderError> {
        if allowed.contains(&self.phase) {
            Ok(())
        } else {
            Err(RecorderError::Phase {
                call,
                phase: self.phase,
            })
        }
    }

    /// The checks every player record makes before touching any state.
    fn player_call(&self, call: &'static str, cid: i32) -> Result<usize, RecorderError> {
        self.live(call)?;
        self.expect_phase(call, &[Phase::Players])?;
        let slot = client_slot(call, cid)?;
        if cid <= self.last_player_cid {
            return Err(RecorderError::PlayerOrder {
                call,
                cid,
                previous: self.last_player_cid,
            });
        }
        Ok(slot)
    }

    fn record_typed_ex(&mut self, call: &'static str, ex: Ex<'_>) -> Result<(), RecorderError> {
        self.record(call, &Message::Ex(ex))
    }

    /// [`record_client`](Self::record_client) for an EX record.
    fn record_client_ex(
        &mut self,
        call: &'static str,
        cid: i32,
        ex: Ex<'_>,
    ) -> Result<(), RecorderError> {
        self.record_client(call, cid, &Message::Ex(ex))
    }

    /// [`record`](Self::record) for a record of client `cid`, which must be one of DDNet's
    /// client slots: checked before anything is encoded, so that a refused record does not
    /// make the tick explicit either.
    fn record_client(
        &mut self,
        call: &'static str,
        cid: i32,
        message: &Message<'_>,
    ) -> Result<(), RecorderError> {
        self.live(call)?;
        client_slot(call, cid)?;
        self.emit(call, message, None)
    }

    /// Records anything but a player record: DDNet's `EnsureTickWritten` rule.
    fn record(&mut self, call: &'static str, message: &Message<'_>) -> Result<(), RecorderError> {
        self.live(call)?;
        self.emit(call, message, None)
    }

    /// Appends `message` to the buffer, preceded by a TICK_SKIP when the current tick has to
    /// be made explicit. `player_cid` is the client id of a player record, which may leave
    /// the tick implicit (DDNet's `EnsureTickWrittenPlayerData`); other records make an
    /// unwritten tick explicit (`EnsureTickWritten`).
    ///
    /// The message is encoded first so that a refused one (a NUL in a string) leaves the
    /// buffer and the tick state as they were.
    fn emit(
        &mut self,
        call: &'static str,
        message: &Message<'_>,
        player_cid: Option<i32>,
    ) -> Result<(), RecorderError> {
        let start = self.buf.len();
        put(call, message, &mut self.buf)?;
        let explicit = !self.tick_written
            && match player_cid {
                // The reader opens a new tick at a player record whose cid is not above the
                // previous record's; that only works for the very next tick, and only if
                // this cid is not above the highest one of the previous player section.
                Some(cid) => {
                    cid > self.prev_max_written_cid || self.tick - self.last_written_tick != 1
                }
                None => true,
            };
        if let Some(cid) = player_cid {
            self.max_written_cid = cid;
        }
        if explicit {
            let skip = Message::TickSkip {
                dt: self.tick - self.last_written_tick - 1,
            };
            let message_end = self.buf.len();
            if let Err(e) = put(call, &skip, &mut self.buf) {
                // Cannot happen (a TICK_SKIP is two ints), but never leave half a record.
                self.buf.truncate(start);
                return Err(e);
            }
            // The TICK_SKIP goes before the message.
            let skip_len = self.buf.len() - message_end;
            if let Some(record) = self.buf.get_mut(start..) {
                record.rotate_right(skip_len);
            }
            self.tick_written = true;
            self.last_written_tick = self.tick;
            self.check_reader_tick(&skip);
        } else {
            self.tick_written = true;
            self.last_written_tick = self.tick;
        }
        self.check_reader_tick(message);
        if self.buf.len() >= COMMIT_THRESHOLD {
            self.commit(call)?;
        }
        Ok(())
    }

    /// Advances the reader's tick numbering over a message just recorded and checks that a
    /// reader will put it at the tick it was recorded in.
    fn check_reader_tick(&mut self, message: &Message<'_>) {
        let reader_tick = self.reader_ticks.apply(message);
        debug_assert_eq!(
            reader_tick,
            Ok(self.last_written_tick),
            "a reader would misplace {message:?}"
        );
    }

    fn set_practice(&mut self, team: i32, practice: bool) {
        match (self.practice.binary_search(&team), practice) {
            (Err(at), true) => self.practice.insert(at, team),
            (Ok(at), false) => {
                self.practice.remove(at);
            }
            _ => {}
        }
    }

    /// Hands the buffered bytes to the sink in one `write_all`.
    fn commit(&mut self, call: &'static str) -> Result<(), RecorderError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let result = self.sink.write_all(&self.buf);
        let len = self.buf.len();
        self.buf.clear();
        match result {
            Ok(()) => {
                self.position += len as u64;
                self.unflushed = true;
                Ok(())
            }
            Err(source) => {
                self.poisoned = true;
                Err(RecorderError::Io { call, source })
            }
        }
    }

    fn flush_sink(&mut self, call: &'static str) -> Result<(), RecorderError> {
        match self.sink.flush() {
            Ok(()) => {
                self.unflushed = false;
                Ok(())
            }
            Err(source) => {
                self.poisoned = true;
                Err(RecorderError::Io { call, source })
            }
        }
    }
}

/// The index of the per-client state of `cid`.
/// Client `cid`'s state, or [`client_slot`]'s error for an id out of range.
fn client_mut<'c>(
    clients: &'c mut [Client; MAX_CLIENTS as usize],
    call: &'static str,
    cid: i32,
) -> Result<&'c mut Client, RecorderError> {
    let slot = client_slot(call, cid)?;
    clients
        .get_mut(slot)
        .ok_or(RecorderError::ClientIdOutOfRange { call, cid, min: 0 })
}

fn client_slot(call: &'static str, cid: i32) -> Result<usize, RecorderError> {
    usize::try_from(cid)
        .ok()
        .filter(|&slot| slot < MAX_CLIENTS as usize)
        .ok_or(RecorderError::ClientIdOutOfRange { call, cid, min: 0 })
}

fn join_version(cid: i32, protocol: Protocol) -> Ex<'static> {
    match protocol {
        Protocol::Six => Ex::JoinVer6 { cid },
        Protocol::Seven => Ex::JoinVer7 { cid },
    }
}

/// Encodes `message` onto `buf` (unchanged on error), refusing a message longer than the
/// readers take.
fn put(call: &'static str, message: &Message<'_>, buf: &mut Vec<u8>) -> Result<(), RecorderError> {
    let start = buf.len();
    message
        .encode(buf)
        .map_err(|source| RecorderError::Encode { call, source })?;
    let len = buf.len() - start;
    if len > MAX_MESSAGE_LEN {
        buf.truncate(start);
        // The buffer is reused for every tick: do not keep the room a refused record took.
        buf.shrink_to(COMMIT_THRESHOLD);
        return Err(RecorderError::MessageTooLong { call, len });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorder() -> Recorder<Vec<u8>> {
        Recorder::with_header_json(Vec::new(), br#"{"version":"2"}"#).unwrap()
    }

    fn body(rec: Recorder<Vec<u8>>) -> Vec<u8> {
        let header_len = FILE_UUID.len() + br#"{"version":"2"}"#.len() + 1;
        rec.into_inner().unwrap()[header_len..].to_vec()
    }

    #[test]
    fn phase_misuse_is_an_error_that_changes_nothing() {
        let mut rec = recorder();
        assert!(matches!(
            rec.record_player(0, 1, 2),
            Err(RecorderError::Phase {
                call: "record_player",
                phase: Phase::Start
            })
        ));
        assert!(matches!(
            rec.end_tick(),
            Err(RecorderError::Phase {
                call: "end_tick",
                ..
            })
        ));
        rec.begin_tick(1).unwrap();
        assert!(matches!(
            rec.begin_tick(2),
            Err(RecorderError::Phase {
                phase: Phase::BeforePlayers,
                ..
            })
        ));
        rec.begin_players().unwrap();
        rec.record_player(3, 1, 2).unwrap();
        let err = rec.record_player(3, 1, 2).unwrap_err();
        assert!(matches!(
            err,
            RecorderError::PlayerOrder {
                cid: 3,
                previous: 3,
                ..
            }
        ));
        assert!(err.to_string().contains("record_player(3)"), "{err}");
        assert!(matches!(
            rec.record_dead_player(128),
            Err(RecorderError::ClientIdOutOfRange { cid: 128, .. })
        ));
        assert!(matches!(
            rec.record_player_input(-1, 1, &[0; 10]),
            Err(RecorderError::ClientIdOutOfRange { cid: -1, .. })
        ));
        assert!(matches!(
            rec.record_player_drop(0, "a\0b"),
            Err(RecorderError::Encode { .. })
        ));
        rec.record_dead_player(4).unwrap();
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
        assert!(matches!(
            rec.begin_tick(1),
            Err(RecorderError::TickNotIncreasing {
                tick: 1,
                previous: 1
            })
        ));
        // Only the PLAYER_NEW: the refused calls left no bytes behind.
        assert_eq!(body(rec), [0x42, 0x03, 0x01, 0x02]);
    }

    #[test]
    fn refused_string_does_not_make_the_tick_explicit() {
        let mut rec = recorder();
        rec.begin_tick(1).unwrap();
        rec.begin_players().unwrap();
        assert!(rec.record_player_name(0, "\0").is_err());
        rec.record_player(0, 5, 6).unwrap();
        assert_eq!(body(rec), [0x42, 0x00, 0x05, 0x06]);
    }

    #[test]
    fn console_commands_with_many_arguments() {
        let args: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        for n in [0, 1, STACK_ARGS, args.len()] {
            let mut rec = recorder();
            rec.record_console_command(-1, 36, "echo", &args[..n])
                .unwrap();
            let bytes = body(rec);
            let decoded = Message::decode(&bytes).unwrap();
            assert_eq!(decoded.len, bytes.len());
            let Message::ConsoleCommand { cid, args: got, .. } = decoded.message else {
                panic!("{decoded:?}");
            };
            assert_eq!(cid, -1);
            assert!(
                got.iter()
                    .map(|a| a.0)
                    .eq(args[..n].iter().map(|a| a.as_bytes()))
            );
        }
    }

    #[test]
    fn team_and_practice_only_on_change() {
        let mut rec = recorder();
        rec.record_player_team(1, 0).unwrap();
        rec.record_team_practice(5, false).unwrap();
        assert_eq!(rec.buffered(), 0);
        rec.record_player_team(1, 2).unwrap();
        rec.record_player_team(1, 2).unwrap();
        rec.record_team_practice(5, true).unwrap();
        rec.record_team_practice(5, true).unwrap();
        // record_ex writes unconditionally and keeps the state in step.
        rec.record_ex(&Ex::PlayerTeam { cid: 1, team: 0 }).unwrap();
        rec.record_player_team(1, 0).unwrap();
        rec.record_ex(&Ex::TeamPractice {
            team: 5,
            practice: 0,
        })
        .unwrap();
        rec.record_team_practice(5, false).unwrap();
        let bytes = body(rec);
        let mut kinds = Vec::new();
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            let d = Message::decode(rest).unwrap();
            kinds.push(d.message);
            rest = &rest[d.len..];
        }
        assert_eq!(
            kinds,
            [
                Message::Ex(Ex::PlayerTeam { cid: 1, team: 2 }),
                Message::Ex(Ex::TeamPractice {
                    team: 5,
                    practice: 1
                }),
                Message::Ex(Ex::PlayerTeam { cid: 1, team: 0 }),
                Message::Ex(Ex::TeamPractice {
                    team: 5,
                    practice: 0
                }),
            ]
        );
    }

    /// A record of a client id outside DDNet's slots, or longer than the readers take, is
    /// refused before anything is encoded or the tick made explicit; the longest record a
    /// reader takes is written, and the buffer does not keep the room of a refused one.
    #[test]
    fn refuses_what_readers_or_ddnet_would_not_have() {
        let mut rec = recorder();
        rec.begin_tick(1).unwrap();
        for cid in [MAX_CLIENTS, -1, i32::MIN] {
            let errors = [
                rec.record_player_message(cid, b"x"),
                rec.record_player_join(cid, Protocol::Six),
                rec.record_join_version(cid, Protocol::Seven),
                rec.record_player_drop(cid, ""),
                rec.record_ddnet_version_old(cid, 1),
                rec.record_ddnet_version(cid, Uuid::nil(), 1, ""),
                rec.record_auth_initial(cid, 1, ""),
                rec.record_auth_login(cid, 1, ""),
                rec.record_auth_logout(cid),
                rec.record_player_swap(cid, 0),
                rec.record_player_swap(0, cid),
                rec.record_player_ready(cid),
                rec.record_player_rejoin(cid),
                rec.record_player_name(cid, ""),
                rec.record_player_finish(cid, 1),
                rec.record_player_team(cid, 1),
                rec.record_player_input(cid, 1, &[0; INPUT_INTS]),
            ];
            for e in errors {
                assert!(
                    matches!(e, Err(RecorderError::ClientIdOutOfRange { cid: c, min: 0, .. }) if c == cid),
                    "{e:?}"
                );
            }
        }
        for cid in [MIN_CONSOLE_CLIENT_ID - 1, MAX_CLIENTS] {
            let e = rec.record_console_command(cid, 0, "echo", &[]).unwrap_err();
            assert!(e.to_string().contains("outside -3..128"), "{e}");
        }
        let big = vec![b'a'; MAX_MESSAGE_LEN];
        let big_str = std::str::from_utf8(&big).unwrap();
        for e in [
            rec.record_player_message(0, &big),
            rec.record_antibot(&big),
            rec.record_player_name(0, big_str),
            rec.record_console_command(-1, 0, "echo", &[big_str]),
        ] {
            assert!(
                matches!(e, Err(RecorderError::MessageTooLong { len, .. }) if len > MAX_MESSAGE_LEN),
                "{e:?}"
            );
        }
        assert_eq!(rec.buffered(), 0);
        assert!(rec.buf.capacity() <= COMMIT_THRESHOLD);
        // MESSAGE: its id and client id take a byte each, a length below 2^20 three.
        rec.record_player_message(0, &big[..MAX_MESSAGE_LEN - 5])
            .unwrap();
        for cid in [MIN_CONSOLE_CLIENT_ID, -1, MAX_CLIENTS - 1] {
            rec.record_console_command(cid, 0, "echo", &[]).unwrap();
        }
        let file = rec.finish().unwrap();
        assert!(super::super::summary::validate(&file).accepted());
        let slice = super::super::TeehistorianSlice::parse(&file).unwrap();
        let lens: Vec<usize> = slice.messages().map(|m| m.unwrap().raw.len()).collect();
        // TICK_SKIP, the MESSAGE, three console commands, FINISH.
        assert_eq!(lens[..2], [2, MAX_MESSAGE_LEN]);
        assert_eq!(lens.len(), 6);

        // A header the readers would not find the end of.
        let json = format!(
            r#"{{"version":"2","comment":"{}"}}"#,
            "a".repeat(MAX_HEADER_LEN)
        );
        assert!(matches!(
            Recorder::with_header_json(Vec::new(), json.as_bytes()),
            Err(RecorderError::Header(ReadError {
                kind: ReadErrorKind::HeaderTooLong,
                ..
            }))
        ));
    }

    #[test]
    fn large_buffers_are_handed_on_before_the_tick_ends() {
        let mut rec = recorder().with_flush_policy(FlushPolicy::Never);
        let start = rec.position();
        let data = vec![7u8; 1000];
        for _ in 0..(COMMIT_THRESHOLD / 1000 + 1) {
            rec.record_antibot(&data).unwrap();
        }
        assert!(rec.position() > start);
        assert!(rec.buffered() < COMMIT_THRESHOLD);
    }
}
