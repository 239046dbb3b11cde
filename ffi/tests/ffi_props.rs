//! Property: any sequence of calls with any arguments through the C ABI (out of order, bad
//! client ids, invalid UTF-8, huge values) gives the same statuses and the same bytes as
//! the same calls on the Rust recorders, and never reaches a panic (no
//! `DEMOKIT_STATUS_INTERNAL`). Each call is refused or writes what the readers read: a
//! client id outside the call's range is never accepted, and the file (payloads of up to
//! just over the readers' 1 MiB limit included) reads back without error and validates, to
//! FINISH when the recording was finished, else up to its last complete message.

use demokit::gamenet::Protocol;
use demokit::teehistorian::reader::MAX_MESSAGE_LEN;
use demokit::teehistorian::recorder::MIN_CONSOLE_CLIENT_ID;
use demokit::teehistorian::{self as th};
use demokit::twdemo::{self as tw, Snapshot};
use demokit_ffi::*;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::ffi::{CString, c_void};
use std::io::Cursor;

fn config() -> ProptestConfig {
    // PROPTEST_CASES scales the cases, as for the other property tests; failing cases are
    // kept beside theirs.
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/proptest-regressions/ffi_props.txt"
        )))),
        ..ProptestConfig::default()
    }
}

/// A string argument: usually UTF-8, sometimes not (never with a NUL, which C cannot pass).
fn text() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z ]{0,12}".prop_map(String::into_bytes),
        1 => prop::collection::vec(1u8..=255, 0..8),
    ]
}

/// Client ids: mostly a few low ones, then both ends of a 128-slot server and past them.
fn cid() -> impl Strategy<Value = i32> {
    prop_oneof![8 => 0..4i32, 1 => -5..70i32, 1 => 120..132i32, 1 => any::<i32>()]
}

/// Payloads: mostly short, sometimes about as long as the longest message a reader takes
/// (`MAX_MESSAGE_LEN`), on either side of it.
fn payload() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => prop::collection::vec(any::<u8>(), 0..16),
        1 => (MAX_MESSAGE_LEN - 24..MAX_MESSAGE_LEN + 4).prop_map(|n| vec![0x42; n]),
    ]
}

/// The 16 bytes of DDNet version records' connection id.
const CONNECTION_ID: [u8; 16] = [7; 16];

#[derive(Debug, Clone)]
enum ThOp {
    BeginTick(i32),
    BeginPlayers,
    Player(i32, i32, i32),
    DeadPlayer(i32),
    EndPlayers,
    BeginInputs,
    Input(i32, u32, [i32; 10]),
    EndInputs,
    EndTick,
    Message(i32, Vec<u8>),
    Join(i32, i32),
    JoinVersion(i32, i32),
    Drop(i32, Vec<u8>),
    Command(i32, i32, Vec<u8>, Vec<Vec<u8>>),
    DdnetVersionOld(i32, i32),
    DdnetVersion(i32, i32, Vec<u8>),
    AuthInit(i32, i32, Vec<u8>),
    AuthLogin(i32, i32, Vec<u8>),
    AuthLogout(i32),
    Swap(i32, i32),
    PlayerName(i32, Vec<u8>),
    PlayerTeam(i32, i32),
    Ready(i32),
    Rejoin(i32),
    PlayerFinish(i32, i32),
    Practice(i32, bool),
    Antibot(Vec<u8>),
    Finish,
}

impl ThOp {
    /// Whether the call's client ids are ones it takes: `0..128`, or for a console command
    /// down to -3; `None` for calls without one.
    fn cids_in_range(&self) -> Option<bool> {
        let slot = |cid: &i32| (0..128).contains(cid);
        Some(match self {
            ThOp::Player(c, ..)
            | ThOp::DeadPlayer(c)
            | ThOp::Input(c, ..)
            | ThOp::Message(c, _)
            | ThOp::Join(c, _)
            | ThOp::JoinVersion(c, _)
            | ThOp::Drop(c, _)
            | ThOp::DdnetVersionOld(c, _)
            | ThOp::DdnetVersion(c, ..)
            | ThOp::AuthInit(c, ..)
            | ThOp::AuthLogin(c, ..)
            | ThOp::AuthLogout(c)
            | ThOp::PlayerName(c, _)
            | ThOp::PlayerTeam(c, _)
            | ThOp::Ready(c)
            | ThOp::Rejoin(c)
            | ThOp::PlayerFinish(c, _) => slot(c),
            ThOp::Swap(a, b) => slot(a) && slot(b),
            ThOp::Command(c, ..) => (MIN_CONSOLE_CLIENT_ID..128).contains(c),
            _ => return None,
        })
    }
}

