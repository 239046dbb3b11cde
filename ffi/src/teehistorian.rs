//! The teehistorian recorder for C: a header builder, a recorder on a file or a write
//! callback, and one function per call of [`Recorder`]'s tick loop and per EX record.

use crate::error::*;
use demokit::gamenet::Protocol;
use demokit::teehistorian::{FlushPolicy, Header, Recorder, RecorderError};
use std::ffi::{c_char, c_void};
use std::io::{self, Write};
use std::num::NonZeroU32;
use uuid::Uuid;

/// A teehistorian header being built (opaque). Made by `demokit_th_header_new`, freed by
/// `demokit_th_header_free`; a recorder copies what it needs, so the header may be freed
/// once the recorder exists.
///
/// demokit keeps track of the handles it has returned and not freed: a call with a freed
/// header returns `DEMOKIT_STATUS_CLOSED_HANDLE` and a second free does nothing, without
/// touching freed memory (as for every handle: see `DemokitThRecorder`).
pub struct DemokitThHeader {
    header: Header,
}

/// A teehistorian recorder (opaque). Made by `demokit_th_recorder_create_file` or
/// `demokit_th_recorder_create_callback`, freed by `demokit_th_close`.
///
/// A closed handle is a state, not freed memory that is read: demokit keeps track of the
/// handles it has returned and not closed, and looks each one up before using it. A call
/// with a closed handle (or with any pointer demokit did not return) returns
/// `DEMOKIT_STATUS_CLOSED_HANDLE` and a second `demokit_th_close` does nothing; neither
/// reads the memory behind it. After `demokit_th_finish` the handle stays live until it is
/// closed: every call but `demokit_th_close` then returns `DEMOKIT_STATUS_OUT_OF_ORDER`.
///
/// Two things stay undefined. A later handle of the same kind may get the address of a
/// closed one, and a stale pointer to it then names that handle: do not keep pointers
/// after closing them. And calls on one handle must not overlap: not from two threads at
/// once, nor from inside its own write or flush callback.
pub struct DemokitThRecorder {
    /// `None` once finished.
    recorder: Option<Recorder<Sink>>,
}

/// Writes `len` bytes at `data` for `user`; returns 0 when all were written, anything else
/// on failure.
pub type DemokitWriteFn =
    Option<unsafe extern "C" fn(user: *mut c_void, data: *const u8, len: usize) -> i32>;

/// Flushes what `user` has been given; returns 0 on success. May be left null.
pub type DemokitFlushFn = Option<unsafe extern "C" fn(user: *mut c_void) -> i32>;

/// Where the recorder's bytes go.
enum Sink {
    File(std::fs::File),
    Callback {
        write: unsafe extern "C" fn(*mut c_void, *const u8, usize) -> i32,
        flush: DemokitFlushFn,
        user: *mut c_void,
    },
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Callback { write, user, .. } => {
                // SAFETY: the caller of create_callback promised a function that reads
                // `len` bytes at `data` during the call and a `user` it accepts.
                let status = unsafe { write(*user, buf.as_ptr(), buf.len()) };
                if status == 0 {
                    Ok(buf.len())
                } else {
                    Err(io::Error::other(format!(
                        "the write callback returned {status}"
                    )))
                }
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Callback {
                flush: Some(flush),
                user,
                ..
            } => {
                // SAFETY: as for the write callback.
                let status = unsafe { flush(*user) };
                if status == 0 {
                    Ok(())
                } else {
                    Err(io::Error::other(format!(
                        "the flush callback returned {status}"
                    )))
                }
            }
            Sink::Callback { flush: None, .. } => Ok(()),
        }
    }
}

fn recorder_failure(e: RecorderError) -> Failure {
    let status = match &e {
        RecorderError::Phase { .. }
        | RecorderError::PlayerOrder { .. }
        | RecorderError::TickNotIncreasing { .. } => DemokitStatus::OutOfOrder,
        RecorderError::Io { .. } | RecorderError::Poisoned { .. } => DemokitStatus::Io,
        _ => DemokitStatus::InvalidArgument,
    };
    Failure::new(status, e.to_string())
}

