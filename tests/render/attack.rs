//! Damaged recordings through the picture and the page: every real recording of the
//! corpus, mutated at fixed pseudo-random places (a flipped byte, an int set to
//! `0x7fffffff`, a cut), and the two inputs that broke them (a teehistorian position of
//! 2^31 that made tiny-skia panic, a flipped byte in a Portal 2 demo whose view made the
//! Source grid loop forever), each rendered as PNG and SVG, with and without a heat map,
//! and made into a page. None may panic or take longer than the watchdog allows (a hang
//! aborts the run, naming the input).

use crate::common;

use demokit::page::PageOptions;
use demokit::recording::Recording;
use demokit::render::RenderOptions;
use std::sync::mpsc;
use std::time::Duration;

/// Mutations of each file.
const MUTATIONS: u64 = 30;

/// How long one input may take through every step.
const WATCHDOG: Duration = Duration::from_secs(60);

/// Renders and pages `data` every way, in a thread the watchdog watches.
fn survive(name: &str, data: Vec<u8>, map: Option<Vec<u8>>) {
    let (done, wait) = mpsc::channel();
    let label = name.to_owned();
    let worker = std::thread::spawn(move || {
        if let Ok(recording) = Recording::from_bytes(data) {
            for heatmap in [false, true] {
                let mut options = RenderOptions::default();
                options.size = (320, 240);
                options.heatmap = heatmap;
                options.map = map.clone();
                if let Ok(scene) = recording.scene(&options) {
                    let png = scene.to_png();
                    assert!(png.starts_with(b"\x89PNG"), "{label}");
                    let _ = scene.to_svg();
                }
            }
            let mut options = PageOptions::default();
            options.render.size = (320, 240);
            options.render.map = map;
            if let Ok(page) = recording.page(&options) {
                let html = page.to_html();
                assert_eq!(html.matches("</script>").count(), 2, "{label}");
            }
        }
        let _ = done.send(());
    });
    if wait.recv_timeout(WATCHDOG).is_err() && !worker.is_finished() {
        eprintln!("{name}: still rendering after {WATCHDOG:?}: a hang");
        std::process::abort();
    }
    if let Err(panic) = worker.join() {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("{name}: panicked: {message}");
    }
}

#[test]
fn the_inputs_that_broke_the_renderer_render() {
    let teehistorian =
        common::read_shared("real-fixtures/teehistorian/v1_ddnet1101_dm1.teehistorian");
    let map = common::read_shared("real-fixtures/maps/dm1_0.6.map");
    let mut teehistorian = teehistorian.unwrap();
    teehistorian[4102..4106].copy_from_slice(&[0xff, 0xff, 0xff, 0x7f]);
    survive("v1 teehistorian with 0x7fffffff at 4102", teehistorian, map);
    let mut portal =
        common::read_shared("real-fixtures/source/portal2_sp_laser_relays.dem").unwrap();
    portal[441_064] = 0x5a;
    survive(
        "portal2_sp_laser_relays.dem with 0x5a at 441064",
        portal,
        None,
    );
}

#[test]
fn mutated_real_recordings_render_without_panic_or_hang() {
    let shared = common::shared_dir().unwrap();
    let map = std::fs::read(shared.join("real-fixtures/maps/dm1_0.6.map")).unwrap();
    let mut files: Vec<_> = ["twdemo", "teehistorian", "source"]
        .into_iter()
        .flat_map(|format| common::facts_files(&shared, format))
        .map(|(path, _)| path)
        .collect();
    files.sort();
    let mut runs = 0;
    for (n, path) in files.iter().enumerate() {
        let data = std::fs::read(path).unwrap();
        let teehistorian = path.extension().is_some_and(|e| e == "teehistorian");
        for (what, copy) in common::mutations(&data, 0x9e37_79b9_7f4a_7c15 ^ n as u64, MUTATIONS) {
            let name = format!("{}: {what}", path.display());
            survive(&name, copy, teehistorian.then(|| map.clone()));
            runs += 1;
        }
    }
    assert!(runs >= MUTATIONS as usize * 13, "{runs}");
}
