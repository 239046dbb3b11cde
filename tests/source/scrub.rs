//! Scrubbing Source demos: every real demo of every branch scrubbed comes back whole, with
//! the same players' entities at every tick, and no original name, Steam id or chat text
//! left anywhere in its bits.

use crate::common;

use demokit::scrub::{ChatFilter, Pseudonyms, ScrubOptions};
use demokit::source::game::{Item, Walk, walk_reader_with};
use demokit::source::{ScrubError, ScrubReport, scrub, validate};

/// What a demo's game walk says: the players (slot, user id, name, network id, bot), the
/// players' chat texts and the entities' samples.
#[derive(Default)]
struct Seen {
    players: Vec<(i32, i32, String, String, bool)>,
    chat: Vec<String>,
    samples: Vec<String>,
}

fn seen(data: &[u8]) -> Seen {
    let mut seen = Seen::default();
    let end = walk_reader_with(data, Walk::entities(), |item| match item {
        Item::Join { slot, player, .. } => seen.players.push((
            slot,
            player.user_id,
            player.name.clone(),
            player.guid.clone(),
            player.bot,
        )),
        // Players' chat; the server's notices shown in the chat (`TextMsg`, a plugin's text
        // in no player's name) are nobody's words.
        Item::Chat(chat) if chat.slot.is_some() && chat.kind != "text_msg" => {
            seen.chat.push(chat.text.clone())
        }
        Item::Players { tick, players } => seen.samples.push(format!("{tick} {players:?}")),
        _ => {}
    })
    .unwrap();
    assert!(end.error.is_none(), "{:?}", end.error);
    seen
}

/// Whether `needle` occurs in `haystack` as a word (not inside a longer run of letters and
/// digits: a player named `vice` is no leak in `c_dumpster_device.mdl`) at any bit offset:
/// the network data is bit-packed, so a string can start anywhere.
fn occurs_at_any_bit(haystack: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return false;
    }
    (0..8).any(|shift| {
        let shifted: Vec<u8> = (0..haystack.len().saturating_sub(1))
            .map(|i| {
                if shift == 0 {
                    haystack[i]
                } else {
                    (haystack[i] >> shift) | (haystack[i + 1] << (8 - shift))
                }
            })
            .collect();
        let word = |b: Option<&u8>| b.is_some_and(u8::is_ascii_alphanumeric);
        (0..shifted.len().saturating_sub(needle.len() - 1)).any(|i| {
            shifted[i..].starts_with(needle)
                && !(i > 0 && word(shifted.get(i - 1)))
                && !word(shifted.get(i + needle.len()))
        })
    })
}

/// The real Source demos that read whole (a damaged one is refused, as a test below says),
/// with their bytes.
fn whole_demos() -> Vec<(String, Vec<u8>)> {
    common::source_demos()
        .into_iter()
        .filter_map(|path| {
            let data = std::fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let whole = validate(&data[..]).accepted();
            let decoded = demokit::source::net::state::NetState::of_header(
                demokit::source::SourceSlice::parse(&data).unwrap().header(),
            )
            .is_some();
            (whole && decoded).then_some((name, data))
        })
        .collect()
}

/// Everything a Source demo can be scrubbed of: names, all chat and the server.
fn everything() -> ScrubOptions {
    ScrubOptions {
        names: Some(Pseudonyms { key: None }),
        chat: Some(ChatFilter::All),
        server: true,
        ..ScrubOptions::default()
    }
}

fn scrubbed(data: &[u8], options: &ScrubOptions) -> (Vec<u8>, ScrubReport) {
    let mut out = Vec::new();
    let report = scrub(data, options, &mut out).unwrap();
    (out, report)
}

#[test]
fn every_real_demo_scrubbed_keeps_its_game_and_loses_its_names() {
    let demos = whole_demos();
    assert!(demos.len() >= 11, "{} demos", demos.len());
    let names_checked: usize = demos
        .iter()
        .map(|(file, data)| scrub_keeps_the_game(file, data))
        .sum();
    assert!(names_checked >= 20, "{names_checked} secrets checked");
}

#[test]
fn the_csgo_demo_scrubbed_keeps_its_game_and_loses_its_names() {
    let Some(path) = common::csgo_demo() else {
        return;
    };
    let data = std::fs::read(path).unwrap();
    // Its one human player's name and SteamID (the rest are bots).
    let checked = scrub_keeps_the_game("csgo", &data);
    assert!(checked >= 2, "{checked} secrets checked");
}