fn protocol_arg(protocol: i32) -> Result<Protocol, Failure> {
    match protocol {
        6 => Ok(Protocol::Six),
        7 => Ok(Protocol::Seven),
        other => Err(Failure::new(
            DemokitStatus::InvalidArgument,
            format!("protocol {other}: expected 6 or 7"),
        )),
    }
}

/// The 16 bytes at `uuid`.
///
/// # Safety
/// `uuid` is null (refused) or points to 16 readable bytes.
unsafe fn uuid_arg(uuid: *const u8, what: &str) -> Result<Uuid, Failure> {
    // SAFETY: as the caller promised.
    let bytes = unsafe { slice_arg(non_null(uuid, what)?, 16, what)? };
    let mut out = [0u8; 16];
    out.copy_from_slice(bytes);
    Ok(Uuid::from_bytes(out))
}

// ---- header ----

/// Creates a header of format `version` (`"2"` for every DDNet since 2018; `"1"` has no
/// EX records) with DDNet's comment `"teehistorian@ddnet.tw"`. Free it with
/// `demokit_th_header_free`.
///
/// # Safety
/// `version` is a NUL-terminated string; `out` points to writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_header_new(
    version: *const c_char,
    out: *mut *mut DemokitThHeader,
) -> DemokitStatus {
    guard("demokit_th_header_new", || {
        non_null(out as *const _, "out")?;
        // SAFETY: the contract above.
        let version = unsafe { str_arg(version, "version")? };
        if version != "1" && version != "2" {
            return Err(Failure::new(
                DemokitStatus::InvalidArgument,
                format!("version {version:?}: expected \"1\" or \"2\""),
            ));
        }
        let header = Header {
            comment: Some(demokit::teehistorian::format::COMMENT.into()),
            ..Header::new(version)
        };
        // SAFETY: `out` checked above.
        unsafe { put_handle(out, DemokitThHeader { header }) };
        Ok(())
    })
}

/// Sets a string field of the header by its JSON key: `comment`, `version_minor`,
/// `game_uuid`, `prev_game_uuid`, `server_version`, `start_time`, `server_name`,
/// `server_port`, `game_type`, `map_name`, `map_size`, `map_sha256`, `map_crc`,
/// `prng_description`. DDNet writes them in its own order whatever the order of the calls.
///
/// # Safety
/// `header` is a header handle (a freed one is refused); `key` and `value` are
/// NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_header_set(
    header: *mut DemokitThHeader,
    key: *const c_char,
    value: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_header_set", || {
        // SAFETY: the contract above.
        let (h, key, value) = unsafe {
            (
                &mut handle_arg(header, "header")?.header,
                str_arg(key, "key")?,
                str_arg(value, "value")?,
            )
        };
        let field = match key {
            "comment" => &mut h.comment,
            "version_minor" => &mut h.version_minor,
            "game_uuid" => &mut h.game_uuid,
            "prev_game_uuid" => &mut h.prev_game_uuid,
            "server_version" => &mut h.server_version,
            "start_time" => &mut h.start_time,
            "server_name" => &mut h.server_name,
            "server_port" => &mut h.server_port,
            "game_type" => &mut h.game_type,
            "map_name" => &mut h.map_name,
            "map_size" => &mut h.map_size,
            "map_sha256" => &mut h.map_sha256,
            "map_crc" => &mut h.map_crc,
            "prng_description" => &mut h.prng_description,
            other => {
                return Err(Failure::new(
                    DemokitStatus::InvalidArgument,
                    format!("unknown header key {other:?}"),
                ));
            }
        };
        *field = Some(value.to_owned());
        Ok(())
    })
}