/// A whole tick in the order the tick loop wants, with players in ascending order: most of
/// the bytes come from these.
fn th_tick() -> impl Strategy<Value = Vec<ThOp>> {
    (
        prop::collection::btree_map(0..6i32, (-50..50i32, -50..50i32), 0..4),
        prop::collection::vec((0..6i32, 0..3u32, any::<[i32; 10]>()), 0..3),
    )
        .prop_map(|(players, inputs)| {
            let mut ops = vec![ThOp::BeginTick(1), ThOp::BeginPlayers];
            ops.extend(
                players
                    .into_iter()
                    .map(|(cid, (x, y))| ThOp::Player(cid, x, y)),
            );
            ops.extend([ThOp::EndPlayers, ThOp::BeginInputs]);
            ops.extend(inputs.into_iter().map(|(c, u, i)| ThOp::Input(c, u, i)));
            ops.extend([ThOp::EndInputs, ThOp::EndTick]);
            ops
        })
}

/// Calls in any order, mixed with whole ticks.
fn th_ops() -> impl Strategy<Value = Vec<ThOp>> {
    prop::collection::vec(
        prop_oneof![2 => th_op().prop_map(|op| vec![op]), 1 => th_tick()],
        0..40,
    )
    .prop_map(|chunks| chunks.concat())
}

fn th_op() -> impl Strategy<Value = ThOp> {
    prop_oneof![
        3 => (0..3i32).prop_map(ThOp::BeginTick),
        3 => Just(ThOp::BeginPlayers),
        6 => (cid(), -1000..1000i32, any::<i32>()).prop_map(|(c, x, y)| ThOp::Player(c, x, y)),
        1 => cid().prop_map(ThOp::DeadPlayer),
        3 => Just(ThOp::EndPlayers),
        3 => Just(ThOp::BeginInputs),
        3 => (cid(), 0..3u32, any::<[i32; 10]>()).prop_map(|(c, u, i)| ThOp::Input(c, u, i)),
        3 => Just(ThOp::EndInputs),
        3 => Just(ThOp::EndTick),
        1 => (cid(), payload()).prop_map(|(c, d)| ThOp::Message(c, d)),
        1 => (cid(), 5..9i32).prop_map(|(c, p)| ThOp::Join(c, p)),
        1 => (cid(), 5..9i32).prop_map(|(c, p)| ThOp::JoinVersion(c, p)),
        1 => (cid(), text()).prop_map(|(c, r)| ThOp::Drop(c, r)),
        1 => (prop_oneof![2 => -1..4i32, 1 => cid()], any::<i32>(), text(), prop::collection::vec(text(), 0..3))
            .prop_map(|(c, f, cmd, args)| ThOp::Command(c, f, cmd, args)),
        1 => (cid(), any::<i32>()).prop_map(|(c, v)| ThOp::DdnetVersionOld(c, v)),
        1 => (cid(), any::<i32>(), text()).prop_map(|(c, v, s)| ThOp::DdnetVersion(c, v, s)),
        1 => (cid(), 0..4i32, text()).prop_map(|(c, l, n)| ThOp::AuthInit(c, l, n)),
        1 => (cid(), 0..4i32, text()).prop_map(|(c, l, n)| ThOp::AuthLogin(c, l, n)),
        1 => cid().prop_map(ThOp::AuthLogout),
        1 => (cid(), cid()).prop_map(|(a, b)| ThOp::Swap(a, b)),
        1 => (cid(), text()).prop_map(|(c, n)| ThOp::PlayerName(c, n)),
        1 => (cid(), -1..3i32).prop_map(|(c, t)| ThOp::PlayerTeam(c, t)),
        1 => cid().prop_map(ThOp::Ready),
        1 => cid().prop_map(ThOp::Rejoin),
        1 => (cid(), any::<i32>()).prop_map(|(c, t)| ThOp::PlayerFinish(c, t)),
        1 => (any::<i32>(), any::<bool>()).prop_map(|(t, p)| ThOp::Practice(t, p)),
        1 => payload().prop_map(ThOp::Antibot),
        1 => Just(ThOp::Finish),
    ]
}

