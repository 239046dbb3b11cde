//! No command destroys its input or leaves a partial file. For every command that writes
//! (`rewrite` of each format, `repair` of each format, `convert`, `trim`, `extract-map`):
//!
//! * an output that is the input (the same path, another spelling, a hard link, a symbolic
//!   link, a chain of them) is refused with exit 2, with or without `--force`, and the input
//!   is unchanged byte for byte;
//! * an existing output is refused with exit 2 and untouched, and replaced with `--force`;
//! * `--in-place` (repair, convert) replaces the input with what a normal run writes;
//! * a write that fails midway (the process's file-size limit, which stops writes past a
//!   few KiB with `EFBIG` even for root) exits 3 and leaves no partial output, an existing
//!   output or the input as it was, and no temporary file;
//! * an output whose parent is a file is an I/O error (exit 3) that creates nothing.
//!
//! The inputs are made here (with a map, messages and frames enough for every output to be
//! well past the file-size limit), so the tests need nothing from the corpus.

use crate::common;

use crate::run::{BIN, command, stderr};
use common::recorded;
use common::temp::TempDir;
use demokit::source::{Body, Frame, SourceSlice, SourceWriter};
use demokit::teehistorian::{Message, TeehistorianSlice, TeehistorianWriter};
use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every output is larger than this, so the file-size limit cuts each one midway.
const MIN_OUTPUT: usize = 16 * 1024;

/// A Teeworlds demo with a 20 KiB map, keyframes, deltas, messages and timeline markers.
fn demo() -> Vec<u8> {
    recorded::demo_with_map("output_safety", 1000..=1399, |rec, tick| {
        if tick % 50 == 0 {
            rec.record_message(format!("\x06\x00\x40tick {tick}\0").as_bytes())
                .unwrap();
            rec.add_timeline_marker(tick);
        }
    })
}

/// A teehistorian file: the header of a committed fixture, then players moving over
/// thousands of messages, then FINISH.
fn teehistorian() -> Vec<u8> {
    let fixture = std::fs::read(fixture("malformed/th-ex-unknown-uuid.teehistorian")).unwrap();
    let slice = TeehistorianSlice::parse(&fixture).unwrap();
    let mut writer = TeehistorianWriter::with_header_json(Vec::new(), slice.header_json()).unwrap();
    for cid in 0..16 {
        writer
            .write(&Message::PlayerNew {
                cid,
                x: 100 * cid,
                y: 200,
            })
            .unwrap();
    }
    for step in 0..6000 {
        writer
            .write(&Message::PlayerDiff {
                cid: step % 16,
                dx: 1000 + step,
                dy: -1,
            })
            .unwrap();
    }
    writer.finish().unwrap()
}

/// A Source demo: the header of a committed fixture, its synctick, hundreds of console
/// commands and its stop.
fn source_demo() -> Vec<u8> {
    let fixture = std::fs::read(fixture("malformed/src-stop-without-tail.dem")).unwrap();
    let slice = SourceSlice::parse(&fixture).unwrap();
    let frames: Vec<Frame<'_>> = slice.frames().map(|f| f.unwrap().frame).collect();
    let [synctick, stop] = &frames[..] else {
        panic!("the fixture changed: {} frames", frames.len())
    };
    let mut writer =
        SourceWriter::with_profile(Vec::new(), slice.header(), *slice.profile()).unwrap();
    writer.write_frame(synctick).unwrap();
    for i in 0..500 {
        let text = format!("echo output safety line {i}\0");
        writer
            .write_frame(&Frame {
                tick: synctick.tick,
                slot: synctick.slot,
                body: Body::ConsoleCmd(text.as_bytes()),
            })
            .unwrap();
    }
    writer
        .write_frame(&Frame {
            tick: stop.tick,
            slot: stop.slot,
            body: match &stop.body {
                Body::Stop { tail } => Body::Stop {
                    tail: Cow::Borrowed(&tail[..]),
                },
                other => panic!("the fixture changed: {other:?}"),
            },
        })
        .unwrap();
    writer.finish().unwrap()
}