/// Which list of the header an `add` call extends.
enum List {
    Config,
    Tuning,
}

/// # Safety
/// As for the public `add` functions.
unsafe fn add_pair(
    name: &str,
    list: List,
    header: *mut DemokitThHeader,
    key: *const c_char,
    value: *const c_char,
) -> DemokitStatus {
    guard(name, || {
        // SAFETY: the contract of the public functions.
        let (h, key, value) = unsafe {
            (
                &mut handle_arg(header, "header")?.header,
                str_arg(key, "key")?,
                str_arg(value, "value")?,
            )
        };
        let list = match list {
            List::Config => &mut h.config,
            List::Tuning => &mut h.tuning,
        };
        list.get_or_insert_with(Vec::new)
            .push((key.to_owned(), value.to_owned()));
        Ok(())
    })
}

/// Appends a config variable (`sv_name`, `"My server"`) to the header's `config` object,
/// in call order.
///
/// # Safety
/// `header` is a header handle (a freed one is refused); `key` and `value` are
/// NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_header_add_config(
    header: *mut DemokitThHeader,
    key: *const c_char,
    value: *const c_char,
) -> DemokitStatus {
    // SAFETY: the same contract.
    unsafe {
        add_pair(
            "demokit_th_header_add_config",
            List::Config,
            header,
            key,
            value,
        )
    }
}

/// Appends a tuning parameter (`gravity`, `"50"`) to the header's `tuning` object.
///
/// # Safety
/// `header` is a header handle (a freed one is refused); `key` and `value` are
/// NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_header_add_tuning(
    header: *mut DemokitThHeader,
    key: *const c_char,
    value: *const c_char,
) -> DemokitStatus {
    // SAFETY: the same contract.
    unsafe {
        add_pair(
            "demokit_th_header_add_tuning",
            List::Tuning,
            header,
            key,
            value,
        )
    }
}

/// Appends a registered UUID name (`"teehistorian-test@ddnet.tw"`) to the header's
/// `uuids` list.
///
/// # Safety
/// `header` is a header handle (a freed one is refused); `name` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_header_add_uuid(
    header: *mut DemokitThHeader,
    name: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_header_add_uuid", || {
        // SAFETY: the contract above.
        let (h, name) = unsafe {
            (
                &mut handle_arg(header, "header")?.header,
                str_arg(name, "name")?,
            )
        };
        h.uuids.get_or_insert_with(Vec::new).push(name.to_owned());
        Ok(())
    })
}

/// Frees a header; null is a no-op, and so is a header freed before (or any pointer
/// demokit did not return as a header): `demokit_last_error()` then says so.
///
/// # Safety
/// `header` is used by no other call meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_header_free(header: *mut DemokitThHeader) {
    guard("demokit_th_header_free", || {
        // SAFETY: the contract above.
        drop(unsafe { take_handle(header, "header")? });
        Ok(())
    });
}

// ---- recorder ----

/// # Safety
/// `header` is a header handle (checked), used by no other call meanwhile; `out` writable.
unsafe fn create(
    name: &str,
    open: impl FnOnce() -> Result<Sink, Failure>,
    header: *const DemokitThHeader,
    out: *mut *mut DemokitThRecorder,
) -> DemokitStatus {
    guard(name, || {
        non_null(out as *const _, "out")?;
        // SAFETY: the contract above.
        let header = unsafe { &handle_ref(header, "header")?.header };
        let sink = open()?;
        let recorder = Recorder::new(sink, header).map_err(recorder_failure)?;
        // SAFETY: `out` checked above.
        unsafe {
            put_handle(
                out,
                DemokitThRecorder {
                    recorder: Some(recorder),
                },
            )
        };
        Ok(())
    })
}