/// Scrubs everything out of `data` and checks the output: it validates, has the same
/// players (pseudonyms, no account) and entities at every tick, no chat, no original
/// name, network id or chat text at any bit, and scrubs again to the same bytes. Returns
/// how many secrets it looked for.
fn scrub_keeps_the_game(file: &str, data: &[u8]) -> usize {
    let mut names_checked = 0;
    let before = seen(data);
    let (out, report) = scrubbed(data, &everything());
    // Reads back whole, with the same frames but the console commands dropped.
    let report_of_output = validate(&out[..]);
    assert!(
        report_of_output.accepted(),
        "{file}: {:?}",
        report_of_output.first_fatal()
    );
    let after = seen(&out);
    // The same players in the same slots, with pseudonyms and no account.
    assert_eq!(before.players.len(), after.players.len(), "{file}");
    for (b, a) in before.players.iter().zip(&after.players) {
        assert_eq!((b.0, b.1, b.4), (a.0, a.1, a.4), "{file}");
        assert_eq!(
            report.mapping.names.get(&b.2).unwrap_or(&b.2),
            &a.2,
            "{file}: {b:?} became {a:?}"
        );
        assert!(a.3 == "STEAM_ID_LAN" || a.3 == "BOT", "{file}: {a:?}");
    }
    // Every entity sample at every tick the same.
    assert_eq!(before.samples, after.samples, "{file}");
    // No chat, and no original name, network id or chat text in any bit (bots' names
    // are the game's own words, `Tank` or `Francis`, and stay in its resources).
    assert!(after.chat.is_empty(), "{file}: {:?}", after.chat);
    let secrets = before
        .players
        .iter()
        .filter(|p| !p.4)
        .flat_map(|p| [p.2.clone(), p.3.clone()])
        .chain(before.chat.iter().cloned())
        .filter(|s| s.len() >= 3 && s != "BOT" && !report.mapping.names.values().any(|p| p == s));
    for secret in secrets {
        assert!(
            !occurs_at_any_bit(&out, secret.as_bytes()),
            "{file}: {secret:?} is still in the output"
        );
        names_checked += 1;
    }
    // Scrubbing the output again changes nothing: pseudonyms are left as they are.
    let (again, report) = scrubbed(&out, &everything());
    assert_eq!(again, out, "{file}: {report:?}");
    assert!(!report.changed(), "{file}: {report:?}");
    names_checked
}

#[test]
fn names_alone_keep_the_chat_and_a_key_gives_the_same_pseudonyms_everywhere() {
    let options = ScrubOptions {
        names: Some(Pseudonyms {
            key: Some(b"a key".to_vec()),
        }),
        ..ScrubOptions::default()
    };
    let mut chat_kept = 0;
    for (file, data) in whole_demos() {
        let before = seen(&data);
        let (out, report) = scrubbed(&data, &options);
        let after = seen(&out);
        assert_eq!(before.chat.len(), after.chat.len(), "{file}");
        chat_kept += after.chat.len();
        for (name, pseudonym) in &report.mapping.names {
            assert_eq!(pseudonym.len(), "player-".len() + 8, "{file}: {name}");
            assert!(after.players.iter().all(|p| &p.2 != name), "{file}: {name}");
        }
        assert_eq!(before.samples, after.samples, "{file}");
    }
    assert!(chat_kept > 0, "no demo has chat to keep");
}

#[test]
fn team_chat_alone_goes_with_the_team_filter() {
    // Left 4 Dead 2's fixture holds one chat line, to everyone: it stays.
    let data = std::fs::read(common::root().join("fixtures/source/l4d2_2100_v2220.dem")).unwrap();
    let options = ScrubOptions {
        chat: Some(ChatFilter::Team),
        ..ScrubOptions::default()
    };
    let (out, report) = scrubbed(&data, &options);
    assert_eq!(seen(&out).chat, seen(&data).chat);
    assert!(!report.dropped.contains_key("SayText2"), "{report:?}");
    let all = ScrubOptions {
        chat: Some(ChatFilter::All),
        ..ScrubOptions::default()
    };
    let (out, report) = scrubbed(&data, &all);
    assert!(seen(&out).chat.is_empty());
    assert_eq!(report.dropped.get("SayText2"), Some(&1), "{report:?}");
}

#[test]
fn what_a_source_demo_cannot_hold_is_refused_and_a_damaged_demo_writes_nothing() {
    let data = std::fs::read(common::root().join("fixtures/source/tf2_short_2024.dem")).unwrap();
    let mut out = Vec::new();
    let credentials = ScrubOptions {
        credentials: true,
        ..ScrubOptions::default()
    };
    assert!(matches!(
        scrub(&data[..], &credentials, &mut out),
        Err(ScrubError::Options(_))
    ));
    let cut = &data[..data.len() - 100];
    let err = scrub(cut, &everything(), &mut out).unwrap_err();
    assert!(matches!(err, ScrubError::Read(_)), "{err}");
    assert!(err.offset().is_some());
    assert!(out.is_empty());
}