/// A committed fixture.
fn fixture(name: &str) -> PathBuf {
    common::root().join("fixtures").join(name)
}

/// One command that writes a file, on an input of its own.
struct Case {
    /// For messages.
    name: &'static str,
    /// The subcommand.
    command: &'static str,
    /// Arguments after INPUT and OUTPUT.
    extra: &'static [&'static str],
    /// The input's bytes.
    input: Vec<u8>,
    /// Whether the command takes `--in-place`.
    in_place: bool,
}

/// Every command that writes a file.
fn cases() -> Vec<Case> {
    let (demo, teehistorian, source) = (demo(), teehistorian(), source_demo());
    let case = |name, command, extra, input: &Vec<u8>, in_place| Case {
        name,
        command,
        extra,
        input: input.clone(),
        in_place,
    };
    vec![
        case("rewrite demo", "rewrite", &[], &demo, false),
        case("rewrite teehistorian", "rewrite", &[], &teehistorian, false),
        case("rewrite source", "rewrite", &[], &source, false),
        case("repair demo", "repair", &[], &demo, true),
        case("repair source", "repair", &[], &source, true),
        // Unfinished (FINISH cut off), so that the repair appends it.
        case(
            "repair teehistorian",
            "repair",
            &[],
            &teehistorian[..teehistorian.len() - 1].to_vec(),
            true,
        ),
        case("convert", "convert", &["--version", "5"], &demo, true),
        case(
            "trim",
            "trim",
            &["--from", "1100", "--to", "1300"],
            &demo,
            false,
        ),
        case("extract-map", "extract-map", &[], &demo, false),
    ]
}

impl Case {
    /// The arguments: the subcommand, INPUT, OUTPUT (when given), the command's own
    /// arguments, then `flags`.
    fn args(&self, input: &Path, output: Option<&Path>, flags: &[&str]) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec![self.command.into(), input.into()];
        args.extend(output.map(OsString::from));
        args.extend(self.extra.iter().chain(flags).map(OsString::from));
        args
    }

    /// Runs the command.
    fn run(&self, input: &Path, output: Option<&Path>, flags: &[&str]) -> Output {
        command()
            .args(self.args(input, output, flags))
            .output()
            .expect("demokit runs")
    }

    /// Runs the command with the process's file-size limit at a few KiB and `SIGXFSZ`
    /// ignored, so that a write past the limit fails with `EFBIG` instead of killing it.
    #[cfg(unix)]
    fn run_with_size_limit(&self, input: &Path, output: Option<&Path>, flags: &[&str]) -> Output {
        // `ulimit -f` counts 512-byte blocks in POSIX shells (1 KiB ones in bash): 8 is
        // 4 or 8 KiB, both well below every output.
        Command::new("sh")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 8 && exec \"$@\"")
            .arg("sh")
            .arg(BIN)
            .args(self.args(input, output, flags))
            .output()
            .expect("sh runs")
    }

    /// What a run to a fresh path writes (checked to succeed and to be large enough for the
    /// failing-write tests).
    fn expected(&self) -> Vec<u8> {
        let dir = TempDir::new("output-safety-expected");
        let input = dir.write("input", &self.input);
        let output = dir.path("expected");
        let out = self.run(&input, Some(&output), &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            self.name,
            stderr(&out)
        );
        let bytes = std::fs::read(&output).unwrap();
        assert!(
            bytes.len() > MIN_OUTPUT,
            "{}: the output has only {} bytes",
            self.name,
            bytes.len()
        );
        bytes
    }
}

/// Asserts the exit status and that stderr names `path`.
fn assert_refused(out: &Output, code: i32, path: &Path, what: &str) {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{what}: {text}");
    assert!(
        text.contains(&path.display().to_string()),
        "{what}: stderr does not name {}: {text}",
        path.display()
    );
}