/// Creates (or truncates) the file at `path` and starts a recording in it: the file UUID
/// and the header are written at once. The recorder flushes at the end of every tick that
/// wrote something, so a crash leaves every completed tick readable.
///
/// # Safety
/// `path` is a NUL-terminated string; `header` a header handle (a freed one is refused);
/// `out` points to writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_recorder_create_file(
    path: *const c_char,
    header: *const DemokitThHeader,
    out: *mut *mut DemokitThRecorder,
) -> DemokitStatus {
    let open = || {
        // SAFETY: `path` is NUL-terminated by the contract above.
        let path = unsafe { str_arg(path, "path")? };
        std::fs::File::create(path)
            .map(Sink::File)
            .map_err(|e| Failure::new(DemokitStatus::Io, format!("cannot create {path:?}: {e}")))
    };
    // SAFETY: the contract above.
    unsafe { create("demokit_th_recorder_create_file", open, header, out) }
}

/// Starts a recording whose bytes go to `write(user, data, len)`; `flush(user)`, if not
/// null, is called where the recorder flushes (the end of each tick by default). Each tick
/// arrives in one `write` call.
///
/// # Safety
/// `write` (and `flush`, if not null) can be called with `user` until `demokit_th_close`;
/// `header` is a header handle (a freed one is refused); `out` points to writable storage
/// for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_recorder_create_callback(
    write: DemokitWriteFn,
    flush: DemokitFlushFn,
    user: *mut c_void,
    header: *const DemokitThHeader,
    out: *mut *mut DemokitThRecorder,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        create(
            "demokit_th_recorder_create_callback",
            || {
                let write = write.ok_or_else(|| {
                    Failure::new(DemokitStatus::NullPointer, "write callback is null")
                })?;
                Ok(Sink::Callback { write, flush, user })
            },
            header,
            out,
        )
    }
}

/// Runs `f` on the live recorder behind `rec`.
///
/// # Safety
/// `rec` is null or a recorder handle (checked), used by no other call meanwhile.
unsafe fn with_recorder(
    name: &str,
    rec: *mut DemokitThRecorder,
    f: impl FnOnce(&mut Recorder<Sink>) -> Result<(), RecorderError>,
) -> DemokitStatus {
    // SAFETY: the contract above.
    guard(name, || unsafe { run(rec, f) })
}

/// Sets how often the recorder flushes: after every `n`-th tick that wrote something
/// (1, the default: no completed tick is lost in a crash), or, with 0, only when
/// `demokit_th_flush` or `demokit_th_finish` is called.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_set_flush_every(
    rec: *mut DemokitThRecorder,
    n_ticks: u32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_set_flush_every", rec, |r| {
            r.set_flush_policy(match NonZeroU32::new(n_ticks) {
                None => FlushPolicy::Never,
                Some(n) if n.get() == 1 => FlushPolicy::EveryTick,
                Some(n) => FlushPolicy::EveryNTicks(n),
            });
            Ok(())
        })
    }
}

/// Starts server tick `tick` (DDNet's `BeginTick`); ticks must increase.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_begin_tick(
    rec: *mut DemokitThRecorder,
    tick: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe { with_recorder("demokit_th_begin_tick", rec, |r| r.begin_tick(tick)) }
}
/// Starts the player records of the tick (`BeginPlayers`).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_begin_players(rec: *mut DemokitThRecorder) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe { with_recorder("demokit_th_begin_players", rec, |r| r.begin_players()) }
}
/// Records a live player's position (`RecordPlayer`), in increasing client id order.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_player(
    rec: *mut DemokitThRecorder,
    cid: i32,
    x: i32,
    y: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_player", rec, |r| {
            r.record_player(cid, x, y)
        })
    }
}
/// Records that a player has no character (`RecordDeadPlayer`).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_dead_player(
    rec: *mut DemokitThRecorder,
    cid: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_dead_player", rec, |r| {
            r.record_dead_player(cid)
        })
    }
}
/// Ends the player records (`EndPlayers`).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_end_players(rec: *mut DemokitThRecorder) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe { with_recorder("demokit_th_end_players", rec, |r| r.end_players()) }
}
/// Starts the input records of the tick (`BeginInputs`).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_begin_inputs(rec: *mut DemokitThRecorder) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe { with_recorder("demokit_th_begin_inputs", rec, |r| r.begin_inputs()) }
}
/// Ends the input records (`EndInputs`).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_end_inputs(rec: *mut DemokitThRecorder) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe { with_recorder("demokit_th_end_inputs", rec, |r| r.end_inputs()) }
}
/// Ends the tick (`EndTick`): the tick's bytes go to the sink in one write.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_end_tick(rec: *mut DemokitThRecorder) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe { with_recorder("demokit_th_end_tick", rec, |r| r.end_tick()) }
}

