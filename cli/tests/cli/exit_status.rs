//! The exit-status rule of `docs/cli.md` held by every command: 0 only when every input
//! was read whole and every output written; 1 when an input is cut, broken or no
//! recording, named or found in a directory; the closing note of a batch counts the files
//! ok, partial, failed and skipped (also with `--quiet`). And `report DIR` making a page
//! again after its last attempt failed, its map found by checksum under any file name.

use crate::common;

use crate::run::{demokit, stderr, stdout};
use common::temp::TempDir;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The real DDNet 20.1 server demo of the repository's corpus.
fn server_demo() -> Vec<u8> {
    common::read_shared("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo").unwrap()
}

/// The DDNet 20.1 teehistorian file of the same game, which names its map (dm1) by
/// SHA-256.
fn server_teehistorian() -> Vec<u8> {
    common::read_shared("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian").unwrap()
}

/// dm1 as that game played it.
fn dm1() -> Vec<u8> {
    common::read_shared("real-fixtures/maps/dm1_0.6.map").unwrap()
}

/// `data`, a demo, cut in the middle of the payload of its middle data chunk.
fn cut_inside_a_chunk(data: &[u8]) -> Vec<u8> {
    let slice = demokit::twdemo::DemoSlice::parse(data).unwrap();
    let chunks: Vec<(usize, usize)> = slice
        .chunks()
        .map(Result::unwrap)
        .filter_map(|item| match item.chunk {
            demokit::twdemo::Chunk::Data(d) if d.payload.len() >= 4 => {
                Some((item.offset as usize + item.header.len(), d.payload.len()))
            }
            _ => None,
        })
        .collect();
    let (start, len) = chunks[chunks.len() / 2];
    data[..start + len / 2].to_vec()
}

fn run(args: &[&OsStr]) -> std::process::Output {
    demokit(args)
}

