//! Report pages (`demokit::page`): the page's positions are the game model's (the replay's,
//! filled forward over ticks without a snapshot), thinned
//! within the budget on ticks every player shares; its map picture is the scene without
//! paths; its data cannot break out of its `<script>` element.

use super::common;
use demokit::page::{Page, PageOptions};
use demokit::recording::Recording;
use demokit::twdemo::DemoSlice;
use demokit::twdemo::game::GameReplay;
use std::collections::BTreeMap;

fn demo() -> Option<std::path::PathBuf> {
    Some(common::shared_dir()?.join("real-fixtures/twdemo/v6_ddnet_client_multeasymap_2020.demo"))
}

/// A character's client id and position.
type Position = (i32, i64, i64);

/// Every character's position per tick, from the game replay, the ticks without a
/// snapshot of their own filled forward as the game model fills them.
fn replayed(path: &std::path::Path) -> BTreeMap<(i32, i32), (i64, i64)> {
    let data = std::fs::read(path).unwrap();
    let demo = DemoSlice::parse(&data).unwrap();
    let mut replay = GameReplay::new(&demo);
    let mut out = BTreeMap::new();
    // The last tick with a snapshot, and its characters: client id, x, y.
    let mut last: Option<(i32, Vec<Position>)> = None;
    while let Some(tick) = replay.next() {
        let tick = tick.unwrap();
        if let Some((last_tick, previous)) = &last
            && !previous.is_empty()
            && let Some(skipped) = demokit::model::filled_ticks(Some(*last_tick), tick.tick)
        {
            for t in skipped {
                for &(cid, x, y) in previous {
                    out.insert((cid, t), (x, y));
                }
            }
        }
        let now: Vec<Position> = tick
            .world
            .characters()
            .map(|c| (c.client_id, i64::from(c.x), i64::from(c.y)))
            .collect();
        for &(cid, x, y) in &now {
            out.insert((cid, tick.tick), (x, y));
        }
        last = Some((tick.tick, now));
    }
    out
}

fn positions(page: &Page) -> Vec<(i32, i64, i64, i64)> {
    page.players
        .iter()
        .flat_map(|p| {
            p.track
                .decode()
                .into_iter()
                .map(move |(t, x, y)| (p.client_id, t, x, y))
        })
        .collect()
}

#[test]
fn a_page_holds_every_position_of_the_replay() {
    let Some(path) = demo() else { return };
    // A budget above the game's samples: none is thinned out.
    let options = PageOptions {
        max_samples: 1_000_000,
        ..PageOptions::default()
    };
    let page = Recording::open(&path).unwrap().page(&options).unwrap();
    let want = replayed(&path);
    assert!(want.len() < options.max_samples, "{}", want.len());
    assert_eq!(page.step, 1);
    assert_eq!(page.samples_read, want.len());
    assert_eq!(page.samples_kept, want.len());
    let got = positions(&page);
    assert_eq!(got.len(), want.len());
    for (cid, t, x, y) in got {
        assert_eq!(
            want.get(&(cid, t as i32)),
            Some(&(x, y)),
            "client {cid} tick {t}"
        );
    }
    let with_positions: std::collections::BTreeSet<i32> = want.keys().map(|k| k.0).collect();
    assert_eq!(page.players.len(), with_positions.len());
    assert_eq!(page.stints.len(), 66);
    assert!(page.chat.len() >= 40, "{}", page.chat.len());
    // The map picture is a PNG of the picture's size.
    assert_eq!(&page.picture[1..4], b"PNG");
}

#[test]
fn a_thinned_page_keeps_the_budget_on_shared_ticks() {
    let Some(path) = demo() else { return };
    let options = PageOptions {
        max_samples: 5_000,
        ..PageOptions::default()
    };
    let page = Recording::open(&path).unwrap().page(&options).unwrap();
    let want = replayed(&path);
    assert!(page.step > 1, "{}", page.step);
    assert!(page.samples_kept <= 5_000, "{}", page.samples_kept);
    assert!(page.samples_kept >= 5_000 / 3, "{}", page.samples_kept);
    let first = page.first_tick.unwrap();
    let mut groups = BTreeMap::new();
    for (cid, t, x, y) in positions(&page) {
        // Each kept position is the replay's, and each player has at most one per group
        // of `step` ticks.
        assert_eq!(want.get(&(cid, t as i32)), Some(&(x, y)));
        let group = (t - i64::from(first)).div_euclid(i64::from(page.step));
        assert!(
            groups.insert((cid, group), t).is_none(),
            "client {cid} twice in group {group}"
        );
    }
}

#[test]
fn the_page_is_one_file_that_fetches_nothing() {
    let Some(path) = demo() else { return };
    let page = Recording::open(&path)
        .unwrap()
        .page(&PageOptions::default())
        .unwrap();
    let html = page.to_html();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("default-src 'none'"));
    // No address beyond the page: no src or href to anything but a data: URL.
    for attribute in ["src=\"", "href=\""] {
        for (i, _) in html.match_indices(attribute) {
            let value = &html[i + attribute.len()..];
            assert!(
                value.starts_with("data:"),
                "{}",
                &value[..40.min(value.len())]
            );
        }
    }
    // The data parses back from its element, chat included.
    let start = html
        .find("<script id=\"data\" type=\"application/json\">")
        .unwrap();
    let rest = &html[start..];
    let body = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    let data: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(data["chat"].as_array().unwrap().len(), page.chat.len());
    assert_eq!(data["schema"], 1);
}