/// Records a player's input (`RecordPlayerInput`): `input` points to the 10 ints of
/// DDNet's `CNetObj_PlayerInput`; `unique_client_id` tells a reconnected client apart.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `input` points to 10 readable ints.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_input(
    rec: *mut DemokitThRecorder,
    cid: i32,
    unique_client_id: u32,
    input: *const i32,
) -> DemokitStatus {
    guard("demokit_th_record_input", || {
        // SAFETY: the contract above.
        let (handle, ints) = unsafe {
            (
                handle_arg(rec, "recorder")?,
                slice_arg(non_null(input, "input")?, 10, "input")?,
            )
        };
        let mut input = [0i32; 10];
        input.copy_from_slice(ints);
        live(&mut handle.recorder)?
            .record_player_input(cid, unique_client_id, &input)
            .map_err(recorder_failure)
    })
}

/// Records a network message from a player (`RecordPlayerMessage`): `len` bytes at
/// `data` (null only with `len` 0). Like every record, one longer than demokit's readers
/// take (1 MiB with its header) is `DEMOKIT_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `data` points to `len` readable
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_player_message(
    rec: *mut DemokitThRecorder,
    cid: i32,
    data: *const u8,
    len: usize,
) -> DemokitStatus {
    guard("demokit_th_record_player_message", || {
        // SAFETY: the contract above.
        let data = unsafe { slice_arg(data, len, "data")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_player_message(cid, data)) }
    })
}

/// The recorder behind `rec`, running `f` inside an enclosing [`guard`].
///
/// # Safety
/// `rec` is null or a recorder handle (checked), used by no other call meanwhile.
unsafe fn run(
    rec: *mut DemokitThRecorder,
    f: impl FnOnce(&mut Recorder<Sink>) -> Result<(), RecorderError>,
) -> Result<(), Failure> {
    // SAFETY: the contract above.
    let handle = unsafe { handle_arg(rec, "recorder")? };
    f(live(&mut handle.recorder)?).map_err(recorder_failure)
}

/// Records a player joining (`RecordPlayerJoin`) with its protocol, 6 or 7: EX joinver6
/// or joinver7, then JOIN.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_join(
    rec: *mut DemokitThRecorder,
    cid: i32,
    protocol: i32,
) -> DemokitStatus {
    guard("demokit_th_record_join", || {
        let protocol = protocol_arg(protocol)?;
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_player_join(cid, protocol)) }
    })
}

/// Records the EX joinver6 or joinver7 record alone (`RecordPlayerJoin`'s first half, as
/// DDNet writes it for a client that reconnects).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_join_version(
    rec: *mut DemokitThRecorder,
    cid: i32,
    protocol: i32,
) -> DemokitStatus {
    guard("demokit_th_record_join_version", || {
        let protocol = protocol_arg(protocol)?;
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_join_version(cid, protocol)) }
    })
}

/// Records a player leaving (`RecordPlayerDrop`) with the reason DDNet gives.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `reason` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_drop(
    rec: *mut DemokitThRecorder,
    cid: i32,
    reason: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_record_drop", || {
        // SAFETY: the contract above.
        let reason = unsafe { str_arg(reason, "reason")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_player_drop(cid, reason)) }
    })
}

