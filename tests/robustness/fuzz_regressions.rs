//! What the fuzz targets check, run without a fuzzer: every property of `fuzz_checks/`
//! on every input a fuzzer found (`fixtures/malformed/fuzz/`, named `<target>-<what>`),
//! on every committed fixture and malformed input, and on the DDNet reference files; plus
//! the exact outcome of each finding that was a defect in demokit rather than in the
//! harness.

use crate::fuzz_checks;

use crate::common;

use demokit::codec::varint;
use demokit::twdemo as tw;
use std::path::{Path, PathBuf};

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// The fuzz check of `target`.
fn check_of(target: &str) -> Option<fn(&[u8])> {
    Some(match target {
        "twdemo_read" => fuzz_checks::twdemo_read,
        "twdemo_roundtrip" => fuzz_checks::twdemo_roundtrip,
        "twdemo_tools" => fuzz_checks::twdemo_tools,
        "teehistorian_read" => fuzz_checks::teehistorian_read,
        "teehistorian_roundtrip" => fuzz_checks::teehistorian_roundtrip,
        "source_read" => fuzz_checks::source_read,
        "source_roundtrip" => fuzz_checks::source_roundtrip,
        "huffman" => fuzz_checks::huffman,
        "varint" => fuzz_checks::varint,
        "snapshot_delta" => fuzz_checks::snapshot_delta,
        "source_entity" => fuzz_checks::source_entity,
        "render_page" => fuzz_checks::render_page,
        _ => return None,
    })
}

/// Every target in `fuzz/Cargo.toml` has a check here, and every check a target.
#[test]
fn every_fuzz_target_is_covered() {
    // The published crate ships this test but not the fuzz crate.
    if !project().join("fuzz").is_dir() {
        crate::common::skip::skipped("no fuzz/ beside this test (a packaged crate)");
        return;
    }
    let manifest = std::fs::read_to_string(project().join("fuzz/Cargo.toml")).unwrap();
    let targets: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|n| *n != "demokit-fuzz")
        .collect();
    assert_eq!(targets.len(), 12, "targets in fuzz/Cargo.toml: {targets:?}");
    for target in targets {
        assert!(
            check_of(target).is_some(),
            "no check for fuzz target {target}"
        );
        let path = project().join(format!("fuzz/fuzz_targets/{target}.rs"));
        let source = std::fs::read_to_string(&path).unwrap();
        assert!(
            source.contains(&format!("demokit_fuzz::{target}(data)")),
            "{} does not call its check",
            path.display()
        );
    }
}

/// Each input a fuzzer found, run through the check of the target that found it.
#[test]
fn fuzz_findings_pass_their_target() {
    let dir = project().join("fixtures/malformed/fuzz");
    let found = files(&dir);
    assert!(!found.is_empty(), "no findings in {}", dir.display());
    for path in found {
        let name = path.file_name().unwrap().to_str().unwrap();
        let target = name.split('-').next().unwrap();
        let check = check_of(target)
            .unwrap_or_else(|| panic!("{name}: no fuzz target {target} (name it <target>-<what>)"));
        check(&std::fs::read(&path).unwrap());
    }
}

