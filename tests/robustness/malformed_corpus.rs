//! The files in `fixtures/malformed/` are small hand-made bad inputs for the three formats,
//! each derived from a valid file this crate's own writers make and named for what is wrong
//! with it. This test rebuilds each one and checks the committed bytes;
//! `DEMOKIT_BLESS=1 cargo test --test robustness malformed_corpus::` writes them anew.
//! `tests/robustness/malformed.rs` reads every one and checks the outcome.

use demokit::codec::huffman::{self, LengthRule};
use demokit::codec::varint;
use demokit::detect::TEEHISTORIAN_UUID;
use demokit::source;
use demokit::teehistorian::{self as th, Message};
use demokit::twdemo::{Recorder, RecorderConfig};
use std::io::Cursor;
use std::path::PathBuf;

/// The largest file the corpus may hold.
const MAX_FILE: usize = 4096;

// ---------------------------------------------------------------------------------------
// Helpers shared by the formats.

/// `ints` packed as variable-width ints (the encoding twdemo payloads and teehistorian
/// messages share).
fn ints(values: &[i32]) -> Vec<u8> {
    let mut out = Vec::new();
    for &v in values {
        let mut buf = [0u8; 5];
        let n = varint::pack(v, &mut buf);
        out.extend_from_slice(&buf[..n]);
    }
    out
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn with(mut data: Vec<u8>, at: usize, bytes: &[u8]) -> Vec<u8> {
    data[at..at + bytes.len()].copy_from_slice(bytes);
    data
}

// ---------------------------------------------------------------------------------------
// twdemo

/// Offset of the map in a version-6 demo with the SHA-256 block.
const TW_MAP_V6: usize = 484;
/// The map every twdemo input embeds.
const TW_MAP_LEN: usize = 32;

fn tw_map() -> Vec<u8> {
    (0..TW_MAP_LEN as u32)
        .map(|i| (i * 13 % 251) as u8)
        .collect()
}

/// Prelude and map of a demo of `version` with no chunks, as the recorder writes it.
fn tw_head(version: u8) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("malformed", "2026-11-22_12-00-00");
    config.version = version;
    let rec = Recorder::start(Cursor::new(Vec::new()), &config, &tw_map()).unwrap();
    rec.finish().unwrap().into_inner()
}

/// A short valid recording: a message, a keyframe, deltas and a message.
fn tw_recorded(version: u8) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("malformed", "2026-11-22_12-00-00");
    config.version = version;
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, &tw_map()).unwrap();
    rec.record_message(&[0x05, 0x64, 0x6d, 0x31, 0x00]).unwrap();
    for tick in 100..106 {
        let key = tick == 100;
        rec.record_tick_marker(tick, key).unwrap();
        if key {
            rec.record_snapshot_ints(&[16, 1, 0, 5 << 16, 100, 200, 1])
                .unwrap();
        } else {
            rec.record_delta_ints(&[0, 1, 0, 5, 0, 2, 0, 0]).unwrap();
        }
    }
    rec.record_message(b"\x06\x00\x40hello\0").unwrap();
    rec.finish().unwrap().into_inner()
}

/// A stored payload: `packed` Huffman-coded the way DDNet 20.1 does.
fn tw_huffman(packed: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    huffman::compress(packed, LengthRule::Tight, &mut out);
    out
}