/// Records a console command (`RecordConsoleCommand`): `cid` as DDNet's console gives it
/// (a client's, 0..128, or the console's own: -1 the server console, -2 the map's settings,
/// -3 the map's config file; any other is `DEMOKIT_STATUS_INVALID_ARGUMENT`), DDNet's flag
/// mask, the command and `nargs` arguments.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `cmd` is NUL-terminated; `args`
/// points to `nargs` NUL-terminated strings (null only with `nargs` 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_console_command(
    rec: *mut DemokitThRecorder,
    cid: i32,
    flag_mask: i32,
    cmd: *const c_char,
    args: *const *const c_char,
    nargs: usize,
) -> DemokitStatus {
    guard("demokit_th_record_console_command", || {
        // SAFETY: the contract above.
        let cmd = unsafe { str_arg(cmd, "cmd")? };
        // SAFETY: the contract above.
        let pointers = unsafe { slice_arg(args, nargs, "args")? };
        let mut list = Vec::with_capacity(pointers.len());
        for (i, &p) in pointers.iter().enumerate() {
            // SAFETY: each is NUL-terminated by the contract.
            list.push(unsafe { str_arg(p, &format!("args[{i}]"))? });
        }
        // SAFETY: the contract above.
        unsafe {
            run(rec, |r| {
                r.record_console_command(cid, flag_mask, cmd, &list)
            })
        }
    })
}

/// EX `teehistorian-test@ddnet.tw`: the test record DDNet writes in its tests.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_test_extra(
    rec: *mut DemokitThRecorder,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_test_extra", rec, |r| {
            r.record_test_extra()
        })
    }
}
/// EX `teehistorian-ddnetver-old@ddnet.tw`: a client's DDNet version, old form.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_ddnet_version_old(
    rec: *mut DemokitThRecorder,
    cid: i32,
    ddnet_version: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_ddnet_version_old", rec, |r| {
            r.record_ddnet_version_old(cid, ddnet_version)
        })
    }
}

/// EX `teehistorian-ddnetver@ddnet.tw`: a client's connection id (16 bytes), DDNet
/// version number and version string.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `connection_id` points to 16
/// bytes; `version_str` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_ddnet_version(
    rec: *mut DemokitThRecorder,
    cid: i32,
    connection_id: *const u8,
    ddnet_version: i32,
    version_str: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_record_ddnet_version", || {
        // SAFETY: the contract above.
        let (id, s) = unsafe {
            (
                uuid_arg(connection_id, "connection_id")?,
                str_arg(version_str, "version_str")?,
            )
        };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_ddnet_version(cid, id, ddnet_version, s)) }
    })
}