#[test]
fn an_output_that_is_the_input_is_refused() {
    for case in cases() {
        let dir = TempDir::new("output-safety-same");
        let input = dir.write("input.rec", &case.input);
        let sub = dir.path("sub");
        std::fs::create_dir(&sub).unwrap();
        let mut aliases = vec![
            input.clone(),
            dir.0.join(".").join("input.rec"),
            sub.join("..").join("input.rec"),
        ];
        #[cfg(unix)]
        {
            let hard = dir.path("hard.rec");
            std::fs::hard_link(&input, &hard).unwrap();
            let soft = dir.path("soft.rec");
            std::os::unix::fs::symlink("input.rec", &soft).unwrap();
            let chain = sub.join("chain.rec");
            std::os::unix::fs::symlink("../soft.rec", &chain).unwrap();
            aliases.extend([hard, soft, chain]);
        }
        let before = dir.names();
        for alias in &aliases {
            for flags in [&[][..], &["--force"], &["-f"]] {
                let what = format!("{} -> {} {flags:?}", case.name, alias.display());
                let out = case.run(&input, Some(alias), flags);
                assert_refused(&out, 2, alias, &what);
                assert!(stderr(&out).contains("same file as the input"), "{what}");
                // The input given through the alias and the output as the real path.
                let out = case.run(alias, Some(&input), flags);
                assert_refused(&out, 2, &input, &what);
                assert_eq!(std::fs::read(&input).unwrap(), case.input, "{what}");
                assert_eq!(dir.names(), before, "{what}");
            }
        }
    }
}

#[test]
fn an_existing_output_is_replaced_only_with_force() {
    for case in cases() {
        let expected = case.expected();
        let dir = TempDir::new("output-safety-existing");
        let input = dir.write("input.rec", &case.input);
        let output = dir.write("output.rec", b"an older file");
        let out = case.run(&input, Some(&output), &[]);
        assert_refused(&out, 2, &output, case.name);
        assert!(stderr(&out).contains("already exists"), "{}", case.name);
        assert_eq!(std::fs::read(&output).unwrap(), b"an older file");
        for flag in ["--force", "-f"] {
            std::fs::write(&output, b"an older file").unwrap();
            let out = case.run(&input, Some(&output), &[flag]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{} {flag}: {}",
                case.name,
                stderr(&out)
            );
            assert_eq!(
                std::fs::read(&output).unwrap(),
                expected,
                "{} {flag}",
                case.name
            );
        }
        assert_eq!(std::fs::read(&input).unwrap(), case.input, "{}", case.name);
        assert_eq!(dir.names(), ["input.rec", "output.rec"], "{}", case.name);
    }
}

#[test]
fn in_place_replaces_the_input_with_the_result() {
    for case in cases() {
        let dir = TempDir::new("output-safety-in-place");
        let input = dir.write("input.rec", &case.input);
        if !case.in_place {
            // The flag does not exist there: a usage error that touches nothing.
            let out = case.run(&input, None, &["--in-place"]);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{}: {}",
                case.name,
                stderr(&out)
            );
            assert_eq!(std::fs::read(&input).unwrap(), case.input, "{}", case.name);
            continue;
        }
        let expected = case.expected();
        let out = case.run(&input, None, &["--in-place"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            case.name,
            stderr(&out)
        );
        assert_eq!(std::fs::read(&input).unwrap(), expected, "{}", case.name);
        assert_eq!(dir.names(), ["input.rec"], "{}", case.name);

        // OUTPUT and --in-place together are a usage error.
        std::fs::write(&input, &case.input).unwrap();
        let out = case.run(&input, Some(&dir.path("other.rec")), &["--in-place"]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}: {}",
            case.name,
            stderr(&out)
        );
        assert_eq!(std::fs::read(&input).unwrap(), case.input, "{}", case.name);
        assert_eq!(dir.names(), ["input.rec"], "{}", case.name);

        // Through a symbolic link, the file it points to is replaced and the link stays.
        #[cfg(unix)]
        {
            let link = dir.path("link.rec");
            std::os::unix::fs::symlink("input.rec", &link).unwrap();
            let out = case.run(&link, None, &["--in-place"]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}: {}",
                case.name,
                stderr(&out)
            );
            let meta = std::fs::symlink_metadata(&link).unwrap();
            assert!(meta.file_type().is_symlink(), "{}", case.name);
            assert_eq!(std::fs::read(&input).unwrap(), expected, "{}", case.name);
            assert_eq!(dir.names(), ["input.rec", "link.rec"], "{}", case.name);
        }
    }
}