unsafe extern "C" fn append(user: *mut c_void, data: *const u8, len: usize) -> i32 {
    // SAFETY: `user` is the Vec this test passed, `data` holds `len` bytes.
    unsafe {
        let out = &mut *(user as *mut Vec<u8>);
        out.extend_from_slice(std::slice::from_raw_parts(data, len));
    }
    0
}

fn c(bytes: &[u8]) -> CString {
    CString::new(bytes).unwrap()
}

/// What the Rust API says for one call: `None` for success, else the status the C ABI
/// maps its error to.
fn rust_th(r: &mut Option<th::Recorder<Vec<u8>>>, op: &ThOp, out: &mut Vec<u8>) -> DemokitStatus {
    let utf8 = |b: &[u8]| std::str::from_utf8(b).map(str::to_owned);
    // The C ABI checks its arguments before it looks at the recorder.
    let strings: Vec<&[u8]> = match op {
        ThOp::Drop(_, s)
        | ThOp::PlayerName(_, s)
        | ThOp::DdnetVersion(_, _, s)
        | ThOp::AuthInit(_, _, s)
        | ThOp::AuthLogin(_, _, s) => vec![s],
        ThOp::Command(_, _, cmd, args) => std::iter::once(cmd)
            .chain(args)
            .map(Vec::as_slice)
            .collect(),
        _ => Vec::new(),
    };
    if strings.iter().any(|s| std::str::from_utf8(s).is_err()) {
        return DemokitStatus::InvalidUtf8;
    }
    if matches!(op, ThOp::Join(_, p) | ThOp::JoinVersion(_, p) if *p != 6 && *p != 7) {
        return DemokitStatus::InvalidArgument;
    }
    // Every string was checked to be UTF-8 above.
    let string = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    let protocol = |p: i32| {
        if p == 6 {
            Protocol::Six
        } else {
            Protocol::Seven
        }
    };
    let Some(rec) = r.as_mut() else {
        return DemokitStatus::OutOfOrder;
    };
    let result = match op {
        ThOp::BeginTick(dt) => rec.begin_tick(rec.tick().saturating_add(*dt)),
        ThOp::BeginPlayers => rec.begin_players(),
        ThOp::Player(cid, x, y) => rec.record_player(*cid, *x, *y),
        ThOp::DeadPlayer(cid) => rec.record_dead_player(*cid),
        ThOp::EndPlayers => rec.end_players(),
        ThOp::BeginInputs => rec.begin_inputs(),
        ThOp::Input(cid, uid, input) => rec.record_player_input(*cid, *uid, input),
        ThOp::EndInputs => rec.end_inputs(),
        ThOp::EndTick => rec.end_tick(),
        ThOp::Message(cid, data) => rec.record_player_message(*cid, data),
        ThOp::Join(cid, p) => rec.record_player_join(*cid, protocol(*p)),
        ThOp::JoinVersion(cid, p) => rec.record_join_version(*cid, protocol(*p)),
        ThOp::Drop(cid, reason) => match utf8(reason) {
            Ok(reason) => rec.record_player_drop(*cid, &reason),
            Err(_) => return DemokitStatus::InvalidUtf8,
        },
        ThOp::Command(cid, flags, cmd, args) => {
            let Ok(cmd) = utf8(cmd) else {
                return DemokitStatus::InvalidUtf8;
            };
            let Ok(args) = args.iter().map(|a| utf8(a)).collect::<Result<Vec<_>, _>>() else {
                return DemokitStatus::InvalidUtf8;
            };
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            rec.record_console_command(*cid, *flags, &cmd, &args)
        }
        ThOp::PlayerName(cid, name) => match utf8(name) {
            Ok(name) => rec.record_player_name(*cid, &name),
            Err(_) => return DemokitStatus::InvalidUtf8,
        },
        ThOp::DdnetVersionOld(cid, v) => rec.record_ddnet_version_old(*cid, *v),
        ThOp::DdnetVersion(cid, v, s) => {
            rec.record_ddnet_version(*cid, uuid::Uuid::from_bytes(CONNECTION_ID), *v, &string(s))
        }
        ThOp::AuthInit(cid, level, name) => rec.record_auth_initial(*cid, *level, &string(name)),
        ThOp::AuthLogin(cid, level, name) => rec.record_auth_login(*cid, *level, &string(name)),
        ThOp::AuthLogout(cid) => rec.record_auth_logout(*cid),
        ThOp::Swap(a, b) => rec.record_player_swap(*a, *b),
        ThOp::PlayerTeam(cid, team) => rec.record_player_team(*cid, *team),
        ThOp::Ready(cid) => rec.record_player_ready(*cid),
        ThOp::Rejoin(cid) => rec.record_player_rejoin(*cid),
        ThOp::PlayerFinish(cid, t) => rec.record_player_finish(*cid, *t),
        ThOp::Practice(team, p) => rec.record_team_practice(*team, *p),
        ThOp::Antibot(data) => rec.record_antibot(data),
        ThOp::Finish => {
            let rec = r.take().unwrap();
            return match rec.finish() {
                Ok(bytes) => {
                    *out = bytes;
                    DemokitStatus::Ok
                }
                Err(_) => DemokitStatus::Io,
            };
        }
    };
    match result {
        Ok(()) => DemokitStatus::Ok,
        Err(
            th::RecorderError::Phase { .. }
            | th::RecorderError::PlayerOrder { .. }
            | th::RecorderError::TickNotIncreasing { .. },
        ) => DemokitStatus::OutOfOrder,
        Err(th::RecorderError::Io { .. } | th::RecorderError::Poisoned { .. }) => DemokitStatus::Io,
        Err(_) => DemokitStatus::InvalidArgument,
    }
}

