//! The entry point reads a Source demo as a stream for `summary`, `validate`, `dump`,
//! `rewrite` and `repair`: the heap each holds at once stays far below the file's size. The
//! file is a TF2-profile demo of 5,000 packet frames of 1 KiB (about 5.5 MB), whole and cut
//! inside its last frame; each operation must peak below a tenth of it.

use crate::common::alloc::Peaks;
use crate::common::temp::TempDir;
use demokit::recording::{Recording, RepairOptions};
use demokit::source::{Body, Frame, Header, PacketBody, Profile, SourceWriter};
use std::io::sink;

/// A TF2 demo of `packets` packet frames after a synctick, with its stop command and the
/// header a repair gives it (so that it validates).
fn generated(packets: i32) -> Vec<u8> {
    let profile = Profile::SOURCE_2013;
    let header = Header::new(3, 24, "localhost:27015", "me", "cp_foo", "tf");
    let mut writer = SourceWriter::with_profile(Vec::new(), &header, profile).unwrap();
    let sync = Frame {
        tick: 0,
        slot: profile.slot_byte.then_some(0),
        body: Body::SyncTick,
    };
    writer.write_frame(&sync).unwrap();
    let view = vec![0u8; 76];
    let data: Vec<u8> = (0..1024u32).map(|i| (i * 7) as u8).collect();
    for tick in 1..=packets {
        let packet = Frame {
            tick,
            slot: profile.slot_byte.then_some(0),
            body: Body::Packet(PacketBody {
                view: &view,
                seq_in: tick,
                seq_out: tick,
                data: &data,
            }),
        };
        writer.write_frame(&packet).unwrap();
    }
    writer.write_frame(&Frame::stop(packets, &profile)).unwrap();
    let data = writer.finish().unwrap();
    let mut repaired = Vec::new();
    demokit::source::repair(&data, &Default::default(), &mut repaired).unwrap();
    repaired
}

/// Heap peaks of each streamed operation on the file at `path`, by name.
fn peaks(path: &std::path::Path, whole: bool) -> Vec<(&'static str, usize)> {
    let recording = Recording::open(path).unwrap();
    let mut peaks = Peaks::default();
    peaks.run("summary", || {
        let (_, error) = recording.summary().unwrap();
        assert_eq!(error.is_none(), whole);
    });
    peaks.run("validate", || {
        assert_eq!(recording.validate().unwrap().problems.is_empty(), whole);
    });
    let mut frames = 0u64;
    peaks.run("dump", || {
        let end = recording.dump(|_| frames += 1).unwrap();
        assert_eq!(end.error.is_none(), whole);
    });
    assert!(frames >= 5000, "{frames} frames");
    peaks.run("rewrite", || {
        assert_eq!(recording.rewrite(sink()).unwrap().error.is_none(), whole);
    });
    peaks.run("repair", || {
        recording.repair(&RepairOptions::default(), sink()).unwrap();
    });
    peaks.0
}

#[test]
fn streamed_operations_hold_a_bounded_part_of_the_file() {
    let data = generated(5000);
    let dir = TempDir::new("source-streaming");
    let whole = dir.write("whole.dem", &data);
    let cut = dir.write("cut.dem", &data[..data.len() - 700]);
    for (path, is_whole) in [(whole, true), (cut, false)] {
        let peaks = peaks(&path, is_whole);
        println!(
            "{}: {} bytes; heap peaks: {peaks:?}",
            path.display(),
            data.len()
        );
        for (name, peak) in peaks {
            assert!(
                peak < data.len() / 10,
                "{name} held {peak} bytes at once of a {}-byte file",
                data.len()
            );
        }
    }
}

#[test]
fn a_streamed_repair_is_the_repair_of_the_bytes() {
    let data = generated(300);
    let dir = TempDir::new("source-streaming-repair");
    for cut in [data.len(), data.len() - 3, data.len() - 700, 1100] {
        let path = dir.write("cut.dem", &data[..cut]);
        let mut streamed = Vec::new();
        let report = Recording::open(&path)
            .unwrap()
            .repair(&RepairOptions::default(), &mut streamed)
            .unwrap();
        let mut whole = Vec::new();
        let expected = Recording::from_bytes(data[..cut].to_vec())
            .unwrap()
            .repair(&RepairOptions::default(), &mut whole)
            .unwrap();
        assert_eq!(streamed, whole, "cut at {cut}");
        assert_eq!(format!("{report:?}"), format!("{expected:?}"));
        // A repaired file is finished: a second repair changes nothing.
        let path = dir.write("repaired.dem", &streamed);
        let mut again = Vec::new();
        Recording::open(&path)
            .unwrap()
            .repair(&RepairOptions::default(), &mut again)
            .unwrap();
        assert_eq!(again, streamed, "cut at {cut}");
    }
}