/// A data chunk of type `kind` (0..=3) with `payload`, in the shortest size form.
fn tw_chunk(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let t = kind << 5;
    match payload.len() {
        n if n < 30 => out.push(t | n as u8),
        n if n < 256 => out.extend_from_slice(&[t | 30, n as u8]),
        n => {
            out.push(t | 31);
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
    }
    out.extend_from_slice(payload);
    out
}

/// An absolute tick marker.
fn tw_abs(tick: i32, keyframe: bool) -> Vec<u8> {
    let mut out = vec![0x80 | if keyframe { 0x40 } else { 0 }];
    out.extend_from_slice(&tick.to_be_bytes());
    out
}

/// A valid message payload: system message 5 with a short string.
fn tw_message() -> Vec<u8> {
    tw_huffman(&[0x05, 0x64, 0x6d, 0x31, 0x00])
}

fn twdemo() -> Vec<(&'static str, Vec<u8>)> {
    let v6 = tw_recorded(6);
    let head = tw_head(6);
    let h3 = tw_head(3);
    let h4 = tw_head(4);
    let h5 = tw_head(5);
    let msg = tw_chunk(2, &tw_message());
    let abs = tw_abs(100, true);
    let mut out: Vec<(&'static str, Vec<u8>)> = vec![
        // Magic and version.
        ("twdemo-empty.demo", Vec::new()),
        ("twdemo-magic-without-version.demo", b"TWDEMO\0".to_vec()),
        ("twdemo-magic-cut-3.demo", b"TWD".to_vec()),
        (
            "twdemo-magic-lowercase.demo",
            with(v6.clone(), 0, b"twdemo\0"),
        ),
        ("twdemo-magic-missing-nul.demo", with(v6.clone(), 6, b"X")),
        (
            "twdemo-teehistorian-magic.demo",
            with(v6.clone(), 0, &TEEHISTORIAN_UUID),
        ),
        (
            "twdemo-hl2demo-magic.demo",
            with(v6.clone(), 0, b"HL2DEMO\0"),
        ),
        ("twdemo-version-0.demo", with(v6.clone(), 7, &[0])),
        ("twdemo-version-1.demo", with(v6.clone(), 7, &[1])),
        ("twdemo-version-2.demo", with(v6.clone(), 7, &[2])),
        ("twdemo-version-7.demo", with(v6.clone(), 7, &[7])),
        ("twdemo-version-255.demo", with(v6.clone(), 7, &[255])),
        // The header and the blocks after it.
        ("twdemo-cut-in-header.demo", v6[..100].to_vec()),
        ("twdemo-cut-after-version.demo", v6[..8].to_vec()),
        ("twdemo-cut-in-timeline-markers.demo", v6[..300].to_vec()),
        ("twdemo-v4-cut-in-timeline-markers.demo", h4[..200].to_vec()),
        ("twdemo-cut-in-sha256-uuid.demo", v6[..444].to_vec()),
        ("twdemo-cut-in-sha256-digest.demo", v6[..460].to_vec()),
        ("twdemo-cut-in-map.demo", v6[..TW_MAP_V6 + 10].to_vec()),
        (
            "twdemo-unterminated-net-version.demo",
            with(v6.clone(), 8, &[b'N'; 64]),
        ),
        (
            "twdemo-unterminated-map-name.demo",
            with(v6.clone(), 72, &[b'M'; 64]),
        ),
        (
            "twdemo-unterminated-type.demo",
            with(v6.clone(), 144, &[b'T'; 8]),
        ),
        (
            "twdemo-unterminated-timestamp.demo",
            with(v6.clone(), 156, &[b'9'; 20]),
        ),
        (
            "twdemo-map-size-huge.demo",
            with(v6.clone(), 136, &u32::MAX.to_be_bytes()),
        ),
        (
            "twdemo-map-size-one-past-end.demo",
            with(
                v6.clone(),
                136,
                &((v6.len() - TW_MAP_V6 + 1) as u32).to_be_bytes(),
            ),
        ),
        (
            "twdemo-map-size-zero-map-read-as-chunks.demo",
            with(v6.clone(), 136, &0u32.to_be_bytes()),
        ),
        (
            "twdemo-sha256-uuid-wrong-map-shifted.demo",
            with(v6.clone(), 436, &[0x6c]),
        ),
        (
            "twdemo-timeline-marker-count-negative.demo",
            with(v6.clone(), 176, &(-5i32).to_be_bytes()),
        ),
        (
            "twdemo-timeline-marker-count-1000.demo",
            with(v6.clone(), 176, &1000i32.to_be_bytes()),
        ),
        (
            "twdemo-length-negative.demo",
            with(v6.clone(), 152, &(-1i32).to_be_bytes()),
        ),
        ("twdemo-no-chunks.demo", head.clone()),
        // Tick markers.
        (
            "twdemo-relative-tick-before-absolute.demo",
            cat(&[&head, &[0xa1]]),
        ),
        (
            "twdemo-v3-relative-tick-before-absolute.demo",
            cat(&[&h3, &[0x81]]),
        ),
        (
            "twdemo-v4-relative-tick-before-absolute.demo",
            cat(&[&h4, &[0x85]]),
        ),
        (
            "twdemo-tick-negative.demo",
            cat(&[&head, &msg, &tw_abs(-1, true)]),
        ),
        (
            "twdemo-tick-0x70000000.demo",
            cat(&[&head, &tw_abs(0x7000_0000, false)]),
        ),
        (
            "twdemo-relative-tick-past-max.demo",
            cat(&[&head, &tw_abs(0x6FFF_FFF0, true), &[0xbf]]),
        ),
        (
            "twdemo-v5-cut-in-tick-marker.demo",
            cat(&[&h5, &[0xc0, 0, 0]]),
        ),
        (
            "twdemo-trailing-lone-tick-lead-byte.demo",
            cat(&[&head, &abs, &msg, &[0x80]]),
        ),
        (
            "twdemo-keyframe-relative-tick.demo",
            cat(&[&head, &abs, &[0xe1], &msg]),
        ),
        // Data chunk sizes.
        ("twdemo-cut-in-size-byte.demo", cat(&[&head, &abs, &[0x5e]])),
        (
            "twdemo-cut-in-size-word.demo",
            cat(&[&head, &abs, &[0x5f, 0x10]]),
        ),
        (
            "twdemo-payload-past-end.demo",
            cat(&[&head, &abs, &[0x45, 1, 2]]),
        ),
        (
            "twdemo-payload-size-word-65535.demo",
            cat(&[&head, &abs, &[0x5f, 0xff, 0xff], &tw_message()]),
        ),
        ("twdemo-cut-in-payload.demo", v6[..v6.len() - 3].to_vec()),
        (
            "twdemo-chunk-type-0.demo",
            cat(&[&head, &abs, &tw_chunk(0, &tw_message())]),
        ),
        // Payloads: Huffman, then packed ints.
        (
            "twdemo-huffman-no-eof-all-ones.demo",
            cat(&[&head, &msg, &abs, &tw_chunk(2, &[0xff; 8])]),
        ),
        (
            "twdemo-huffman-empty-payload.demo",
            cat(&[&head, &abs, &[0x40]]),
        ),
        (
            "twdemo-huffman-empty-payload-size-byte.demo",
            cat(&[&head, &abs, &[0x5e, 0x00]]),
        ),
        (
            "twdemo-huffman-cut-before-eof.demo",
            cat(&[&head, &abs, &{
                let mut p = tw_huffman(&ints(&[16, 1, 0, 5 << 16, 100, 200, 1]));
                p.pop();
                tw_chunk(1, &p)
            }]),
        ),
        (
            "twdemo-varint-extend-bit-at-end.demo",
            cat(&[&head, &abs, &tw_chunk(2, &tw_huffman(&[0x80]))]),
        ),
        (
            "twdemo-varint-cut-in-third-int.demo",
            cat(&[
                &head,
                &abs,
                &tw_chunk(1, &tw_huffman(&[0x01, 0x02, 0xc0, 0x80])),
            ]),
        ),
        (
            "twdemo-varint-too-many-ints.demo",
            cat(&[&head, &abs, &tw_chunk(1, &tw_huffman(&[0u8; 16385]))]),
        ),
        (
            "twdemo-varint-overlong-5-bytes.demo",
            cat(&[
                &head,
                &abs,
                &tw_chunk(2, &tw_huffman(&[0xff, 0xff, 0xff, 0xff, 0xff])),
            ]),
        ),
    ];
    // Other versions of the valid recording, cut short inside the map or a chunk.
    let v3 = tw_recorded(3);
    out.push(("twdemo-v3-cut-in-map.demo", v3[..176 + 5].to_vec()));
    out.push(("twdemo-v3-cut-in-payload.demo", v3[..v3.len() - 2].to_vec()));
    out
}

// ---------------------------------------------------------------------------------------
// teehistorian

fn th_header(version: &str) -> th::Header {
    th::Header {
        map_name: Some("dm1".into()),
        server_name: Some("malformed".into()),
        ..th::Header::new(version)
    }
}

/// The file UUID, the JSON header of `version` and its NUL.
fn th_head(version: &str) -> Vec<u8> {
    th::TeehistorianWriter::new(Vec::new(), &th_header(version))
        .unwrap()
        .into_inner()
        .unwrap()
}

/// A small valid file.
fn th_recorded() -> Vec<u8> {
    let mut w = th::TeehistorianWriter::new(Vec::new(), &th_header("2")).unwrap();
    w.write(&Message::Join { cid: 0 }).unwrap();
    w.write(&Message::PlayerNew {
        cid: 0,
        x: 100,
        y: 200,
    })
    .unwrap();
    w.write(&Message::InputNew {
        cid: 0,
        input: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    })
    .unwrap();
    w.write(&Message::PlayerDiff {
        cid: 0,
        dx: 3,
        dy: -4,
    })
    .unwrap();
    w.write(&Message::TickSkip { dt: 3 }).unwrap();
    w.write(&Message::NetMessage {
        cid: 0,
        data: b"\x05hi\0",
    })
    .unwrap();
    w.finish().unwrap()
}

/// A file of the version-2 header, then `body` as raw bytes.
fn th_body(body: &[u8]) -> Vec<u8> {
    cat(&[&th_head("2"), body])
}

/// A file with `json` as its header text, then FINISH.
fn th_json(json: &[u8]) -> Vec<u8> {
    cat(&[&TEEHISTORIAN_UUID, json, &[0], &ints(&[-1])])
}

fn teehistorian() -> Vec<(&'static str, Vec<u8>)> {
    let good = th_recorded();
    let finish = ints(&[-1]);
    let join = ints(&[-8, 0]);
    let unknown_ex = [0x12u8; 16];
    vec![
        // The file UUID.
        ("th-empty.teehistorian", Vec::new()),
        (
            "th-uuid-cut-8.teehistorian",
            TEEHISTORIAN_UUID[..8].to_vec(),
        ),
        (
            "th-uuid-first-byte-wrong.teehistorian",
            with(good.clone(), 0, &[0x6a]),
        ),
        (
            "th-uuid-last-byte-wrong.teehistorian",
            with(good.clone(), 15, &[0xd2]),
        ),
        (
            "th-twdemo-magic.teehistorian",
            with(good.clone(), 0, b"TWDEMO\0\x06"),
        ),
        (
            "th-hl2demo-magic.teehistorian",
            with(good.clone(), 0, b"HL2DEMO\0"),
        ),
        ("th-uuid-only.teehistorian", TEEHISTORIAN_UUID.to_vec()),
        // The JSON header.
        (
            "th-header-without-nul.teehistorian",
            th_head("2")[..th_head("2").len() - 1].to_vec(),
        ),
        ("th-header-empty.teehistorian", th_json(b"")),
        ("th-header-not-json.teehistorian", th_json(b"hello")),
        ("th-header-json-array.teehistorian", th_json(b"[\"2\"]")),
        (
            "th-header-no-version.teehistorian",
            th_json(b"{\"map_name\":\"dm1\"}"),
        ),
        (
            "th-header-version-3.teehistorian",
            th_json(b"{\"version\":\"3\"}"),
        ),
        (
            "th-header-version-0.teehistorian",
            th_json(b"{\"version\":\"0\"}"),
        ),
        (
            "th-header-version-is-number.teehistorian",
            th_json(b"{\"version\":2}"),
        ),
        (
            "th-header-duplicate-version.teehistorian",
            th_json(b"{\"version\":\"2\",\"version\":\"2\"}"),
        ),
        (
            "th-header-unclosed-object.teehistorian",
            th_json(b"{\"version\":\"2\""),
        ),
        (
            "th-header-nul-inside-string.teehistorian",
            th_json(b"{\"version\":\"2\0\"}"),
        ),
        (
            "th-header-invalid-utf8-in-value.teehistorian",
            th_json(b"{\"version\":\"2\",\"map_name\":\"d\xffm\"}"),
        ),
        ("th-version-1.teehistorian", th_json(b"{\"version\":\"1\"}")),
        // The message stream.
        ("th-no-finish-empty-body.teehistorian", th_head("2")),
        (
            "th-cut-before-finish.teehistorian",
            good[..good.len() - 1].to_vec(),
        ),
        ("th-cut-in-input-new.teehistorian", {
            let body = cat(&[&join, &ints(&[-6, 0, 1, 2, 3, 4, 5])]);
            th_body(&body)
        }),
        (
            "th-cut-in-player-new.teehistorian",
            th_body(&ints(&[-3, 0, 100])),
        ),
        (
            "th-varint-extend-bit-at-end.teehistorian",
            th_body(&cat(&[&join, &[0x80]])),
        ),
        (
            "th-varint-overlong-5-bytes.teehistorian",
            th_body(&cat(&[
                &[0x81, 0x80, 0x80, 0x80, 0x00],
                &[0x00, 0x00],
                &finish,
            ])),
        ),
        (
            "th-unknown-message-id-minus-12.teehistorian",
            th_body(&cat(&[&join, &ints(&[-12, 0]), &finish])),
        ),
        (
            "th-unknown-message-id-i32-min.teehistorian",
            th_body(&cat(&[&ints(&[i32::MIN]), &finish])),
        ),
        (
            "th-message-size-negative.teehistorian",
            th_body(&cat(&[&join, &ints(&[-7, 0, -1]), &finish])),
        ),
        (
            "th-message-size-past-end.teehistorian",
            th_body(&cat(&[&ints(&[-7, 0, 10]), b"abc"])),
        ),
        (
            "th-message-size-i32-max.teehistorian",
            th_body(&cat(&[&ints(&[-7, 0, i32::MAX]), b"abc", &finish])),
        ),
        (
            "th-ex-cut-in-uuid.teehistorian",
            th_body(&cat(&[&ints(&[-11]), &unknown_ex[..7]])),
        ),
        (
            "th-ex-size-negative.teehistorian",
            th_body(&cat(&[&ints(&[-11]), &unknown_ex, &ints(&[-100]), &finish])),
        ),
        (
            "th-ex-size-i32-max.teehistorian",
            th_body(&cat(&[
                &ints(&[-11]),
                &unknown_ex,
                &ints(&[i32::MAX]),
                &finish,
            ])),
        ),
        (
            "th-ex-unknown-uuid.teehistorian",
            th_body(&cat(&[
                &ints(&[-11]),
                &unknown_ex,
                &ints(&[3]),
                b"xyz",
                &finish,
            ])),
        ),
        (
            "th-console-command-arg-count-negative.teehistorian",
            th_body(&cat(&[
                &ints(&[-10, 0, 0]),
                b"say\0",
                &ints(&[-2]),
                &finish,
            ])),
        ),
        (
            "th-console-command-arg-count-i32-max.teehistorian",
            th_body(&cat(&[
                &ints(&[-10, 0, 0]),
                b"say\0",
                &ints(&[i32::MAX]),
                b"a\0",
                &finish,
            ])),
        ),
        (
            "th-console-command-unterminated-name.teehistorian",
            th_body(&cat(&[&ints(&[-10, 0, 0]), b"say"])),
        ),
        (
            "th-drop-unterminated-reason.teehistorian",
            th_body(&cat(&[&join, &ints(&[-9, 0]), b"timeout"])),
        ),
        (
            "th-tick-skip-negative-below-zero.teehistorian",
            th_body(&cat(&[&ints(&[-2, -5]), &finish])),
        ),
        (
            "th-tick-skip-i32-max.teehistorian",
            th_body(&cat(&[&ints(&[-2, 3]), &ints(&[-2, i32::MAX]), &finish])),
        ),
        (
            "th-player-record-past-i32-max-tick.teehistorian",
            th_body(&cat(&[
                &ints(&[-2, i32::MAX - 1]),
                // The first PLAYER_OLD stays in the skipped-to tick, the second opens the next.
                &ints(&[-4, 0]),
                &ints(&[-4, 0]),
                &finish,
            ])),
        ),
        ("th-bytes-after-finish.teehistorian", cat(&[&good, b"abc"])),
        ("th-finish-twice.teehistorian", cat(&[&good, &finish])),
        (
            "th-player-diff-cid-1000.teehistorian",
            th_body(&cat(&[&ints(&[1000, 1, 1]), &finish])),
        ),
        // Player records past DDNet's 128 client ids, or negative: no tick rule numbers them.
        (
            "th-player-new-cid-128.teehistorian",
            th_body(&cat(&[&ints(&[-8, 127]), &ints(&[-3, 128, 0, 0]), &finish])),
        ),
        (
            "th-player-old-cid-minus-1.teehistorian",
            th_body(&cat(&[&ints(&[-4, -1]), &finish])),
        ),
    ]
}

// ---------------------------------------------------------------------------------------
// Source

/// The 1072-byte header of a TF2 demo (demo protocol 3, network protocol 24).
fn src_header(demo_protocol: i32, network_protocol: i32, game: &str) -> Vec<u8> {
    let header = source::Header::new(
        demo_protocol,
        network_protocol,
        "localhost:27015",
        "me",
        "cp_foo",
        game,
    );
    source::SourceWriter::new(Vec::new(), &header)
        .unwrap()
        .finish()
        .unwrap()
}

/// A frame header: command byte, tick, and the slot byte if `slot`.
fn src_cmd(command: u8, tick: i32, slot: bool) -> Vec<u8> {
    let mut out = vec![command];
    out.extend_from_slice(&tick.to_le_bytes());
    if slot {
        out.push(0);
    }
    out
}

fn le(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A valid TF2 demo: signon, synctick, console command, packets, user command, stop.
fn src_recorded() -> Vec<u8> {
    use source::{Body, Frame, PacketBody};
    let header = source::Header::new(3, 24, "localhost:27015", "me", "cp_foo", "tf");
    let mut w = source::SourceWriter::new(Vec::new(), &header).unwrap();
    let view = [0u8; 76];
    let packet = |data: &'static [u8]| PacketBody {
        view: &view,
        seq_in: 1,
        seq_out: 2,
        data,
    };
    let frames = [
        Frame {
            tick: 0,
            slot: None,
            body: Body::Signon(packet(b"signon data")),
        },
        Frame {
            tick: 0,
            slot: None,
            body: Body::SyncTick,
        },
        Frame {
            tick: 1,
            slot: None,
            body: Body::ConsoleCmd(b"+attack\0"),
        },
        Frame {
            tick: 2,
            slot: None,
            body: Body::Packet(packet(b"packet")),
        },
        Frame {
            tick: 3,
            slot: None,
            body: Body::UserCmd {
                sequence: 7,
                data: b"cmd",
            },
        },
        Frame::stop(4, &source::Profile::SOURCE_2013),
    ];
    for f in &frames {
        w.write_frame(f).unwrap();
    }
    w.finish().unwrap()
}

fn source() -> Vec<(&'static str, Vec<u8>)> {
    let good = src_recorded();
    let tf = src_header(3, 24, "tf");
    let p2 = src_header(4, 2001, "portal2");
    let l4d = src_header(4, 2027, "left4dead2");
    let classic = src_header(3, 7, "hl2oe");
    let sync = src_cmd(3, 0, false);
    let stop = cat(&[&[7u8], &le(&[5])]);
    let stop_slot = cat(&[&[7u8], &le(&[5]), &[0]]);
    let view = [0u8; 76];
    // A packet frame (TF2 layout) with the given length field and data.
    let packet =
        |length: i32, data: &[u8]| cat(&[&src_cmd(2, 1, false), &view, &le(&[1, 2, length]), data]);
    vec![
        // The stamp.
        ("src-empty.dem", Vec::new()),
        ("src-stamp-cut-4.dem", b"HL2D".to_vec()),
        (
            "src-stamp-lowercase.dem",
            with(good.clone(), 0, b"hl2demo\0"),
        ),
        ("src-stamp-missing-nul.dem", with(good.clone(), 7, b"X")),
        (
            "src-goldsrc-stamp.dem",
            with(good.clone(), 0, b"HLDEMO\0\0"),
        ),
        ("src-source2-stamp.dem", with(good.clone(), 0, b"PBDEMS2\0")),
        (
            "src-twdemo-magic.dem",
            with(good.clone(), 0, b"TWDEMO\0\x06"),
        ),
        (
            "src-teehistorian-magic.dem",
            with(good.clone(), 0, &TEEHISTORIAN_UUID),
        ),
        // The header.
        ("src-cut-in-header.dem", good[..1000].to_vec()),
        ("src-stamp-only.dem", good[..8].to_vec()),
        ("src-header-only.dem", tf.clone()),
        (
            "src-demo-protocol-negative.dem",
            with(good.clone(), 8, &le(&[-1])),
        ),
        (
            "src-header-strings-unterminated.dem",
            with(good.clone(), 16, &[b'S'; 1040]),
        ),
        // Command bytes.
        ("src-unknown-command-0.dem", cat(&[&tf, &sync, &[0]])),
        ("src-unknown-command-10.dem", cat(&[&tf, &sync, &[10]])),
        ("src-unknown-command-255.dem", cat(&[&tf, &[255]])),
        (
            "src-classic-unknown-command-8.dem",
            cat(&[&classic, &sync, &src_cmd(8, 0, false), &le(&[0]), &stop]),
        ),
        (
            "src-protocol3-unknown-command-9.dem",
            cat(&[&tf, &sync, &src_cmd(9, 0, false), &le(&[0]), &stop]),
        ),
        // Frame headers and lengths.
        ("src-cut-in-frame-header.dem", cat(&[&tf, &[3, 0, 0]])),
        (
            "src-portal2-cut-before-slot-byte.dem",
            cat(&[&p2, &src_cmd(3, 0, false)]),
        ),
        (
            "src-cut-in-view-info.dem",
            cat(&[&tf, &sync, &src_cmd(2, 1, false), &view[..40]]),
        ),
        (
            "src-l4d-cut-in-view-info.dem",
            cat(&[&l4d, &src_cmd(2, 1, true), &[0u8; 76 * 3]]),
        ),
        (
            "src-cut-in-packet-trailer.dem",
            cat(&[&tf, &sync, &src_cmd(2, 1, false), &view, &le(&[1, 2])]),
        ),
        (
            "src-negative-packet-length.dem",
            cat(&[&tf, &sync, &packet(-1, b""), &stop]),
        ),
        (
            "src-packet-length-past-end.dem",
            cat(&[&tf, &sync, &packet(100, b"abc")]),
        ),
        (
            "src-packet-length-i32-max.dem",
            cat(&[&tf, &sync, &packet(i32::MAX, b"abc"), &stop]),
        ),
        (
            "src-packet-length-zero.dem",
            cat(&[&tf, &sync, &packet(0, b""), &stop]),
        ),
        (
            "src-negative-consolecmd-length.dem",
            cat(&[&tf, &sync, &src_cmd(4, 1, false), &le(&[i32::MIN]), &stop]),
        ),
        (
            "src-consolecmd-length-i32-max.dem",
            cat(&[
                &tf,
                &sync,
                &src_cmd(4, 1, false),
                &le(&[i32::MAX]),
                b"say\0",
            ]),
        ),
        (
            "src-consolecmd-unterminated.dem",
            cat(&[&tf, &sync, &src_cmd(4, 1, false), &le(&[3]), b"say", &stop]),
        ),
        (
            "src-cut-in-usercmd-prefix.dem",
            cat(&[&tf, &sync, &src_cmd(5, 1, false), &le(&[7])]),
        ),
        (
            "src-negative-usercmd-length.dem",
            cat(&[&tf, &sync, &src_cmd(5, 1, false), &le(&[7, -8]), &stop]),
        ),
        (
            "src-negative-datatables-length.dem",
            cat(&[&tf, &src_cmd(6, 0, false), &le(&[-1024]), &stop]),
        ),
        (
            "src-negative-stringtables-length.dem",
            cat(&[&tf, &sync, &src_cmd(8, 0, false), &le(&[-1]), &stop]),
        ),
        (
            "src-portal2-negative-customdata-length.dem",
            cat(&[&p2, &src_cmd(8, 0, true), &le(&[-1, -1]), &stop_slot]),
        ),
        (
            "src-portal2-customdata-length-past-end.dem",
            cat(&[&p2, &src_cmd(8, 0, true), &le(&[0, 64]), &[0u8; 10]]),
        ),
        // The end.
        ("src-no-stop.dem", cat(&[&tf, &sync, &packet(3, b"abc")])),
        ("src-cut-in-payload.dem", good[..good.len() - 8].to_vec()),
        ("src-stop-without-tail.dem", cat(&[&tf, &sync, &[7]])),
        (
            "src-stop-3-byte-tail.dem",
            cat(&[&tf, &sync, &[7, 0x10, 0x20, 0x30]]),
        ),
        (
            "src-bytes-after-stop.dem",
            cat(&[&good, b"junk after the stop command"]),
        ),
        (
            "src-stop-tail-2000-bytes.dem",
            cat(&[&tf, &sync, &stop, &[0xab; 2000]]),
        ),
        (
            "src-negative-tick.dem",
            cat(&[&tf, &src_cmd(3, -100, false), &stop]),
        ),
    ]
}

/// Every malformed input: name and bytes.
fn corpus() -> Vec<(&'static str, Vec<u8>)> {
    let mut out = twdemo();
    out.extend(teehistorian());
    out.extend(source());
    out
}

#[test]
fn committed_corpus_is_what_the_code_makes() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/malformed");
    let bless = std::env::var("DEMOKIT_BLESS").is_ok_and(|v| v == "1");
    let corpus = corpus();
    let mut names = std::collections::BTreeSet::new();
    for (name, bytes) in &corpus {
        assert!(names.insert(*name), "{name} is made twice");
        assert!(bytes.len() < MAX_FILE, "{name} is {} bytes", bytes.len());
        let ext_ok = name.starts_with("twdemo-") && name.ends_with(".demo")
            || name.starts_with("th-") && name.ends_with(".teehistorian")
            || name.starts_with("src-") && name.ends_with(".dem");
        assert!(ext_ok, "{name}: prefix and extension must name the format");
    }
    if bless {
        std::fs::create_dir_all(&dir).unwrap();
    }
    for (name, bytes) in &corpus {
        let path = dir.join(name);
        if bless {
            std::fs::write(&path, bytes).unwrap();
        }
        let committed = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (DEMOKIT_BLESS=1 makes it)", path.display()));
        assert!(
            committed == *bytes,
            "{name} differs from what the code makes now"
        );
    }
    // No stray file: everything in the directory is made here.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let entry = entry.unwrap();
        // fixtures/malformed/fuzz/ holds fuzzer findings (tests/robustness/fuzz_regressions.rs).
        if entry.file_type().unwrap().is_dir() {
            continue;
        }
        let name = entry.file_name().into_string().unwrap();
        assert!(
            names.contains(name.as_str()),
            "fixtures/malformed/{name} is not made by this test"
        );
    }
}