/// The same call through the C ABI.
///
/// # Safety
/// `rec` is a live recorder handle.
unsafe fn ffi_th(rec: *mut DemokitThRecorder, op: &ThOp, tick: i32) -> DemokitStatus {
    // SAFETY: every pointer passed lives for the call; `rec` is live.
    unsafe {
        match op {
            ThOp::BeginTick(dt) => demokit_th_begin_tick(rec, tick.saturating_add(*dt)),
            ThOp::BeginPlayers => demokit_th_begin_players(rec),
            ThOp::Player(cid, x, y) => demokit_th_record_player(rec, *cid, *x, *y),
            ThOp::DeadPlayer(cid) => demokit_th_record_dead_player(rec, *cid),
            ThOp::EndPlayers => demokit_th_end_players(rec),
            ThOp::BeginInputs => demokit_th_begin_inputs(rec),
            ThOp::Input(cid, uid, input) => {
                demokit_th_record_input(rec, *cid, *uid, input.as_ptr())
            }
            ThOp::EndInputs => demokit_th_end_inputs(rec),
            ThOp::EndTick => demokit_th_end_tick(rec),
            ThOp::Message(cid, data) => {
                demokit_th_record_player_message(rec, *cid, data.as_ptr(), data.len())
            }
            ThOp::Join(cid, p) => demokit_th_record_join(rec, *cid, *p),
            ThOp::JoinVersion(cid, p) => demokit_th_record_join_version(rec, *cid, *p),
            ThOp::Drop(cid, reason) => demokit_th_record_drop(rec, *cid, c(reason).as_ptr()),
            ThOp::Command(cid, flags, cmd, args) => {
                let args: Vec<CString> = args.iter().map(|a| c(a)).collect();
                let ptrs: Vec<*const std::ffi::c_char> = args.iter().map(|a| a.as_ptr()).collect();
                demokit_th_record_console_command(
                    rec,
                    *cid,
                    *flags,
                    c(cmd).as_ptr(),
                    ptrs.as_ptr(),
                    ptrs.len(),
                )
            }
            ThOp::PlayerName(cid, name) => {
                demokit_th_record_player_name(rec, *cid, c(name).as_ptr())
            }
            ThOp::DdnetVersionOld(cid, v) => demokit_th_record_ddnet_version_old(rec, *cid, *v),
            ThOp::DdnetVersion(cid, v, s) => demokit_th_record_ddnet_version(
                rec,
                *cid,
                CONNECTION_ID.as_ptr(),
                *v,
                c(s).as_ptr(),
            ),
            ThOp::AuthInit(cid, level, name) => {
                demokit_th_record_auth_initial(rec, *cid, *level, c(name).as_ptr())
            }
            ThOp::AuthLogin(cid, level, name) => {
                demokit_th_record_auth_login(rec, *cid, *level, c(name).as_ptr())
            }
            ThOp::AuthLogout(cid) => demokit_th_record_auth_logout(rec, *cid),
            ThOp::Swap(a, b) => demokit_th_record_player_swap(rec, *a, *b),
            ThOp::PlayerTeam(cid, team) => demokit_th_record_player_team(rec, *cid, *team),
            ThOp::Ready(cid) => demokit_th_record_player_ready(rec, *cid),
            ThOp::Rejoin(cid) => demokit_th_record_player_rejoin(rec, *cid),
            ThOp::PlayerFinish(cid, t) => demokit_th_record_player_finish(rec, *cid, *t),
            ThOp::Practice(team, p) => demokit_th_record_team_practice(rec, *team, *p),
            ThOp::Antibot(data) => demokit_th_record_antibot(rec, data.as_ptr(), data.len()),
            ThOp::Finish => demokit_th_finish(rec),
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ffi_teehistorian_calls_match_the_rust_recorder(ops in th_ops()) {
        let header = th::Header {
            comment: Some(th::format::COMMENT.into()),
            ..th::Header::new("2")
        };
        let mut rust = Some(th::Recorder::new(Vec::new(), &header).unwrap());
        let mut rust_out = Vec::new();

        let mut sink: Vec<u8> = Vec::new();
        let mut h = std::ptr::null_mut();
        let mut rec = std::ptr::null_mut();
        // SAFETY: valid strings and out-pointers; `sink` outlives the recorder.
        unsafe {
            prop_assert_eq!(demokit_th_header_new(c"2".as_ptr(), &mut h), DemokitStatus::Ok);
            prop_assert_eq!(
                demokit_th_recorder_create_callback(
                    Some(append), None, &mut sink as *mut Vec<u8> as *mut c_void, h, &mut rec),
                DemokitStatus::Ok
            );
            demokit_th_header_free(h);
        }
        let mut finished = false;
        // Whole ticks (see `th_ops`) make most calls succeed; that some runs fail
        // throughout (a first tick that does not advance, say) is no defect of the
        // recorder, so no count of successes is asserted per case.
        for op in &ops {
            let tick = rust.as_ref().map_or(0, |r| r.tick());
            let expected = rust_th(&mut rust, op, &mut rust_out);
            // SAFETY: `rec` is live until the close below.
            let got = unsafe { ffi_th(rec, op, tick) };
            prop_assert_ne!(got, DemokitStatus::Internal);
            prop_assert_eq!(got, expected, "{:?}", op);
            // What no DDNet server writes is refused, whatever the phase.
            if op.cids_in_range() == Some(false) {
                prop_assert_ne!(got, DemokitStatus::Ok, "{:?}", op);
            }
            finished |= matches!(op, ThOp::Finish) && got == DemokitStatus::Ok;
        }
        // SAFETY: closed once.
        unsafe { demokit_th_close(rec) };
        if let Some(r) = rust.take() {
            rust_out = r.abandon();
        }
        prop_assert!(sink == rust_out, "the bytes differ");

        let slice = th::TeehistorianSlice::parse(&sink).unwrap();
        let mut error = None;
        let mut messages = slice.messages();
        for item in messages.by_ref() {
            if let Err(e) = item {
                error = Some(e);
            }
        }
        // The sink never fails here, so every message the recorder accepted is in the file
        // whole, and reads: to FINISH when the recording was finished, else to a message
        // boundary without it (closed unfinished). None is longer than a reader takes.
        prop_assert_eq!(messages.finished(), finished);
        prop_assert!(error.is_none(), "{:?}", error);
        let report = th::summary::validate(&sink);
        prop_assert!(report.accepted(), "{:?}", report);
    }
}

#[derive(Debug, Clone)]
enum DemoOp {
    TickMarker(i32, bool),
    SnapshotInts(Vec<i32>),
    DeltaInts(Vec<i32>),
    Message(Vec<u8>),
    Snapshot(i32, Vec<i32>),
    Marker(i32),
    Finish,
}

fn demo_op() -> impl Strategy<Value = DemoOp> {
    let ints = prop::collection::vec(any::<i32>(), 0..12);
    // A valid one-item snapshot most of the time, arbitrary ints otherwise.
    let snapshot = prop_oneof![
        3 => (0..5i32).prop_map(|x| vec![16, 1, 0, 5 << 16, x, 200, 1]),
        1 => prop::collection::vec(any::<i32>(), 0..10),
    ];
    prop_oneof![
        3 => (prop_oneof![0..2000i32, any::<i32>()], any::<bool>()).prop_map(|(t, k)| DemoOp::TickMarker(t, k)),
        1 => ints.clone().prop_map(DemoOp::SnapshotInts),
        1 => ints.prop_map(DemoOp::DeltaInts),
        1 => prop::collection::vec(any::<u8>(), 0..10).prop_map(DemoOp::Message),
        4 => (prop_oneof![0..2000i32, any::<i32>()], snapshot).prop_map(|(t, s)| DemoOp::Snapshot(t, s)),
        1 => (0..2000i32).prop_map(DemoOp::Marker),
        1 => Just(DemoOp::Finish),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ffi_demo_calls_match_the_rust_recorder(ops in prop::collection::vec(demo_op(), 0..40)) {
        let map = b"map bytes";
        let config = tw::RecorderConfig::ddnet("dm1", "2026-11-24_12-00-00");
        let mut rust = Some(tw::Recorder::start(Cursor::new(Vec::new()), &config, map).unwrap());
        let mut rust_out = Vec::new();

        let path = std::env::temp_dir().join(format!(
            "demokit-ffi-props-{}-{:?}.demo",
            std::process::id(),
            std::thread::current().id()
        ));
        let cpath = CString::new(path.to_str().unwrap()).unwrap();
        let cfg = DemokitDemoConfig {
            version: 0,
            net_version: std::ptr::null(),
            map_name: c"dm1".as_ptr(),
            kind: std::ptr::null(),
            timestamp: c"2026-11-24_12-00-00".as_ptr(),
            huffman_trailing_byte: false,
        };
        let mut rec = std::ptr::null_mut();
        // SAFETY: valid strings, config, map and out-pointer.
        let started = unsafe {
            demokit_demo_recorder_start(cpath.as_ptr(), &cfg, map.as_ptr(), map.len(), &mut rec)
        };
        prop_assert_eq!(started, DemokitStatus::Ok);
        for op in &ops {
            // The C ABI checks its arguments before it looks at the recorder.
            let bad_snapshot = matches!(op, DemoOp::Snapshot(_, i) if Snapshot::parse(i).is_err());
            let expected = match rust.as_mut() {
                _ if bad_snapshot => DemokitStatus::InvalidArgument,
                None => DemokitStatus::OutOfOrder,
                Some(r) => {
                    let result = match op {
                        DemoOp::TickMarker(t, k) => r.record_tick_marker(*t, *k),
                        DemoOp::SnapshotInts(i) => r.record_snapshot_ints(i),
                        DemoOp::DeltaInts(i) => r.record_delta_ints(i),
                        DemoOp::Message(m) => r.record_message(m),
                        DemoOp::Snapshot(t, i) => match Snapshot::parse(i) {
                            Ok(s) => r.record_snapshot(*t, s),
                            Err(_) => unreachable!("a snapshot that does not parse is expected above"),
                        },
                        DemoOp::Marker(t) => {
                            r.add_timeline_marker(*t);
                            Ok(())
                        }
                        DemoOp::Finish => {
                            rust_out = rust.take().unwrap().finish().unwrap().into_inner();
                            Ok(())
                        }
                    };
                    match result {
                        Ok(()) => DemokitStatus::Ok,
                        Err(tw::WriteError::Io(_)) => DemokitStatus::Io,
                        Err(_) => DemokitStatus::InvalidArgument,
                    }
                }
            };
            // SAFETY: `rec` is live until the close below; slices live for the call.
            let got = unsafe {
                match op {
                    DemoOp::TickMarker(t, k) => demokit_demo_record_tick_marker(rec, *t, *k),
                    DemoOp::SnapshotInts(i) => demokit_demo_record_snapshot_ints(rec, i.as_ptr(), i.len()),
                    DemoOp::DeltaInts(i) => demokit_demo_record_delta_ints(rec, i.as_ptr(), i.len()),
                    DemoOp::Message(m) => demokit_demo_record_message(rec, m.as_ptr(), m.len()),
                    DemoOp::Snapshot(t, i) => demokit_demo_record_snapshot(rec, *t, i.as_ptr(), i.len()),
                    DemoOp::Marker(t) => demokit_demo_add_timeline_marker(rec, *t, std::ptr::null_mut()),
                    DemoOp::Finish => demokit_demo_finish(rec),
                }
            };
            prop_assert_ne!(got, DemokitStatus::Internal);
            prop_assert_eq!(got, expected, "{:?}", op);
        }
        // SAFETY: closed once.
        unsafe { demokit_demo_close(rec) };
        if let Some(r) = rust.take() {
            // Not finished: what the recorder wrote, as a crash leaves it.
            rust_out = r.get_ref().get_ref().clone();
        }
        let written = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        prop_assert!(written == rust_out, "the bytes differ");
        let slice = tw::DemoSlice::parse(&written).unwrap();
        prop_assert!(slice.chunks().all(|c| c.is_ok()));
    }
}
