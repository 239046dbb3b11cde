//! Compressed recordings through the tool (issue 52): `info`, `validate`, `export` and
//! `rewrite` of a demo, a teehistorian file and a TF2 demo compressed four ways give the
//! plain file's results (with the codec and both sizes in `info`); an output named
//! `*.zst` (and so on) is written compressed; a cut or corrupt stream exits as a cut file
//! does.

use crate::common::temp::TempDir;
use crate::common::{one_real_recording_per_format, root};
use crate::run::{demokit, json_lines, run, stdout};
use demokit::recording::{Codec, Recording, encoder};
use std::io::Write;
use std::path::PathBuf;

/// A demo, a teehistorian file and a TF2 demo that ship with the repository.
fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
    let mut e = encoder(codec, Vec::new()).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn compressed_fixtures_give_the_plain_files_results() {
    let dir = TempDir::new("cli-compressed");
    for path in one_real_recording_per_format() {
        let plain = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        let info = run("info", &path, &[]);
        assert!(info.status.success());
        let validate = run("validate", &path, &[]);
        let plain_out = dir.path(&format!("plain-{name}"));
        let rewrite = demokit(&["rewrite".as_ref(), path.as_os_str(), plain_out.as_os_str()]);
        assert!(rewrite.status.success());
        let rewritten = std::fs::read(&plain_out).unwrap();
        for codec in Codec::ALL {
            let what = format!("{name} as {codec}");
            let packed = compress(codec, &plain);
            let file = dir.write(&format!("{name}.{}", codec.extension()), &packed);
            // info: the plain file's rows, then the codec and both sizes.
            let out = run("info", &file, &[]);
            assert!(out.status.success(), "{what}");
            let expected = format!(
                "{}compression       {codec}\ncompressed size   {} bytes\nrecording size    {} bytes\n",
                stdout(&info),
                packed.len(),
                plain.len()
            );
            assert_eq!(stdout(&out), expected, "{what}");
            let json = json_lines(&run("info", &file, &["--json"]));
            let compression = &json[0]["compression"];
            assert_eq!(compression["codec"], codec.name(), "{what}");
            assert_eq!(compression["compressed_bytes"], packed.len() as u64);
            assert_eq!(compression["recording_bytes"], plain.len() as u64);
            let plain_json = json_lines(&run("info", &path, &["--json"]));
            assert_eq!(json[0]["messages"], plain_json[0]["messages"], "{what}");
            // validate: the same report and status, but for the file's name.
            let out = run("validate", &file, &[]);
            assert_eq!(out.status.code(), validate.status.code(), "{what}");
            assert_eq!(
                stdout(&out).replace(file.to_str().unwrap(), path.to_str().unwrap()),
                stdout(&validate),
                "{what}"
            );
            // rewrite into a plain file: the plain file's rewrite, byte for byte.
            let out_plain = dir.path(&format!("out-{name}-{codec}"));
            let out = demokit(&["rewrite".as_ref(), file.as_os_str(), out_plain.as_os_str()]);
            assert!(out.status.success(), "{what}");
            assert_eq!(std::fs::read(&out_plain).unwrap(), rewritten, "{what}");
            // rewrite into `*.zst`: compressed, the same bytes once decompressed.
            let out_packed = dir.path(&format!("out-{name}.{}", codec.extension()));
            let out = demokit(&["rewrite".as_ref(), file.as_os_str(), out_packed.as_os_str()]);
            assert!(out.status.success(), "{what}");
            let written = std::fs::read(&out_packed).unwrap();
            assert_eq!(Codec::detect(&written), Some(codec), "{what}");
            let back = Recording::from_bytes(written).unwrap();
            assert_eq!(
                back.bytes().unwrap().as_ref(),
                rewritten.as_slice(),
                "{what}"
            );
            // export: read to the end, as the plain file is.
            let dataset = dir.path(&format!("dataset-{name}-{codec}"));
            let out = demokit(&[
                "export".as_ref(),
                "-o".as_ref(),
                dataset.as_os_str(),
                file.as_os_str(),
            ]);
            assert!(out.status.success(), "{what}: {:?}", out);
        }
    }
}

