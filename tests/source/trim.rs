//! Trimming Source demos: every real demo of every branch cut at several places reads back
//! whole, with every player entity at every kept tick as the original has it there.

use crate::common;

use demokit::source::game::{Item, Walk, walk_reader_with};
use demokit::source::{SourceSlice, TrimError, trim, validate};
use std::collections::BTreeMap;

/// The players' entities after the last update of each tick (the game layer's samples:
/// position, view, health, team, ...), and the ticks of the packets.
fn samples(data: &[u8], what: &str) -> BTreeMap<i32, String> {
    let mut samples = BTreeMap::new();
    let end = walk_reader_with(data, Walk::entities(), |item| {
        if let Item::Players { tick, players } = item {
            samples.insert(tick, format!("{players:?}"));
        }
    })
    .unwrap();
    assert!(end.error.is_none(), "{what}: {:?}", end.error);
    samples
}

/// The ticks of a demo's packet frames, up to the first that goes back (Left 4 Dead and
/// Portal 1 demos end with packets of a reset clock: a range of ticks is one of the run
/// before).
fn packet_ticks(data: &[u8]) -> Vec<i32> {
    let ticks: Vec<i32> = SourceSlice::parse(data)
        .unwrap()
        .frames()
        .filter_map(|f| f.ok())
        .filter(|f| matches!(f.frame.body, demokit::source::Body::Packet(_)))
        .map(|f| f.frame.tick)
        .collect();
    let run = ticks
        .windows(2)
        .position(|w| w[1] < w[0])
        .map_or(ticks.len(), |i| i + 1);
    ticks[..run].to_vec()
}

/// The real demos that read whole, of the branches the layers decode.
fn demos() -> Vec<(String, Vec<u8>)> {
    common::source_demos()
        .into_iter()
        .filter_map(|path| {
            let data = std::fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let header = *SourceSlice::parse(&data).ok()?.header();
            let decoded = demokit::source::net::state::NetState::of_header(&header).is_some();
            (decoded && validate(&data[..]).accepted()).then_some((name, data))
        })
        .collect()
}

#[test]
fn every_real_demo_trimmed_anywhere_keeps_its_entities_tick_for_tick() {
    let demos = demos();
    assert!(demos.len() >= 11, "{} demos", demos.len());
    let (mut cuts, mut compared) = (0, 0);
    for (file, data) in &demos {
        let (c, n) = trims_keep_entities(file, data);
        cuts += c;
        compared += n;
    }
    println!(
        "{} demos, {cuts} cuts, {compared} ticks of entities equal",
        demos.len()
    );
    assert!(
        compared > 1000,
        "{compared} ticks compared over {cuts} cuts"
    );
}

/// Trims `data` at four places and checks each cut: it validates, and every tick of its
/// players' entities equals the original's. Returns the cuts and the ticks compared.
fn trims_keep_entities(file: &str, data: &[u8]) -> (usize, usize) {
    let mut compared = 0;
    let mut cuts = 0;
    let original = samples(data, file);
    let ticks = packet_ticks(data);
    let at = |fraction: f64| ticks[((ticks.len() - 1) as f64 * fraction) as usize];
    for (from, to) in [
        (at(0.25), at(1.0)),
        (at(0.5), at(0.75)),
        (at(0.9), at(1.0)),
        (at(0.0), at(0.1)),
    ] {
        let mut out = Vec::new();
        let report =
            trim(data, from, to, &mut out).unwrap_or_else(|e| panic!("{file} {from}..={to}: {e}"));
        let checked = validate(&out[..]);
        assert!(
            checked.accepted(),
            "{file} {from}..={to}: {:?}",
            checked.first_fatal()
        );
        let header = *SourceSlice::parse(&out).unwrap().header();
        assert!(report.from >= from && report.to <= to, "{file}: {report:?}");
        assert_eq!(header.ticks, report.to - report.from, "{file}");
        let from = report.from;
        let trimmed = samples(&out, &format!("{file} trimmed to {from}..={to}"));
        assert!(!trimmed.is_empty(), "{file} {from}..={to}: no entities");
        for (tick, players) in &trimmed {
            let Some(theirs) = original.get(&(tick + from)) else {
                continue;
            };
            assert_eq!(
                players,
                theirs,
                "{file} cut at {from}: tick {tick} (the original's {})",
                tick + from
            );
            compared += 1;
        }
        // Every tick of the range the original has a sample for, the trimmed has too.
        let kept = original
            .range(from..=to)
            .filter(|(t, _)| trimmed.contains_key(&(*t - from)))
            .count();
        assert!(
            kept + 1 >= original.range(from..=to).count(),
            "{file} {from}..={to}: {kept} of {} ticks",
            original.range(from..=to).count()
        );
        assert!(out.len() <= data.len() + data.len() / 2, "{file}");
        cuts += 1;
    }
    (cuts, compared)
}

#[test]
fn a_range_without_packets_is_refused_and_writes_nothing() {
    let data = std::fs::read(common::root().join("fixtures/source/tf2_short_2024.dem")).unwrap();
    let mut out = Vec::new();
    let err = trim(&data[..], 1_000_000, 2_000_000, &mut out).unwrap_err();
    assert!(matches!(err, TrimError::Empty { .. }), "{err}");
    assert!(out.is_empty());
}

#[test]
fn the_csgo_demo_trimmed_anywhere_keeps_its_entities_tick_for_tick() {
    let Some(path) = common::csgo_demo() else {
        return;
    };
    let data = std::fs::read(path).unwrap();
    let (cuts, compared) = trims_keep_entities("csgo", &data);
    println!("CS:GO: {cuts} cuts, {compared} ticks of entities equal");
    assert!(compared > 500, "{compared}");
}
