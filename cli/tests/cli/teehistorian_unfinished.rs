//! Unfinished and cut teehistorian files, as servers leave them: the real files (and DDNet's
//! reference file) with FINISH removed, cut at every message boundary and inside every
//! message. A boundary cut reads to its end with `finished: false` (`info` exits 0,
//! `validate` accepts it with a warning); a cut inside a message is rejected by `validate`
//! at the message's offset, pointing to `repair`; `repair` keeps every complete message and
//! appends FINISH, and its output reads, validates and rewrites byte for byte.

use crate::common;

use crate::run::demokit;
use common::temp::TempDir;
use demokit::teehistorian::{self as th, Message, TeehistorianSlice, summary};
use std::path::{Path, PathBuf};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The real teehistorian files and DDNet's reference file.
fn files(shared: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["v1_ddnet1101_dm1", "v2_ddnet1261_dm1", "v2_ddnet201_dm1"]
        .iter()
        .map(|name| {
            shared
                .join("real-fixtures/teehistorian")
                .join(format!("{name}.teehistorian"))
        })
        .collect();
    files.push(shared.join("conformance/ddnet-recorder/ref.teehistorian"));
    files
}

/// A file without its final FINISH, and the offsets where its messages end (the body
/// offset first).
fn unfinished(path: &Path) -> (Vec<u8>, Vec<usize>) {
    let data = std::fs::read(path).unwrap();
    let slice = TeehistorianSlice::parse(&data).unwrap();
    let mut boundaries = vec![slice.body_offset()];
    let mut last = None;
    for item in slice.messages() {
        let item = item.unwrap();
        boundaries.push(item.end() as usize);
        last = Some(item.message);
    }
    assert_eq!(last, Some(Message::Finish), "{}", path.display());
    boundaries.pop();
    let without = data[..*boundaries.last().unwrap()].to_vec();
    (without, boundaries)
}

#[test]
fn every_message_boundary_reads_as_an_unfinished_file() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = TempDir::new("th-unfinished");
    let mut written = 0;
    for path in files(&shared) {
        let (data, boundaries) = unfinished(&path);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        for (n, &end) in boundaries.iter().enumerate() {
            let cut = &data[..end];
            let (s, error) = th::Summary::scan(cut).unwrap();
            assert!(error.is_none(), "{stem} at {end}: {error:?}");
            assert!(!s.finished);
            assert_eq!(s.messages, n as u64, "{stem} at {end}");
            let report = summary::validate(cut);
            assert!(report.accepted(), "{stem} at {end}: {report:?}");
            let warning = report.problems.last().unwrap();
            assert_eq!((warning.offset, warning.fatal), (end as u64, false));
            // Repair appends FINISH and nothing else; the result is a clean finished file.
            let (repaired, r) = common::into_vec(|out| th::repair(cut, out)).unwrap();
            assert_eq!(&repaired[..end], cut);
            assert_eq!(&repaired[end..], [0x40]);
            assert!(r.finish_appended && r.bytes_dropped == 0 && r.break_off.is_none());
            assert_eq!(summary::validate(&repaired).problems, []);
            assert_eq!(th::rewrite(&repaired, Vec::new()).unwrap().0, repaired);
            assert_eq!(th::rewrite(cut, Vec::new()).unwrap().0, cut);
            // Every 7th cut (and the last) goes to the CLI below.
            if n % 7 == 0 || end == data.len() {
                std::fs::write(dir.path(&format!("{stem}-{end:06}.teehistorian")), cut).unwrap();
                written += 1;
            }
        }
    }
    // `info --json DIR` over all of them: exit 0, one line each, none finished, no error.
    let out = demokit(&[Path::new("info"), Path::new("--json"), &dir.0]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), written);
    for line in &lines {
        assert_eq!(line["finished"], false, "{line}");
        assert!(line.get("error").is_none(), "{line}");
    }
    // And one file in text: exit 0, saying it is not finished.
    let (data, _) = unfinished(&files(&shared)[2]);
    let one = dir.write("one.teehistorian", &data);
    let out = demokit(&[Path::new("info"), &one]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("finished          no"),
        "{}",
        text(&out.stdout)
    );
    let out = demokit(&[Path::new("validate"), &one]);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("warning") && said.contains("without FINISH"),
        "{said}"
    );
}

#[test]
fn cuts_inside_messages_are_rejected_and_repaired() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = TempDir::new("th-cut");
    for path in files(&shared) {
        let (data, boundaries) = unfinished(&path);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut multi_byte = 0;
        for (n, pair) in boundaries.windows(2).enumerate() {
            let (start, end) = (pair[0], pair[1]);
            // Every cut inside the message.
            for cut_at in start + 1..end {
                multi_byte += 1;
                let cut = &data[..cut_at];
                let report = summary::validate(cut);
                let fatal = report.first_fatal().unwrap_or_else(|| {
                    panic!("{stem}: a cut at {cut_at} inside a message is accepted")
                });
                assert_eq!(fatal.offset, start as u64, "{stem} cut at {cut_at}");
                assert!(
                    fatal.message.contains("a repair keeps"),
                    "{}",
                    fatal.message
                );
                let (repaired, r) = common::into_vec(|out| th::repair(cut, out)).unwrap();
                assert_eq!(&repaired[..start], &data[..start]);
                assert_eq!(&repaired[start..], [0x40]);
                assert_eq!(r.messages_kept, n as u64);
                assert_eq!(r.bytes_dropped, cut_at - start);
                assert!(r.break_off.as_ref().is_some_and(|c| c.truncated));
                assert_eq!(summary::validate(&repaired).problems, []);
                assert_eq!(th::rewrite(&repaired, Vec::new()).unwrap().0, repaired);
            }
        }
        assert!(
            multi_byte > 50,
            "{stem}: only {multi_byte} cuts inside messages"
        );

        // Through the CLI, for a cut in the middle of the file: validate exit 1 naming the
        // offset and repair; repair exit 0; the output validates and rewrites unchanged.
        let mid = boundaries.len() / 2;
        let (start, end) = (boundaries[mid], boundaries[mid + 1]);
        let cut = dir.write(&format!("{stem}.teehistorian"), &data[..end - 1]);
        let out = demokit(&[Path::new("validate"), &cut]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(said.contains(&start.to_string()), "{said}");
        assert!(said.contains("demokit repair"), "{said}");
        let fixed = dir.path(&format!("{stem}-fixed.teehistorian"));
        let out = demokit(&[Path::new("repair"), &cut, &fixed]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("appended"),
            "{}",
            text(&out.stdout)
        );
        let repaired = std::fs::read(&fixed).unwrap();
        assert_eq!(&repaired[..start], &data[..start]);
        assert_eq!(&repaired[start..], [0x40]);
        let out = demokit(&[Path::new("validate"), &fixed]);
        assert!(out.status.success(), "{}", text(&out.stdout));
        let again = dir.path(&format!("{stem}-again.teehistorian"));
        let out = demokit(&[Path::new("rewrite"), &fixed, &again]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(std::fs::read(&again).unwrap(), repaired);
    }
}