/// The reader and round-trip checks on every committed demo, teehistorian and Source file
/// (the malformed corpus included) and on the DDNet reference recordings.
#[test]
fn fuzz_checks_hold_on_every_fixture() {
    let mut inputs = files(&project().join("fixtures"));
    inputs.extend(files(&project().join("fixtures/malformed")));
    if let Some(shared) = common::shared_dir() {
        inputs.extend(files(&shared.join("conformance/ddnet-recorder")));
        inputs.extend(files(&shared.join("real-fixtures/teehistorian")));
        inputs.extend(files(&shared.join("real-fixtures/negative")));
    }
    let mut checked = 0;
    for path in &inputs {
        let data = std::fs::read(path).unwrap();
        let targets: &[&str] = match path.extension().and_then(|e| e.to_str()) {
            Some("demo") => &[
                "twdemo_read",
                "twdemo_roundtrip",
                "twdemo_tools",
                "render_page",
            ],
            Some("teehistorian") => &["teehistorian_read", "teehistorian_roundtrip", "render_page"],
            Some("dem") => &[
                "source_read",
                "source_roundtrip",
                "source_entity",
                "render_page",
            ],
            _ => continue,
        };
        for target in targets {
            check_of(target).unwrap()(&data);
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} checks ran");
}

/// Defect: the codec counted `ff ff ff ff ff` (the fifth byte's ignored high bits set) as
/// an int in canonical form, so twdemo payload statistics called such a payload canonical
/// though re-encoding it gives other bytes. Teehistorian already had the right rule; the
/// codec now has it and teehistorian uses it.
#[test]
fn a_fifth_int_byte_with_high_bits_is_not_canonical() {
    let data =
        std::fs::read(project().join("fixtures/malformed/fuzz/varint-fifth-byte-high-bits.bin"))
            .unwrap();
    assert_eq!(data, [0xff; 5]);
    let mut ints = Vec::new();
    assert_eq!(varint::unpack_ints(&data, &mut ints, 8), Ok(1));
    assert_eq!(ints, [i32::MIN]);
    assert!(!varint::is_canonical(i32::MIN, &data));
    assert!(varint::is_canonical(
        i32::MIN,
        &[0xff, 0xff, 0xff, 0xff, 0x0f]
    ));

    // The demo a fuzzer built around such an int: the decoder counts it.
    let demo = std::fs::read(
        project().join("fixtures/malformed/fuzz/twdemo_read-payload-int-fifth-byte-high-bits.demo"),
    )
    .unwrap();
    let slice = tw::DemoSlice::parse(&demo).unwrap();
    let mut decoder = tw::PayloadDecoder::new();
    let mut non_canonical = 0;
    for item in slice.chunks() {
        if let tw::Chunk::Data(d) = item.unwrap().chunk
            && let Ok(p) = decoder.decode(d.payload)
        {
            non_canonical += p.non_canonical_ints;
        }
    }
    assert!(
        non_canonical > 0,
        "the payload's overlong int is not counted"
    );
}

/// Finding: a v6 demo without the SHA-256 block whose tiny map begins like the block's
/// UUID reads, but `repair` cut it to the map's end, and the reader then takes those bytes
/// for a SHA-256 block cut short (as it must: DDNet's reference demo has a map of a few
/// bytes, so a cut inside its UUID has to read as a cut). `repair` now checks that its
/// output reads and refuses such a file instead of writing one that does not.
#[test]
fn a_repair_that_would_not_read_back_is_refused() {
    let data = std::fs::read(
        project()
            .join("fixtures/malformed/fuzz/twdemo_read-repaired-map-begins-like-sha256-uuid.demo"),
    )
    .unwrap();
    let slice = tw::DemoSlice::parse(&data).unwrap();
    assert!(slice.prelude().map_sha256.is_none());
    let map_len = slice.map().len();
    assert!(map_len < 16);
    assert_eq!(
        slice.map(),
        &demokit::twdemo::container::format::SHA256_EXTENSION_UUID[..map_len]
    );
    let e = common::into_vec(|out| tw::edit::repair::repair(&data, out)).unwrap_err();
    assert!(
        matches!(&e, tw::edit::repair::RepairError::Ambiguous(r) if r.is_truncation()),
        "{e}"
    );

    // DDNet's reference demo, whose map is a few bytes long, cut inside its UUID: a cut.
    let finding = std::fs::read(
        project()
            .join("fixtures/malformed/fuzz/twdemo_read-cut-inside-sha256-uuid-of-tiny-map.demo"),
    )
    .unwrap();
    let prelude = tw::Prelude::parse(&finding).unwrap();
    assert!(prelude.map_sha256.is_some() && prelude.header.map_size < 16);
    let uuid_at = prelude.map_offset() - 48;
    for cut in uuid_at + 1..uuid_at + 16 {
        let e = tw::DemoSlice::parse(&finding[..cut]).unwrap_err();
        assert!(e.is_truncation() && e.offset == uuid_at as u64, "{e}");
    }
}

/// Defect: a Source header whose `playback_time` and `ticks` were both garbage (negative)
/// implied an interval of 3e38 s, so `repair` wrote an infinite `playback_time`, and a
/// second repair changed the file again. Only a time and tick count implying an interval
/// of 1 ms to 1 s are taken from the header now. A second finding: frames with negative
/// ticks give negative `ticks`; the interval must still be read back from such a header.
#[test]
fn source_repair_ignores_an_implausible_header_interval() {
    use demokit::source::repair::{IntervalSource, RepairOptions};
    let data =
        std::fs::read(project().join(
            "fixtures/malformed/fuzz/source_read-repair-header-time-implies-huge-interval.dem",
        ))
        .unwrap();
    let header = *demokit::source::SourceSlice::parse(&data).unwrap().header();
    assert!(header.playback_time < 0.0 && header.ticks < 0);
    let first = common::source_repair(&data, &RepairOptions::default()).unwrap();
    assert_eq!(first.report.interval_source, IntervalSource::Guessed);
    assert_eq!(first.report.interval, 0.015);
    let fixed = *demokit::source::SourceSlice::parse(&first.bytes)
        .unwrap()
        .header();
    assert!(fixed.playback_time.is_finite());
    let second = common::source_repair(&first.bytes, &RepairOptions::default()).unwrap();
    assert!(
        second.report.changes.is_empty(),
        "{:?}",
        second.report.changes
    );
    assert_eq!(second.bytes, first.bytes);
}

/// Findings (a limit of the format, not a defect): when a Source header leaves the profile
/// open, the first frames settle it (or it is guessed); a repair keeps the frames read
/// under that profile, and the repaired frames (cut, a stop appended) can settle another
/// one, under which a second repair sees other frames. The repair's output still reads to
/// its stop command under its own profile, and under the profile the repair used.
#[test]
fn a_source_repair_can_settle_an_open_profile_differently() {
    use demokit::source::repair::RepairOptions;
    use demokit::source::{ProfileOrigin, SourceSlice};
    let data = std::fs::read(
        project().join("fixtures/malformed/fuzz/source_read-repair-settles-another-profile.dem"),
    )
    .unwrap();
    let input = SourceSlice::parse(&data).unwrap();
    assert_eq!(input.profile_origin(), ProfileOrigin::Guessed);
    let repaired = common::source_repair(&data, &RepairOptions::default()).unwrap();
    assert!(repaired.report.stop_appended);
    let output = SourceSlice::parse(&repaired.bytes).unwrap();
    assert_eq!(output.profile_origin(), ProfileOrigin::Detected);
    assert_ne!(output.profile(), input.profile());
    assert!(output.frames().all(|f| f.is_ok()));
    // Read with the profile the repair used, the output is what the repair kept.
    let same = SourceSlice::with_profile(&repaired.bytes, *input.profile()).unwrap();
    let frames = same.frames().collect::<Result<Vec<_>, _>>().unwrap();
    assert_eq!(frames.len() as u64, repaired.report.frames_kept + 1);

    // A profile the first frames settled, which the repaired frames leave open.
    let data = std::fs::read(
        project()
            .join("fixtures/malformed/fuzz/source_read-repair-unsettles-a-detected-profile.dem"),
    )
    .unwrap();
    let input = SourceSlice::parse(&data).unwrap();
    assert_eq!(input.profile_origin(), ProfileOrigin::Detected);
    let repaired = common::source_repair(&data, &RepairOptions::default()).unwrap();
    let output = SourceSlice::parse(&repaired.bytes).unwrap();
    assert_ne!(output.profile(), input.profile());
    assert!(output.frames().all(|f| f.is_ok()));
    let same = SourceSlice::with_profile(&repaired.bytes, *input.profile()).unwrap();
    assert!(same.frames().all(|f| f.is_ok()));
}

/// A fuzzing run without a fuzzer, for a fixed time budget: the fuzz checks of the file
/// readers, the Source entity walk and the pictures and pages (`render_page`) on inputs
/// made by stacking random damage (flipped bits, `0x7fffffff` ints, cuts, copied runs) on
/// the fixtures and the corpus's recordings. `DEMOKIT_FUZZ_SECONDS` sets the budget (CI
/// gives it a minute; 3 seconds otherwise). The run's seed is printed and taken from
/// `DEMOKIT_FUZZ_SEED` when set, so a failure reproduces; a failing input is also written
/// to `target/fuzz-failures/`.
#[test]
fn random_damage_for_a_time_budget() {
    let seconds: u64 = std::env::var("DEMOKIT_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let seed: u64 = std::env::var("DEMOKIT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("random damage: seed {seed} (DEMOKIT_FUZZ_SEED), {seconds} s");
    let mut seeds: Vec<PathBuf> = files(&project().join("fixtures"));
    seeds.extend(files(&project().join("fixtures/source")));
    let shared = common::shared_dir().unwrap();
    for format in ["twdemo", "teehistorian", "source"] {
        seeds.extend(
            common::facts_files(&shared, format)
                .into_iter()
                .map(|(p, _)| p),
        );
    }
    // Small inputs mutate and read faster: the large recordings are cut to their first
    // 256 KiB (their headers, maps and first ticks).
    let inputs: Vec<(PathBuf, Vec<u8>)> = seeds
        .into_iter()
        .map(|p| {
            let mut data = std::fs::read(&p).unwrap();
            data.truncate(256 << 10);
            (p, data)
        })
        .collect();
    let mut state = seed | 1;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n.max(1)
    };
    let started = std::time::Instant::now();
    let mut runs = 0u64;
    while started.elapsed().as_secs() < seconds {
        let (path, data) = &inputs[next(inputs.len() as u64) as usize];
        let mut input = data.clone();
        for _ in 0..=next(4) {
            if input.is_empty() {
                break;
            }
            let at = next(input.len() as u64) as usize;
            match next(4) {
                0 => input[at] ^= 1 << next(8),
                1 => {
                    let end = (at + 4).min(input.len());
                    input[at..end].copy_from_slice(&[0xff, 0xff, 0xff, 0x7f][..end - at]);
                }
                2 => input.truncate(at),
                _ => {
                    let from = next(input.len() as u64) as usize;
                    let len = (next(64) as usize).min(input.len() - at.max(from));
                    let run = input[from..from + len].to_vec();
                    input[at..at + len].copy_from_slice(&run);
                }
            }
        }
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let targets: &[&str] = match extension {
            "demo" => &["twdemo_read", "render_page"],
            "teehistorian" => &["teehistorian_read", "render_page"],
            "dem" => &["source_read", "source_entity", "render_page"],
            _ => &["twdemo_read", "teehistorian_read", "source_read"],
        };
        for target in targets {
            let check = check_of(target).unwrap();
            if std::panic::catch_unwind(|| check(&input)).is_err() {
                let dir = project().join("target/fuzz-failures");
                std::fs::create_dir_all(&dir).unwrap();
                let kept = dir.join(format!("{target}-{seed}-{runs}"));
                std::fs::write(&kept, &input).unwrap();
                panic!(
                    "{target} failed on damaged {} (seed {seed}, run {runs}); the input is {}",
                    path.display(),
                    kept.display()
                );
            }
        }
        runs += 1;
    }
    eprintln!("random damage: {runs} inputs in {seconds} s, seed {seed}");
    assert!(runs > 0);
}