/// EX `teehistorian-auth-init@ddnet.tw`: a client authenticated at connection.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `auth_name` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_auth_initial(
    rec: *mut DemokitThRecorder,
    cid: i32,
    level: i32,
    auth_name: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_record_auth_initial", || {
        // SAFETY: the contract above.
        let auth_name = unsafe { str_arg(auth_name, "auth_name")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_auth_initial(cid, level, auth_name)) }
    })
}
/// EX `teehistorian-auth-login@ddnet.tw`: a client logged in.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `auth_name` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_auth_login(
    rec: *mut DemokitThRecorder,
    cid: i32,
    level: i32,
    auth_name: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_record_auth_login", || {
        // SAFETY: the contract above.
        let auth_name = unsafe { str_arg(auth_name, "auth_name")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_auth_login(cid, level, auth_name)) }
    })
}
/// EX `teehistorian-auth-init-role@ddnet.tw`: a client authenticated at connection, with
/// its rcon role by name (DDNet #12788).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `role` and `auth_name` are
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_auth_initial_role(
    rec: *mut DemokitThRecorder,
    cid: i32,
    role: *const c_char,
    auth_name: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_record_auth_initial_role", || {
        // SAFETY: the contract above.
        let role = unsafe { str_arg(role, "role")? };
        // SAFETY: the contract above.
        let auth_name = unsafe { str_arg(auth_name, "auth_name")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_auth_initial_role(cid, role, auth_name)) }
    })
}
/// EX `teehistorian-auth-login@ddnet.tw` with the rcon role by name (DDNet #12788).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `role` and `auth_name` are
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_auth_login_role(
    rec: *mut DemokitThRecorder,
    cid: i32,
    role: *const c_char,
    auth_name: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_record_auth_login_role", || {
        // SAFETY: the contract above.
        let role = unsafe { str_arg(role, "role")? };
        // SAFETY: the contract above.
        let auth_name = unsafe { str_arg(auth_name, "auth_name")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_auth_login_role(cid, role, auth_name)) }
    })
}
/// EX `teehistorian-auth-logout@ddnet.tw`: a client logged out.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_auth_logout(
    rec: *mut DemokitThRecorder,
    cid: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_auth_logout", rec, |r| {
            r.record_auth_logout(cid)
        })
    }
}
/// EX `teehistorian-player-swap@ddnet.tw`: two players swapped places.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_player_swap(
    rec: *mut DemokitThRecorder,
    cid1: i32,
    cid2: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_player_swap", rec, |r| {
            r.record_player_swap(cid1, cid2)
        })
    }
}

/// # Safety
/// As for the public save/load functions.
unsafe fn team_save_load(
    name: &str,
    rec: *mut DemokitThRecorder,
    team: i32,
    save_id: *const u8,
    team_save: *const c_char,
    load: bool,
) -> DemokitStatus {
    guard(name, || {
        // SAFETY: the public contract.
        let (id, s) = unsafe {
            (
                uuid_arg(save_id, "save_id")?,
                str_arg(team_save, "team_save")?,
            )
        };
        // SAFETY: the public contract.
        unsafe {
            run(rec, |r| {
                if load {
                    r.record_team_load_success(team, id, s)
                } else {
                    r.record_team_save_success(team, id, s)
                }
            })
        }
    })
}

/// EX `teehistorian-save-success@ddnet.tw`: a team was saved under `save_id` (16 bytes)
/// with the save string.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `save_id` points to 16 bytes;
/// `team_save` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_team_save_success(
    rec: *mut DemokitThRecorder,
    team: i32,
    save_id: *const u8,
    team_save: *const c_char,
) -> DemokitStatus {
    // SAFETY: the same contract.
    unsafe {
        team_save_load(
            "demokit_th_record_team_save_success",
            rec,
            team,
            save_id,
            team_save,
            false,
        )
    }
}

/// EX `teehistorian-load-success@ddnet.tw`: a team was loaded from `save_id` (16 bytes).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `save_id` points to 16 bytes;
/// `team_save` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_team_load_success(
    rec: *mut DemokitThRecorder,
    team: i32,
    save_id: *const u8,
    team_save: *const c_char,
) -> DemokitStatus {
    // SAFETY: the same contract.
    unsafe {
        team_save_load(
            "demokit_th_record_team_load_success",
            rec,
            team,
            save_id,
            team_save,
            true,
        )
    }
}