/// `validate DIR` over a cut demo and a 13-byte text file named `.teehistorian` (the
/// issue's case) exits 1 and counts both as failed; a file with another name that is no
/// recording is passed over. Every batch command counts the same way.
#[test]
fn a_directory_with_a_cut_demo_and_a_text_file_named_like_a_recording_fails() {
    let dir = TempDir::new("exit-dir");
    let demo = server_demo();
    dir.write("cut.demo", &cut_inside_a_chunk(&demo));
    dir.write("x.teehistorian", b"invalid data\n");
    dir.write("notes.txt", b"not a recording");
    dir.write("ok.demo", &demo);
    let out = run(&["validate".as_ref(), dir.0.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("demokit: 4 files: 1 ok, 0 partial, 2 failed, 1 skipped\n"),
        "{err}"
    );
    assert!(
        err.contains(&format!("  failed: {}", dir.path("cut.demo").display())),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "  failed: {}",
            dir.path("x.teehistorian").display()
        )),
        "{err}"
    );
    // `info` shows what comes before the cut: partial, not failed.
    for command in ["info", "chat", "players", "events"] {
        let out = run(&[command.as_ref(), dir.0.as_os_str()]);
        assert_eq!(out.status.code(), Some(1), "{command}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("demokit: 4 files: 1 ok, 1 partial, 1 failed, 1 skipped\n"),
            "{command}: {}",
            stderr(&out)
        );
    }
    // `--quiet` keeps the counts and the status, and nothing else on stderr.
    let out = run(&["--quiet".as_ref(), "info".as_ref(), dir.0.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("demokit: 4 files: 1 ok, 1 partial, 1 failed, 1 skipped\n"),
        "{err}"
    );
    assert!(!err.contains("at byte"), "{err}");
    // Only good recordings and other files: exit 0, the note still counting.
    std::fs::remove_file(dir.path("cut.demo")).unwrap();
    std::fs::remove_file(dir.path("x.teehistorian")).unwrap();
    let out = run(&["validate".as_ref(), dir.0.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "demokit: 2 files: 1 ok, 0 partial, 0 failed, 1 skipped\n"
    );
}

/// `export DIR` with files that are cut or no recording writes their rows (the `files`
/// row says why), names them in its closing note and exits 1; it says nothing false about
/// a clean run (exit 0).
#[test]
fn export_counts_its_partial_and_failed_files_and_exits_1() {
    let dir = TempDir::new("exit-export");
    let input = dir.path("in");
    let demo = server_demo();
    let th = server_teehistorian();
    let write = |name: &str, bytes: &[u8]| {
        std::fs::create_dir_all(&input).unwrap();
        std::fs::write(input.join(name), bytes).unwrap();
    };
    write("ok.demo", &demo);
    write("cut.teehistorian", &th[..th.len() / 2]);
    write("empty.demo", b"");
    write("readme.txt", b"text");
    let out = run(&[
        "export".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        dir.path("ds").as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("exported 3 files into"), "{err}");
    assert!(
        err.contains("demokit: 4 files: 1 ok, 1 partial, 1 failed, 1 skipped\n"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "  partial: {}",
            input.join("cut.teehistorian").display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("  failed: {}", input.join("empty.demo").display())),
        "{err}"
    );
    // The second run finds the partial and failed files unchanged; the status stays.
    let again = run(&[
        "export".as_ref(),
        input.join("ok.demo").as_os_str(),
        "-o".as_ref(),
        dir.path("ds2").as_os_str(),
    ]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("demokit: 1 file: 1 ok, 0 partial, 0 failed, 0 skipped\n"),
        "{}",
        stderr(&again)
    );
}

/// A file named on the command line that is no recording is an error (exit 1, its name
/// and why on stderr) in every command that reads a recording, `info` as much as `export`.
#[test]
fn a_named_file_that_is_no_recording_fails_every_command() {
    let dir = TempDir::new("exit-named");
    let inputs = [
        dir.write("notes.txt", b"hello\n"),
        dir.write("x.teehistorian", b"invalid data\n"),
        dir.write("empty.demo", b""),
    ];
    for input in &inputs {
        let i = input.as_os_str();
        let out_file = |name: &str| dir.path(name).into_os_string();
        let commands: Vec<Vec<std::ffi::OsString>> = vec![
            vec!["info".into(), i.into()],
            vec!["validate".into(), i.into()],
            vec!["chat".into(), i.into()],
            vec!["players".into(), i.into()],
            vec!["events".into(), i.into()],
            vec!["dump".into(), i.into()],
            vec!["export".into(), i.into(), "-o".into(), out_file("ds")],
            vec!["render".into(), i.into(), "-o".into(), out_file("x.png")],
            vec!["report".into(), i.into(), "-o".into(), out_file("x.html")],
            vec!["rewrite".into(), i.into(), out_file("out")],
            vec!["repair".into(), i.into(), out_file("out")],
            vec!["scrub".into(), "--all".into(), i.into(), out_file("out")],
            vec![
                "convert".into(),
                "--version".into(),
                "5".into(),
                i.into(),
                out_file("out"),
            ],
            vec![
                "trim".into(),
                "--from".into(),
                "1".into(),
                i.into(),
                out_file("out"),
            ],
            vec!["markers".into(), i.into()],
            vec!["extract-map".into(), i.into(), out_file("out.map")],
        ];
        for args in commands {
            let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
            let out = run(&args);
            assert_eq!(out.status.code(), Some(1), "{:?}: {}", args, stderr(&out));
            assert!(
                stderr(&out).contains(&format!("demokit: {}: ", input.display())),
                "{args:?}: {}",
                stderr(&out)
            );
            // Nothing is written but an export's record of the failure.
            for name in ["x.png", "x.html", "out", "out.map"] {
                assert!(!dir.path(name).exists(), "{args:?} wrote {name}");
            }
        }
        let _ = std::fs::remove_dir_all(dir.path("ds"));
    }
}

/// `render` and `report` of a recording that breaks off write what came before the break
/// and say so: the error on stderr, exit 1.
#[test]
fn a_picture_or_page_of_a_cut_recording_says_so_and_exits_1() {
    let dir = TempDir::new("exit-cut-picture");
    let demo = server_demo();
    let cut = dir.write("cut.demo", &cut_inside_a_chunk(&demo));
    for (command, out) in [("render", "cut.png"), ("report", "cut.html")] {
        let target = dir.path(out);
        let run = run(&[
            command.as_ref(),
            cut.as_os_str(),
            "-o".as_ref(),
            target.as_os_str(),
        ]);
        assert_eq!(run.status.code(), Some(1), "{command}: {}", stderr(&run));
        assert!(
            stderr(&run).contains("read in part, up to the error: "),
            "{}",
            stderr(&run)
        );
        assert!(
            target.is_file(),
            "{command}: what came before the break is drawn"
        );
    }
}

/// Copies the teehistorian file into `recordings/` and runs `report recordings -o
/// site/index.html` with `extra`.
fn report_dir(dir: &TempDir, extra: &[&Path]) -> std::process::Output {
    let recordings = dir.path("recordings");
    if !recordings.is_dir() {
        std::fs::create_dir_all(&recordings).unwrap();
        std::fs::write(recordings.join("game.teehistorian"), server_teehistorian()).unwrap();
    }
    let index = dir.path("site/index.html");
    std::fs::create_dir_all(index.parent().unwrap()).unwrap();
    let mut args: Vec<&OsStr> = vec![
        "report".as_ref(),
        recordings.as_os_str(),
        "-o".as_ref(),
        index.as_os_str(),
    ];
    args.extend(extra.iter().map(|p| p.as_os_str()));
    run(&args)
}

/// A teehistorian file's page made without its map (players, chat and events on a grid)
/// is made again, with the map, once `--maps` names a directory that holds it, under any
/// file name: the map is found by the SHA-256 the recording gives. A map of the right name
/// but other bytes is not taken, and that page fails.
#[test]
fn report_dir_makes_a_page_again_with_its_map_found_by_checksum() {
    let dir = TempDir::new("exit-report-retry");
    // No map: the page is made all the same, its positions on a grid, and says why.
    let first = report_dir(&dir, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(
        stdout(&first).contains("1 recordings (1 pages made, 0 up to date, 0 with errors)"),
        "{}",
        stdout(&first)
    );
    let page =
        std::fs::read_to_string(dir.path("site/index.pages/game.teehistorian.html")).unwrap();
    assert!(
        page.contains("was not given: positions on a grid"),
        "the page says why"
    );
    // The same run again keeps it.
    let second = report_dir(&dir, &[]);
    assert!(
        stdout(&second).contains("(0 pages made, 1 up to date, 0 with errors)"),
        "{}",
        stdout(&second)
    );
    // A maps directory whose `dm1.map` is another map: still no page.
    let maps = dir.path("maps");
    std::fs::create_dir_all(maps.join("nested")).unwrap();
    let mut other = dm1();
    other[100] ^= 1;
    std::fs::write(maps.join("dm1.map"), &other).unwrap();
    let maps_arg: PathBuf = maps.clone();
    let wrong = report_dir(&dir, &[Path::new("--maps"), &maps_arg]);
    assert_eq!(wrong.status.code(), Some(1), "{}", stderr(&wrong));
    let manifest = std::fs::read_to_string(dir.path("site/index.pages/manifest.json")).unwrap();
    assert!(manifest.contains("no map with SHA-256"), "{manifest}");
    // The map under another name, in a subdirectory: found by its SHA-256.
    std::fs::write(maps.join("nested/dm1_renamed_by_a_player.map"), dm1()).unwrap();
    let found = report_dir(&dir, &[Path::new("--maps"), &maps_arg]);
    assert_eq!(found.status.code(), Some(0), "{}", stderr(&found));
    assert!(
        stdout(&found).contains("1 recordings (1 pages made, 0 up to date, 0 with errors)"),
        "{}",
        stdout(&found)
    );
    assert!(
        dir.path("site/index.pages/game.teehistorian.html")
            .is_file()
    );
    // Unchanged file, options and map: kept.
    let kept = report_dir(&dir, &[Path::new("--maps"), &maps_arg]);
    assert!(
        stdout(&kept).contains("(0 pages made, 1 up to date, 0 with errors)"),
        "{}",
        stdout(&kept)
    );
    // An option that changes the page makes it again.
    let smaller = report_dir(
        &dir,
        &[
            Path::new("--maps"),
            &maps_arg,
            Path::new("--max-positions"),
            Path::new("100"),
        ],
    );
    assert!(
        stdout(&smaller).contains("(1 pages made, 0 up to date, 0 with errors)"),
        "{}",
        stdout(&smaller)
    );
}
