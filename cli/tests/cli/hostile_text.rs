//! Text a recording carries attacks nothing. Player names, clans, chat, map and server
//! names and file names holding terminal escape sequences (ESC, CSI, OSC with BEL, C1
//! controls, a carriage return, a bidirectional override) never reach the terminal raw
//! through any text output, while JSON keeps their exact text; and a page made of a
//! recording whose every text field holds the template's slot names, `</script>`, `<!--`
//! and U+2028 shows them literally, its structure untouched.

use crate::common;

use crate::run::{demokit, json_lines, stderr, stdout};
use common::temp::TempDir;
use demokit::teehistorian::{Header, Recorder};
use std::ffi::OsStr;

/// Every attack on a terminal in one string: OSC 0 (retitle) ended by BEL, an SGR colour,
/// OSC 52 (write the clipboard), a C1 CSI, a carriage return, DEL and U+202E.
const TERMINAL_ATTACK: &str =
    "\u{1b}]0;PWNED\u{7}\u{1b}[31mred\u{1b}]52;c;cHduZWQ=\u{7}\u{9b}2J\rback\u{7f}\u{202e}gpj.exe";

/// The characters that must never reach a terminal raw.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| demokit::shown::is_unsafe_for_terminal(c))
        .collect()
}

/// A teehistorian file whose map name, server name, player names and chat all hold
/// `text`.
pub(crate) fn teehistorian_with(text: &str) -> Vec<u8> {
    let header = Header {
        map_name: Some(format!("map{text}")),
        server_name: Some(format!("server{text}")),
        ..Header::new("2")
    };
    let mut rec = Recorder::new(Vec::new(), &header).unwrap();
    rec.record_player_join(0, demokit::gamenet::Protocol::Six)
        .unwrap();
    rec.record_player_name(0, &format!("name{text}")).unwrap();
    for tick in 1..=60 {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        rec.record_player(0, 100 + tick, 200).unwrap();
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        if tick == 30 {
            rec.record_console_command(0, 1, "say", &[&format!("chat{text}")])
                .unwrap();
        }
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    }
    rec.finish().unwrap()
}

/// The DDNet 20.1 server demo with its 64-byte map-name field (bytes 72..136) set to
/// `text` (cut to fit).
fn demo_with_map_name(text: &str) -> Vec<u8> {
    let mut data = common::read_shared("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo").unwrap();
    let mut field = [0u8; 64];
    let bytes = text.as_bytes();
    let n = bytes.len().min(63);
    field[..n].copy_from_slice(&bytes[..n]);
    data[72..136].copy_from_slice(&field);
    data
}

/// Runs `args` and returns stdout and stderr, both checked for raw controls.
fn checked(args: &[&OsStr]) -> std::process::Output {
    let out = demokit(args);
    for (what, text) in [("stdout", stdout(&out)), ("stderr", stderr(&out))] {
        assert_eq!(
            raw_controls(&text),
            Vec::<char>::new(),
            "{args:?} {what} carries raw controls: {text:?}"
        );
    }
    out
}

