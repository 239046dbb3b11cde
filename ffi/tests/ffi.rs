//! The C ABI from C++: `ffi/examples/ffi_record.cpp` is compiled with g++ against the static and
//! the dynamic library, run, and its files compared with what the Rust API writes for the
//! same calls; demokit reads them back. The program also checks the error paths (an
//! unwritable path, calls out of order, null pointers, invalid UTF-8, a failing sink) and
//! prints one line per check, which this test reads too.

use demokit::gamenet::Protocol;
use demokit::teehistorian::{self as th, Header};
use demokit::twdemo::{self as tw, Recorder, RecorderConfig, Snapshot};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C ABI crate's directory, which holds the header and the example program.
fn ffi_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding the static and dynamic library built with this test binary:
/// `target/<profile>/deps`, where cargo leaves the library it compiles for the tests
/// (`cargo build` also copies it one level up, but `cargo test` does not).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().to_path_buf()
}

/// A fresh directory under the temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "demokit-ffi-{label}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Compiles the example, linked statically or dynamically, into `dir`.
fn compile(dir: &Path, dynamic: bool) -> PathBuf {
    let lib = lib_dir();
    let out = dir.join(if dynamic { "ffi_dynamic" } else { "ffi_static" });
    let mut cmd = Command::new("g++");
    cmd.args(["-std=c++17", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(ffi_dir().join("include"))
        .arg(ffi_dir().join("examples/ffi_record.cpp"))
        .arg("-o")
        .arg(&out);
    if dynamic {
        let so = lib.join("libdemokit_ffi.so");
        assert!(so.is_file(), "{} is missing", so.display());
        cmd.arg("-L")
            .arg(&lib)
            .arg("-ldemokit_ffi")
            .arg(format!("-Wl,-rpath,{}", lib.display()));
    } else {
        let a = lib.join("libdemokit_ffi.a");
        assert!(a.is_file(), "{} is missing", a.display());
        cmd.arg(a).args(["-lpthread", "-ldl", "-lm"]);
    }
    let result = cmd.output().expect("g++ runs");
    assert!(
        result.status.success(),
        "g++ failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    out
}

// ---- the same calls through the Rust API ----

const CONNECTION_ID: [u8; 16] = [
    0x6b, 0xe6, 0xda, 0x4a, 0xce, 0xbd, 0x38, 0x0c, 0x9b, 0x5b, 0x12, 0x89, 0xc8, 0x42, 0xd7, 0x80,
];
const SAVE_ID: [u8; 16] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];

fn header() -> Header {
    let s = |v: &str| Some(v.to_owned());
    let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    Header {
        comment: s(th::format::COMMENT),
        game_uuid: s("0f3c1a4e-8a55-4d0b-9f41-6c2f6a2b7e10"),
        server_version: s("0.6.4, 19.0"),
        start_time: s("2026-11-24T12:00:00+0100"),
        server_name: s("demokit ffi"),
        server_port: s("8303"),
        game_type: s("DDraceNetwork"),
        map_name: s("dm1"),
        map_size: s("5805"),
        map_crc: s("a1b2c3d4"),
        config: Some(vec![
            pair("sv_name", "demokit ffi"),
            pair("sv_max_clients", "16"),
        ]),
        tuning: Some(vec![pair("gravity", "50")]),
        uuids: Some(vec![
            "teehistorian-test@ddnet.tw".into(),
            "teehistorian-player-name@ddnet.org".into(),
        ]),
        ..Header::new("2")
    }
}

/// `record_teehistorian` of the example, through [`th::Recorder`].
fn teehistorian_bytes() -> Vec<u8> {
    let uuid = uuid::Uuid::from_bytes;
    let mut r = th::Recorder::new(Vec::new(), &header()).unwrap();
    r.record_player_join(0, Protocol::Six).unwrap();
    r.record_ddnet_version(0, uuid(CONNECTION_ID), 16050, "DDNet 16.5")
        .unwrap();
    r.record_player_name(0, "nameless tee").unwrap();
    r.record_player_join(1, Protocol::Seven).unwrap();
    r.record_auth_initial(1, 2, "moderator").unwrap();
    r.record_player_join(127, Protocol::Seven).unwrap();
    r.record_player_name(127, "slot 127").unwrap();
    for tick in 1..=60 {
        r.begin_tick(tick).unwrap();
        r.begin_players().unwrap();
        r.record_player(0, 100 + tick, 200).unwrap();
        if tick % 10 == 0 {
            r.record_dead_player(1).unwrap();
        } else {
            r.record_player(1, 300, 400 - tick / 3).unwrap();
        }
        r.record_player(127, 500 + tick % 4, 600).unwrap();
        r.end_players().unwrap();
        r.begin_inputs().unwrap();
        let input = [tick % 3 - 1, 10 * tick, -20, tick % 2, 0, 0, 1, 0, 0, tick];
        r.record_player_input(0, 1, &input).unwrap();
        if tick % 5 == 0 {
            r.record_player_input(1, 2, &[1, 0, 0, 1, 0, 0, 0, 0, 0, 0])
                .unwrap();
        }
        if tick % 4 == 1 {
            r.record_player_input(127, 3, &[tick % 2, 0, 0, 0, 1, 0, 0, 0, 0, 0])
                .unwrap();
        }
        if tick == 7 {
            r.record_player_message(0, &[0x21, 0x00, b'h', b'i', 0x00])
                .unwrap();
            r.record_console_command(0, 1, "say", &["hello", "world"])
                .unwrap();
            r.record_console_command(-1, 0, "status", &[]).unwrap();
        }
        if tick == 20 {
            r.record_test_extra().unwrap();
            r.record_ddnet_version_old(1, 15000).unwrap();
            r.record_auth_login(0, 3, "admin").unwrap();
            r.record_player_team(0, 1).unwrap();
            r.record_team_practice(1, true).unwrap();
            r.record_player_ready(0).unwrap();
        }
        if tick == 30 {
            r.record_team_save_success(1, uuid(SAVE_ID), "save string")
                .unwrap();
            r.record_team_save_failure(2).unwrap();
            r.record_team_load_success(1, uuid(SAVE_ID), "save string")
                .unwrap();
            r.record_team_load_failure(3).unwrap();
            r.record_player_swap(0, 1).unwrap();
            r.record_antibot(&[0xde, 0xad, 0xbe, 0xef]).unwrap();
        }
        if tick == 45 {
            r.record_player_finish(0, 2250).unwrap();
            r.record_team_finish(1, 2250).unwrap();
            r.record_auth_logout(0).unwrap();
            r.record_join_version(1, Protocol::Six).unwrap();
            r.record_player_rejoin(1).unwrap();
        }
        r.end_inputs().unwrap();
        r.end_tick().unwrap();
    }
    r.record_player_drop(1, "timeout").unwrap();
    r.record_player_drop(127, "leaving").unwrap();
    r.finish().unwrap()
}

/// `record_demo` of the example, through [`tw::Recorder`].
fn demo_bytes() -> Vec<u8> {
    let snapshot = |tick: i32| vec![16, 1, 0, 5 << 16, 100 + tick / 10, 200, 1];
    let map: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
    let config = RecorderConfig::ddnet("dm1", "2026-11-24_12-00-00");
    let mut r = Recorder::start(Cursor::new(Vec::new()), &config, &map).unwrap();
    for tick in 100..400 {
        let ints = snapshot(tick);
        r.record_snapshot(tick, Snapshot::parse(&ints).unwrap())
            .unwrap();
        if tick % 50 == 0 {
            r.record_message(&[0x06, 0x00, 0x40, b'g', b'g', 0x00])
                .unwrap();
        }
        if tick == 150 || tick == 300 {
            assert!(r.add_timeline_marker(tick));
        }
    }
    r.record_tick_marker(400, true).unwrap();
    r.record_snapshot_ints(&snapshot(400)).unwrap();
    r.record_tick_marker(401, false).unwrap();
    r.record_delta_ints(&[0, 1, 0, 5, 0, 1, 0, 0]).unwrap();
    r.finish().unwrap().into_inner()
}

/// Runs the compiled example in a fresh directory and checks everything it wrote.
fn run_and_check(exe: &Path, label: &str) {
    let dir = TempDir::new(label);
    let out = Command::new(exe).arg(&dir.0).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{label}: the C++ program failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\n0 failures"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    // Every error path gave the status it should, with a message naming the call.
    for line in [
        "ok teehistorian at an unwritable path: I/O error: demokit_th_recorder_create_file: cannot create",
        "ok demo at an unwritable path: I/O error: demokit_demo_recorder_start: cannot create",
        "ok null header: null pointer: demokit_th_recorder_create_file: header is null",
        "ok null out: null pointer:",
        "ok null recorder: null pointer: demokit_th_begin_tick: recorder is null",
        "ok null write callback: null pointer:",
        "ok null string: null pointer:",
        "ok null data with a length: null pointer:",
        "ok demo config without map_name: null pointer:",
        "ok invalid UTF-8 in a header value: invalid UTF-8:",
        "ok invalid UTF-8 in the demo's map name: invalid UTF-8:",
        "ok invalid UTF-8 in a drop reason: invalid UTF-8:",
        "ok record_player before begin_players: call out of order:",
        "ok end_tick before begin_tick: call out of order:",
        "ok begin_tick twice: call out of order:",
        "ok client id 128: invalid argument:",
        "ok a call after finish: call out of order:",
        "ok finish twice: call out of order:",
        "ok a failing write callback: I/O error:",
        "ok a call after the sink failed: I/O error:",
        "ok a snapshot that does not parse: invalid argument:",
        "ok a demo call after finish: call out of order:",
    ] {
        assert!(
            stdout.contains(line),
            "{label}: missing {line:?} in\n{stdout}"
        );
    }

    // The bytes are the Rust API's for the same calls.
    let th_expected = teehistorian_bytes();
    for name in ["file.teehistorian", "callback.teehistorian"] {
        let bytes = std::fs::read(dir.0.join(name)).unwrap();
        assert!(
            bytes == th_expected,
            "{label}: {name} differs from the Rust recorder's"
        );
        let slice = th::TeehistorianSlice::parse(&bytes).unwrap();
        assert_eq!(slice.header(), &header());
        let messages: Vec<_> = slice.messages().collect::<Result<_, _>>().unwrap();
        assert_eq!(messages.last().unwrap().message, th::Message::Finish);
        assert_eq!(messages[messages.len() - 2].tick, 60);
        // Client 127 (a 128-slot server's last) is recorded in every tick, at that tick.
        let slot_127: Vec<i32> = messages
            .iter()
            .filter(|m| m.message.player_record_cid() == Some(127))
            .map(|m| m.tick)
            .collect();
        assert_eq!(slot_127, (1..=60).collect::<Vec<_>>(), "{name}");
        assert!(th::summary::validate(&bytes).accepted(), "{name}");
    }
    // One flush per tick that wrote something (every tick here) plus the header and finish.
    assert!(stdout.contains("ok callback: "), "{stdout}");

    let demo = std::fs::read(dir.0.join("ffi.demo")).unwrap();
    assert!(
        demo == demo_bytes(),
        "{label}: ffi.demo differs from the Rust recorder's"
    );
    let slice = tw::DemoSlice::parse(&demo).unwrap();
    assert_eq!(slice.prelude().markers_in_use(), &[150, 300]);
    assert!(slice.chunks().all(|c| c.is_ok()));
    // The example embeds 1000 made-up bytes as its map, which DDNet's client cannot load:
    // that is the one thing DDNet would refuse the demo for.
    let report = tw::edit::validate::validate(&demo);
    assert_eq!(
        report.problems.iter().map(|p| p.kind).collect::<Vec<_>>(),
        [demokit::report::ProblemKind::MapLoad],
        "{report:?}"
    );
}

#[test]
fn ffi_cpp_example_static_library() {
    let dir = TempDir::new("build-static");
    let exe = compile(&dir.0, false);
    run_and_check(&exe, "static");
}

#[test]
fn ffi_cpp_example_dynamic_library() {
    let dir = TempDir::new("build-dynamic");
    let exe = compile(&dir.0, true);
    run_and_check(&exe, "dynamic");
}
