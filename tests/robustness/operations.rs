//! The operations of the entry point against the formats' implementations: an operation
//! [`Operation::formats`] lists for a format runs on a real recording of it, and one it
//! does not list is refused as [`Error::Unsupported`] naming the formats that have it. The
//! table of operations by format is printed, as the implementations give it.

use demokit::recording::{Error, Format, Operation, Recording, RepairOptions};
use demokit::scrub::ScrubOptions;
use demokit::time::RangeBound;

/// A real recording of each format demokit reads.
const FIXTURES: [(Format, &str); 3] = [
    (Format::TwDemo, "fixtures/recorded_v6.demo"),
    (
        Format::Teehistorian,
        "fixtures/shared/real-fixtures/teehistorian/v2_ddnet1261_dm1.teehistorian",
    ),
    (Format::SourceDemo, "fixtures/source/tf2_short_2024.dem"),
];

/// Every operation the entry point has.
const OPERATIONS: [Operation; 17] = [
    Operation::Summary,
    Operation::Validate,
    Operation::Dump,
    Operation::Rewrite,
    Operation::Repair,
    Operation::Trim,
    Operation::Scrub,
    Operation::Convert,
    Operation::Markers,
    Operation::ExtractMap,
    Operation::GameLog,
    Operation::Chat,
    Operation::Snapshots,
    Operation::GameRecords,
    Operation::Render,
    Operation::Page,
    Operation::Select,
];

/// Runs `operation` on `recording` as a front end would, and says whether it was refused
/// as unsupported (with the error) or ran (whatever it found in the recording).
fn run(recording: &Recording, operation: Operation) -> Option<Error> {
    let outcome: Result<(), Error> = match operation {
        Operation::Summary => recording.summary().map(drop),
        Operation::Validate => recording.validate().map(drop),
        Operation::Dump => recording.dump(|_| {}).map(drop),
        Operation::Rewrite => recording.rewrite(Vec::new()).map(drop),
        Operation::Repair => recording
            .repair(&RepairOptions::default(), Vec::new())
            .map(drop),
        Operation::Trim => recording
            .trim(None, Some(RangeBound::Tick(i32::MAX)), Vec::new())
            .map(drop),
        Operation::Scrub => recording
            .scrub(&ScrubOptions::default(), Vec::new())
            .map(drop),
        Operation::Convert => recording.convert(5, Vec::new()).map(drop),
        Operation::Markers => recording.markers().map(drop),
        Operation::ExtractMap => recording.extract_map().map(drop),
        Operation::GameLog => recording.game_log().map(drop),
        Operation::Chat => recording.chat().map(drop),
        Operation::Snapshots => recording.snapshots(|_| {}).map(drop),
        Operation::GameRecords => recording.game_records(|_| {}).map(drop),
        Operation::Select => recording.tick_range(None, None).map(drop),
        // Drawn through the game stream, which every format has.
        Operation::Render | Operation::Page => recording
            .game(
                &Default::default(),
                &mut |_, _: &[demokit::model::PlayerAt<'_>]| {},
            )
            .map(drop),
        other => panic!("{other:?} is not in this test's list"),
    };
    match outcome {
        Err(e @ Error::Unsupported { .. }) => Some(e),
        _ => None,
    }
}

/// Each operation runs on the formats its list names and is refused, naming them, on the
/// others; the table printed is the implementations' own.
#[test]
fn each_format_has_the_operations_its_implementation_says() {
    let mut table = String::from("operation          twdemo teehistorian source\n");
    for operation in OPERATIONS {
        let formats = operation.formats();
        assert!(!formats.is_empty(), "{operation:?} has no format");
        let mut row = format!("{:<18}", format!("{operation:?}"));
        for (format, path) in FIXTURES {
            let recording = Recording::open(path).unwrap();
            assert_eq!(recording.format(), format);
            let has = formats.contains(&format);
            match run(&recording, operation) {
                None => assert!(has, "{operation:?} ran on a {format:?}, not in its list"),
                Some(Error::Unsupported {
                    format: refused,
                    operation: named,
                    formats: listed,
                }) => {
                    assert!(!has, "{operation:?} refused a {format:?} that its list has");
                    assert_eq!((refused, named), (format, operation));
                    assert_eq!(
                        listed, formats,
                        "the refusal names the formats that have it"
                    );
                }
                Some(other) => unreachable!("{other}"),
            }
            let cell = if has { "yes" } else { "-" };
            row.push_str(&format!(" {cell:>w$}", w = format.id().len()));
        }
        table.push_str(row.trim_end());
        table.push('\n');
    }
    eprintln!("{table}");
    // The operations only demos have, as DDNet's tools give them.
    for only_demos in [
        Operation::Convert,
        Operation::Markers,
        Operation::ExtractMap,
        Operation::Chat,
        Operation::Snapshots,
    ] {
        assert_eq!(only_demos.formats(), [Format::TwDemo], "{only_demos:?}");
    }
}

/// The refusal's sentence names the formats that have the operation, not the one asked.
#[test]
fn a_refusal_names_the_formats_that_have_the_operation() {
    let recording = Recording::open(FIXTURES[1].1).unwrap();
    let error = recording.chat().unwrap_err();
    assert_eq!(
        error.to_string(),
        "chat needs a Teeworlds/DDNet demo (TWDEMO), not a DDNet teehistorian"
    );
    let error = recording.convert(5, Vec::new()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("convert needs a Teeworlds/DDNet demo"),
        "{error}"
    );
}
