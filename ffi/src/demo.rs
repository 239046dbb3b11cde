//! The demo recorder for C: start on a file with the header fields and the map, then tick
//! markers, snapshots, deltas, messages and timeline markers, then finish.

use crate::error::*;
use demokit::codec::huffman::LengthRule;
use demokit::twdemo::{Recorder, RecorderConfig, Snapshot, WriteError};
use std::ffi::c_char;
use std::fs::File;
use std::io::BufWriter;

/// The header fields of a demo. Null strings take DDNet's defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DemokitDemoConfig {
    /// Format version 3 to 6; 0 means 6 (DDNet's).
    pub version: u8,
    /// The network version; null: DDNet's `"0.6 626fce9a778df4d4"`.
    pub net_version: *const c_char,
    /// The map's name (required).
    pub map_name: *const c_char,
    /// `"client"` or `"server"`; null: `"client"`.
    pub kind: *const c_char,
    /// The recording's start, `"%Y-%m-%d_%H-%M-%S"` in DDNet (required).
    pub timestamp: *const c_char,
    /// True for the trailing-byte Huffman length rule of writers before DDNet 20.1; false
    /// for DDNet 20.1's tight streams.
    pub huffman_trailing_byte: bool,
}

/// A demo recorder (opaque). Made by `demokit_demo_recorder_start`, freed by
/// `demokit_demo_close`. Like every handle (see `DemokitThRecorder`), a closed one is
/// refused with `DEMOKIT_STATUS_CLOSED_HANDLE` and a second close does nothing, without
/// touching freed memory; after `demokit_demo_finish` it stays live until closed.
pub struct DemokitDemoRecorder {
    /// `None` once finished.
    recorder: Option<Recorder<BufWriter<File>>>,
}

fn write_failure(e: WriteError) -> Failure {
    // The demo recorder has no call order to break (finishing is checked before it is
    // reached): what it refuses is an argument.
    let status = match &e {
        WriteError::Io(_) => DemokitStatus::Io,
        _ => DemokitStatus::InvalidArgument,
    };
    Failure::new(status, e.to_string())
}

/// Creates (or truncates) the demo file at `path` and writes its header and the
/// `map_len` bytes of the map at `map`. The header says length 0 and no timeline markers
/// until `demokit_demo_finish`, so a recording cut off by a crash still reads (and
/// `demokit repair` finishes it).
///
/// # Safety
/// `path` is NUL-terminated; `config` points to a config whose non-null strings are
/// NUL-terminated; `map` points to `map_len` bytes (null only with `map_len` 0); `out`
/// points to writable storage for a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_recorder_start(
    path: *const c_char,
    config: *const DemokitDemoConfig,
    map: *const u8,
    map_len: usize,
    out: *mut *mut DemokitDemoRecorder,
) -> DemokitStatus {
    guard("demokit_demo_recorder_start", || {
        non_null(out as *const _, "out")?;
        // SAFETY: the contract above.
        let config = unsafe { *non_null(config, "config")? };
        // SAFETY: the contract above, for every string and the map.
        let (path, map_name, timestamp, net_version, kind, map) = unsafe {
            (
                str_arg(path, "path")?,
                str_arg(config.map_name, "config.map_name")?,
                str_arg(config.timestamp, "config.timestamp")?,
                opt_str_arg(config.net_version, "config.net_version")?,
                opt_str_arg(config.kind, "config.kind")?,
                slice_arg(map, map_len, "map")?,
            )
        };
        let mut rust_config = RecorderConfig::ddnet(map_name, timestamp);
        if config.version != 0 {
            rust_config.version = config.version;
        }
        if let Some(net_version) = net_version {
            rust_config.net_version = net_version.to_owned();
        }
        if let Some(kind) = kind {
            rust_config.kind = kind.to_owned();
        }
        if config.huffman_trailing_byte {
            rust_config.huffman_rule = LengthRule::TrailingByte;
        }
        let file = File::create(path)
            .map_err(|e| Failure::new(DemokitStatus::Io, format!("cannot create {path:?}: {e}")))?;
        let recorder =
            Recorder::start(BufWriter::new(file), &rust_config, map).map_err(write_failure)?;
        // SAFETY: `out` checked above.
        unsafe {
            put_handle(
                out,
                DemokitDemoRecorder {
                    recorder: Some(recorder),
                },
            )
        };
        Ok(())
    })
}

/// Runs `f` on the live recorder behind `rec`, inside an enclosing [`guard`].
///
/// # Safety
/// `rec` is null or a recorder handle (checked), used by no other call meanwhile.
unsafe fn run(
    rec: *mut DemokitDemoRecorder,
    f: impl FnOnce(&mut Recorder<BufWriter<File>>) -> Result<(), WriteError>,
) -> Result<(), Failure> {
    // SAFETY: the contract above.
    let handle = unsafe { handle_arg(rec, "recorder")? };
    f(live(&mut handle.recorder)?).map_err(write_failure)
}