/// EX `teehistorian-save-failure@ddnet.tw`: saving a team failed.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_team_save_failure(
    rec: *mut DemokitThRecorder,
    team: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_team_save_failure", rec, |r| {
            r.record_team_save_failure(team)
        })
    }
}
/// EX `teehistorian-load-failure@ddnet.tw`: loading a team failed.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_team_load_failure(
    rec: *mut DemokitThRecorder,
    team: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_team_load_failure", rec, |r| {
            r.record_team_load_failure(team)
        })
    }
}
/// EX `teehistorian-player-team@ddnet.tw`: a player changed team.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_player_team(
    rec: *mut DemokitThRecorder,
    cid: i32,
    team: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_player_team", rec, |r| {
            r.record_player_team(cid, team)
        })
    }
}
/// EX `teehistorian-team-practice@ddnet.tw`: a team's practice mode changed.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_team_practice(
    rec: *mut DemokitThRecorder,
    team: i32,
    practice: bool,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_team_practice", rec, |r| {
            r.record_team_practice(team, practice)
        })
    }
}
/// EX `teehistorian-player-ready@ddnet.tw`: a player is ready.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_player_ready(
    rec: *mut DemokitThRecorder,
    cid: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_player_ready", rec, |r| {
            r.record_player_ready(cid)
        })
    }
}
/// EX `teehistorian-rejoinver6@ddnet.org`: a 0.6 player rejoined.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_player_rejoin(
    rec: *mut DemokitThRecorder,
    cid: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_player_rejoin", rec, |r| {
            r.record_player_rejoin(cid)
        })
    }
}
/// EX `teehistorian-player-name@ddnet.org`: a player's name.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `name` is NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_player_name(
    rec: *mut DemokitThRecorder,
    cid: i32,
    name: *const c_char,
) -> DemokitStatus {
    guard("demokit_th_record_player_name", || {
        // SAFETY: the contract above.
        let name = unsafe { str_arg(name, "name")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_player_name(cid, name)) }
    })
}
/// EX `teehistorian-player-finish@ddnet.org`: a player finished in `time_ticks`.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_player_finish(
    rec: *mut DemokitThRecorder,
    cid: i32,
    time_ticks: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_player_finish", rec, |r| {
            r.record_player_finish(cid, time_ticks)
        })
    }
}
/// EX `teehistorian-team-finish@ddnet.org`: a team finished in `time_ticks`.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_team_finish(
    rec: *mut DemokitThRecorder,
    team: i32,
    time_ticks: i32,
) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe {
        with_recorder("demokit_th_record_team_finish", rec, |r| {
            r.record_team_finish(team, time_ticks)
        })
    }
}

/// EX `teehistorian-antibot@ddnet.org`: `len` bytes of the antibot module's data.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `data` points to `len` readable
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_record_antibot(
    rec: *mut DemokitThRecorder,
    data: *const u8,
    len: usize,
) -> DemokitStatus {
    guard("demokit_th_record_antibot", || {
        // SAFETY: the contract above.
        let data = unsafe { slice_arg(data, len, "data")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_antibot(data)) }
    })
}

/// Writes what is buffered to the sink and flushes it.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_flush(rec: *mut DemokitThRecorder) -> DemokitStatus {
    // SAFETY: the contract above.
    unsafe { with_recorder("demokit_th_flush", rec, |r| r.flush()) }
}

/// Ends the recording: writes FINISH and flushes. The handle stays valid for
/// `demokit_th_close`; every other call on it then returns `DEMOKIT_STATUS_OUT_OF_ORDER`.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_finish(rec: *mut DemokitThRecorder) -> DemokitStatus {
    guard("demokit_th_finish", || {
        // SAFETY: the contract above.
        let handle = unsafe { handle_arg(rec, "recorder")? };
        let recorder = handle.recorder.take().ok_or_else(finished)?;
        recorder.finish().map(drop).map_err(recorder_failure)
    })
}

/// Frees the recorder and closes its file (null is a no-op). A recording not finished is
/// left as a crash would leave it: every tick that was flushed stays readable, and nothing
/// more is written (no FINISH). Closing a recorder closed before (or any pointer demokit
/// did not return as a recorder) does nothing; `demokit_last_error()` then says so.
///
/// # Safety
/// `rec` is used by no other call meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_th_close(rec: *mut DemokitThRecorder) {
    guard("demokit_th_close", || {
        // SAFETY: the contract above.
        if let Some(handle) = unsafe { take_handle(rec, "recorder")? }
            && let Some(recorder) = handle.recorder
        {
            drop(recorder.abandon());
        }
        Ok(())
    });
}