/// The file-size limit makes the write fail after a few KiB: exit 3, the error names the
/// byte it failed at, and nothing of the new file is left anywhere.
#[cfg(unix)]
#[test]
fn a_write_failing_midway_leaves_no_partial_output() {
    for case in cases() {
        case.expected();
        let dir = TempDir::new("output-safety-fail");
        let input = dir.write("input.rec", &case.input);

        // Over an existing file, with --force: the old file stays.
        let output = dir.write("output.rec", b"an older file");
        let out = case.run_with_size_limit(&input, Some(&output), &["--force"]);
        assert_refused(&out, 3, &output, case.name);
        assert_written_midway(&out, case.name);
        assert_eq!(
            std::fs::read(&output).unwrap(),
            b"an older file",
            "{}",
            case.name
        );
        assert_eq!(dir.names(), ["input.rec", "output.rec"], "{}", case.name);

        // A new file: none is left.
        std::fs::remove_file(&output).unwrap();
        let out = case.run_with_size_limit(&input, Some(&output), &[]);
        assert_refused(&out, 3, &output, case.name);
        assert_written_midway(&out, case.name);
        assert_eq!(dir.names(), ["input.rec"], "{}", case.name);

        // In place: the input stays.
        if case.in_place {
            let out = case.run_with_size_limit(&input, None, &["--in-place"]);
            assert_refused(&out, 3, &input, case.name);
            assert_written_midway(&out, case.name);
            assert_eq!(dir.names(), ["input.rec"], "{}", case.name);
        }
        assert_eq!(std::fs::read(&input).unwrap(), case.input, "{}", case.name);
    }
}

/// Asserts that the write failed after some bytes had landed, not before the first.
#[cfg(unix)]
fn assert_written_midway(out: &Output, what: &str) {
    let text = stderr(out);
    let offset: u64 = text
        .split("cannot write at byte ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{what}: no write offset in {text}"));
    assert!(
        offset > 0 && offset < MIN_OUTPUT as u64,
        "{what}: failed at byte {offset}"
    );
}

#[test]
fn an_output_under_a_file_is_an_io_error() {
    for case in cases() {
        let dir = TempDir::new("output-safety-parent");
        let input = dir.write("input.rec", &case.input);
        let output = input.join("output.rec");
        for flags in [&[][..], &["--force"]] {
            let out = case.run(&input, Some(&output), flags);
            assert_refused(&out, 3, &output, case.name);
            assert_eq!(std::fs::read(&input).unwrap(), case.input, "{}", case.name);
            assert_eq!(dir.names(), ["input.rec"], "{}", case.name);
        }
    }
}

#[test]
fn an_output_that_is_no_regular_file_is_refused() {
    for case in cases() {
        let dir = TempDir::new("output-safety-notfile");
        let input = dir.write("input.rec", &case.input);
        let sub = dir.path("sub");
        std::fs::create_dir(&sub).unwrap();
        let mut targets = vec![sub.clone()];
        if cfg!(unix) {
            targets.push(PathBuf::from("/dev/null"));
        }
        for target in &targets {
            let out = case.run(&input, Some(target), &["--force"]);
            assert_refused(&out, 2, target, case.name);
            assert!(stderr(&out).contains("not a regular file"), "{}", case.name);
        }
        assert_eq!(dir.names(), ["input.rec", "sub"], "{}", case.name);
        assert!(std::fs::read_dir(&sub).unwrap().next().is_none());
    }
}