/// Writes a tick marker for `tick`; `keyframe` when a full snapshot follows. The form
/// (one byte or absolute) is chosen as DDNet's recorder chooses it.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_record_tick_marker(
    rec: *mut DemokitDemoRecorder,
    tick: i32,
    keyframe: bool,
) -> DemokitStatus {
    guard("demokit_demo_record_tick_marker", || {
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_tick_marker(tick, keyframe)) }
    })
}

/// Writes a snapshot chunk holding these ints (a whole snapshot as DDNet stores it).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `ints` points to `len` ints (null
/// only with `len` 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_record_snapshot_ints(
    rec: *mut DemokitDemoRecorder,
    ints: *const i32,
    len: usize,
) -> DemokitStatus {
    guard("demokit_demo_record_snapshot_ints", || {
        // SAFETY: the contract above.
        let ints = unsafe { slice_arg(ints, len, "ints")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_snapshot_ints(ints)) }
    })
}
/// Writes a snapshot-delta chunk holding these ints.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `ints` points to `len` ints (null
/// only with `len` 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_record_delta_ints(
    rec: *mut DemokitDemoRecorder,
    ints: *const i32,
    len: usize,
) -> DemokitStatus {
    guard("demokit_demo_record_delta_ints", || {
        // SAFETY: the contract above.
        let ints = unsafe { slice_arg(ints, len, "ints")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_delta_ints(ints)) }
    })
}

/// Records the full snapshot of `tick` (`len` ints as DDNet stores a snapshot) as DDNet's
/// `RecordSnapshot` does: a keyframe first and after more than 250 ticks, otherwise a delta
/// against the last written snapshot, only the tick marker when nothing changed.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `ints` points to `len` ints.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_record_snapshot(
    rec: *mut DemokitDemoRecorder,
    tick: i32,
    ints: *const i32,
    len: usize,
) -> DemokitStatus {
    guard("demokit_demo_record_snapshot", || {
        // SAFETY: the contract above.
        let ints = unsafe { slice_arg(ints, len, "ints")? };
        let snapshot = Snapshot::parse(ints).map_err(|e| {
            Failure::new(
                DemokitStatus::InvalidArgument,
                format!("not a valid snapshot: {e}"),
            )
        })?;
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_snapshot(tick, snapshot)) }
    })
}

/// Writes a message chunk of `len` bytes (a network message as the client received it;
/// padded to whole ints as DDNet pads it).
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `data` points to `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_record_message(
    rec: *mut DemokitDemoRecorder,
    data: *const u8,
    len: usize,
) -> DemokitStatus {
    guard("demokit_demo_record_message", || {
        // SAFETY: the contract above.
        let data = unsafe { slice_arg(data, len, "data")? };
        // SAFETY: the contract above.
        unsafe { run(rec, |r| r.record_message(data)) }
    })
}

/// Adds a timeline marker at `tick` (written into the header by `demokit_demo_finish`),
/// under DDNet's rules: at most 64, in increasing order. `*added` (if not null) says
/// whether it was kept.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused); `added` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_add_timeline_marker(
    rec: *mut DemokitDemoRecorder,
    tick: i32,
    added: *mut bool,
) -> DemokitStatus {
    guard("demokit_demo_add_timeline_marker", || {
        let mut kept = false;
        // SAFETY: the contract above.
        unsafe {
            run(rec, |r| {
                kept = r.add_timeline_marker(tick);
                Ok(())
            })?
        };
        if !added.is_null() {
            // SAFETY: non-null and writable by the contract.
            unsafe { *added = kept };
        }
        Ok(())
    })
}

/// Ends the recording: patches the length and timeline markers into the header (as
/// DDNet's `Stop`) and flushes the file. The handle stays valid for `demokit_demo_close`;
/// every other call on it then returns `DEMOKIT_STATUS_OUT_OF_ORDER`.
///
/// # Safety
/// `rec` is a recorder handle (a closed one is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_finish(rec: *mut DemokitDemoRecorder) -> DemokitStatus {
    guard("demokit_demo_finish", || {
        // SAFETY: the contract above.
        let handle = unsafe { handle_arg(rec, "recorder")? };
        let recorder = handle.recorder.take().ok_or_else(finished)?;
        let sink = recorder.finish().map_err(write_failure)?;
        sink.into_inner()
            .map(drop)
            .map_err(|e| Failure::new(DemokitStatus::Io, format!("flushing the demo: {e}")))
    })
}

/// Frees the recorder and closes its file (null is a no-op). A recording not finished
/// keeps the chunks written so far with length 0 in its header, as a crash leaves it.
/// Closing a recorder closed before (or any pointer demokit did not return as a demo
/// recorder) does nothing; `demokit_last_error()` then says so.
///
/// # Safety
/// `rec` is used by no other call meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn demokit_demo_close(rec: *mut DemokitDemoRecorder) {
    guard("demokit_demo_close", || {
        // SAFETY: the contract above. Dropping the BufWriter writes out what it holds.
        drop(unsafe { take_handle(rec, "recorder")? });
        Ok(())
    });
}