#[test]
fn a_cut_or_corrupt_stream_exits_as_a_cut_file() {
    let cut_plain = run("info", &root().join("fixtures/truncated.demo"), &[]);
    let cut_status = cut_plain.status.code();
    assert_eq!(cut_status, Some(1));
    let dir = TempDir::new("cli-compressed-broken");
    for path in one_real_recording_per_format() {
        let plain = std::fs::read(&path).unwrap();
        for codec in Codec::ALL {
            let packed = compress(codec, &plain);
            let cut = dir.write(
                &format!("cut.{}", codec.extension()),
                packed.get(..packed.len() / 2).unwrap(),
            );
            for command in ["info", "validate", "export"] {
                let out = if command == "export" {
                    let dataset = dir.path(&format!("dataset-{codec}"));
                    demokit(&[
                        "export".as_ref(),
                        "-o".as_ref(),
                        dataset.as_os_str(),
                        cut.as_os_str(),
                    ])
                } else {
                    run(command, &cut, &[])
                };
                assert_eq!(
                    out.status.code(),
                    cut_status,
                    "{command} of {} cut as {codec}: {out:?}",
                    path.display()
                );
            }
            let mut corrupt = packed.clone();
            let middle = corrupt.len() / 2;
            // Eight bytes: a single flipped bit can fall where zstd does not look (the
            // reference decoder reads such a file as the original).
            for byte in corrupt.iter_mut().skip(middle).take(8) {
                *byte ^= 0x55;
            }
            let corrupt = dir.write(&format!("corrupt.{}", codec.extension()), &corrupt);
            let out = run("info", &corrupt, &[]);
            assert_eq!(
                out.status.code(),
                cut_status,
                "{} corrupt as {codec}: {out:?}",
                path.display()
            );
        }
    }
}

/// Runs the tool with `args` and returns whether it succeeded and its peak resident memory
/// in bytes: the largest `VmHWM` (the process's own high-water mark) read from
/// `/proc/PID/status` every few milliseconds until it exits. (`wait4`'s `ru_maxrss` would
/// count the test process's own size too, which a child inherits until it executes.)
#[cfg(target_os = "linux")]
fn peak_rss(args: &[&std::ffi::OsStr]) -> (bool, u64) {
    let mut child = std::process::Command::new(crate::run::BIN)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status)
            && let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kb * 1024);
        }
        if let Some(exit) = child.try_wait().unwrap() {
            return (exit.success(), peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// `export` of a 200 MB teehistorian compressed with zstd streams it: the process's peak
/// resident memory stays under 64 MB (the file is written straight into the encoder, so the
/// test holds none of it either).
#[cfg(target_os = "linux")]
#[test]
fn exporting_a_compressed_200_mb_teehistorian_stays_under_64_mb() {
    use crate::common::server::record_generated;
    use demokit::teehistorian::FlushPolicy;
    let dir = TempDir::new("compressed-200mb");
    let path = dir.path("big.teehistorian.zst");
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let counted = Counted(encoder(Codec::Zstd, file).unwrap(), 0);
    // About 900 bytes a tick.
    let counted = record_generated(counted, 240_000, FlushPolicy::Never);
    let plain_len = counted.1;
    counted.0.finish().unwrap().flush().unwrap();
    assert!(plain_len > 200_000_000, "{plain_len} bytes");
    let compressed_len = std::fs::metadata(&path).unwrap().len();
    let dataset = dir.path("dataset");
    let (ok, peak) = peak_rss(&[
        "export".as_ref(),
        "-o".as_ref(),
        dataset.as_os_str(),
        path.as_os_str(),
    ]);
    assert!(ok, "export failed");
    println!(
        "export of a {plain_len}-byte teehistorian as {compressed_len} bytes of zstd: peak RSS {peak} bytes"
    );
    assert!(peak < 64 << 20, "peak RSS {peak} bytes");
}

/// A writer that counts the bytes through it.
struct Counted<W>(W, u64);

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1 += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// `render` and `report` read a compressed recording as the plain one: the same picture
/// and the same page (the page names its file, so the names are made the same).
#[test]
fn render_and_report_read_compressed_recordings() {
    let dir = TempDir::new("compressed-render");
    let fixture = root().join("fixtures/recorded_v6.demo");
    let data = std::fs::read(&fixture).unwrap();
    let plain = dir.write("plain/game.demo", &data);
    for codec in Codec::ALL {
        let packed = dir.write(&format!("{codec}/game.demo"), &compress(codec, &data));
        for (command, ext) in [("render", "png"), ("report", "html")] {
            let out = |input: &PathBuf, name: &str| {
                let out = dir.path(&format!("{name}-{codec}.{ext}"));
                let o = demokit(&[
                    command.as_ref(),
                    input.as_os_str(),
                    "-o".as_ref(),
                    out.as_os_str(),
                    "-f".as_ref(),
                ]);
                assert!(o.status.success(), "{command} {codec}: {o:?}");
                std::fs::read(out).unwrap()
            };
            let (a, b) = (out(&plain, "plain"), out(&packed, "packed"));
            assert!(
                a == b,
                "{command} {codec}: {} and {} bytes",
                a.len(),
                b.len()
            );
        }
    }
}