#[test]
fn no_text_output_carries_a_terminal_control_raw() {
    let dir = TempDir::new("hostile-terminal");
    let th = dir.write(
        &format!("th{}.teehistorian", "\u{1b}[2J"),
        &teehistorian_with(TERMINAL_ATTACK),
    );
    let demo = dir.write("evil.demo", &demo_with_map_name(TERMINAL_ATTACK));
    // A cut copy under a hostile name: the error messages quote the name.
    let data = std::fs::read(&th).unwrap();
    let cut = dir.write(
        &format!("cut{}.teehistorian", "\u{1b}]0;x\u{7}"),
        &data[..data.len() - 7],
    );
    for file in [&th, &demo, &cut] {
        for command in ["info", "players", "chat", "events", "dump", "validate"] {
            checked(&[command.as_ref(), file.as_os_str()]);
        }
        checked(&["dump".as_ref(), "--game-records".as_ref(), file.as_os_str()]);
    }
    // A directory: the batch's file rows, closing note and messages.
    for command in ["info", "players", "chat", "events", "validate"] {
        checked(&[command.as_ref(), dir.0.as_os_str()]);
    }
    // The editors' reports.
    let scrubbed = dir.path("scrubbed.teehistorian");
    checked(&[
        "scrub".as_ref(),
        "--all".as_ref(),
        th.as_os_str(),
        scrubbed.as_os_str(),
    ]);
    let rewritten = dir.path("rewritten.demo");
    checked(&["rewrite".as_ref(), demo.as_os_str(), rewritten.as_os_str()]);
    // The output files keep their bytes: the rewrite is the input, byte for byte.
    assert_eq!(
        std::fs::read(&rewritten).unwrap(),
        std::fs::read(&demo).unwrap()
    );

    // JSON keeps the exact text (and carries no raw control either).
    let out = checked(&["players".as_ref(), "--json".as_ref(), th.as_os_str()]);
    let names: Vec<String> = json_lines(&out)
        .iter()
        .map(|l| l["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, [format!("name{TERMINAL_ATTACK}")]);
    let out = checked(&["chat".as_ref(), "--json".as_ref(), th.as_os_str()]);
    assert!(
        json_lines(&out)
            .iter()
            .any(|l| l["text"].as_str().unwrap().contains(TERMINAL_ATTACK)),
        "{}",
        stdout(&out)
    );
    let out = checked(&["info".as_ref(), "--json".as_ref(), demo.as_os_str()]);
    let map = json_lines(&out)[0]["map_name"].as_str().unwrap().to_owned();
    assert!(TERMINAL_ATTACK.starts_with(&map), "{map:?}");
}

/// What a page's HTML must hold once, whatever the recording says: the template's own
/// structure.
fn assert_structure(html: &str, what: &str) {
    for (tag, n) in [
        ("<script", 2),
        ("</script>", 2),
        ("<style>", 1),
        ("</style>", 1),
        ("<title>", 1),
        ("</title>", 1),
        ("<!--", 0),
    ] {
        assert_eq!(html.matches(tag).count(), n, "{what}: {tag}");
    }
}

/// The data of a page, parsed back from its `<script id="data">` element.
fn page_data(html: &str) -> serde_json::Value {
    let start = html
        .find("<script id=\"data\" type=\"application/json\">")
        .unwrap();
    let rest = &html[start..];
    let rest = &rest[rest.find('>').unwrap() + 1..];
    let end = rest.find("</script>").unwrap();
    serde_json::from_str(&rest[..end]).unwrap()
}

#[test]
fn every_text_field_holding_slots_and_markup_shows_literally_on_the_page() {
    let hostile = "{{script}}{{style}}{{data}}{{title}}{{picture}}</script><!--\u{2028}<b>&amp;";
    let dir = TempDir::new("hostile-page");
    let th = dir.write(
        "file{{script}}<!--&.teehistorian",
        &teehistorian_with(hostile),
    );
    let demo = dir.write(
        "mapname.demo",
        &demo_with_map_name("{{script}}x{{style}}</script>"),
    );
    let map = common::shared_file("real-fixtures/maps/dm1_0.6.map").unwrap();
    // The teehistorian file names its map `map...`: give it dm1 (its checksum is not in
    // the header, so any map is taken).
    let page = dir.path("th.html");
    let out = demokit(&[
        "report".as_ref(),
        th.as_os_str(),
        "-o".as_ref(),
        page.as_os_str(),
        "--map".as_ref(),
        map.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_structure(&html, "teehistorian page");
    let data = page_data(&html);
    let text = data.to_string();
    for field in ["name", "chat", "map"] {
        assert!(
            text.contains(
                &serde_json::to_string(&format!("{field}{hostile}")).unwrap()[1..]
                    .trim_end_matches('"')
                    .to_string()
            ),
            "{field}: {text}"
        );
    }
    assert!(
        html.contains("<title>file{{script}}&lt;!--&amp;.teehistorian – map{{script}}"),
        "the title"
    );

    let page = dir.path("demo.html");
    let out = demokit(&[
        "report".as_ref(),
        demo.as_os_str(),
        "-o".as_ref(),
        page.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_structure(&html, "demo page");
    assert!(
        html.contains("<title>mapname.demo – {{script}}x{{style}}&lt;/script&gt;"),
        "title"
    );

    // The index of both: its rows hold the texts literally too.
    let index = dir.path("site/index.html");
    std::fs::create_dir_all(index.parent().unwrap()).unwrap();
    let out = demokit(&[
        "report".as_ref(),
        dir.0.as_os_str(),
        "-o".as_ref(),
        index.as_os_str(),
    ]);
    let html = std::fs::read_to_string(&index).unwrap();
    assert_eq!(html.matches("</script>").count(), 2, "{}", stderr(&out));
    assert_eq!(html.matches("<!--").count(), 0);
    let rows = page_data(&html)["rows"].to_string();
    assert!(rows.contains("{{script}}x{{style}}"), "{rows}");
}
