//! Pictures and report pages (`demokit render`, `demokit report`) beside `info` on the same
//! file, since an index (`demokit report DIR`) makes one page where `info` makes one
//! summary.
//!
//! Group `page`, one run, on the bytes in memory:
//!
//! * `info/<demo>`: [`Recording::summary`], what `demokit info` reads per file;
//!   `render/<demo>`: the picture as PNG ([`Recording::render`]); `page/<demo>`: the
//!   report page's HTML ([`Recording::page`], [`Page::to_html`]), for the three real demos
//!   of `benches/twdemo.rs`;
//! * the same three for the large generated teehistorian file (a 64-player server, about
//!   55 MB, 20 minutes) with the real `dm1` map.
//!
//! Printed first: the per-round ratios of a page's time to `info`'s (median and
//! quartiles), and each page's size, with its size per hour of recording (positions are
//! thinned to `demokit::page::DEFAULT_MAX_SAMPLES`, so a longer game does not grow the page by its
//! positions).

#[allow(dead_code)]
mod common;
mod ratio;

#[path = "../tests/common/server.rs"]
#[allow(dead_code)]
mod server;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::page::{Page, PageOptions};
use demokit::recording::Recording;
use demokit::render::{ImageFormat, RenderOptions};
use ratio::Ratio;
use std::hint::black_box;
use std::path::PathBuf;

fn info(recording: &Recording) -> u64 {
    let (summary, _) = recording.summary().unwrap();
    black_box(summary);
    1
}

fn render(recording: &Recording, options: &RenderOptions) -> u64 {
    recording.render(options, ImageFormat::Png).unwrap().len() as u64
}

fn page(recording: &Recording, options: &PageOptions) -> (Page, String) {
    let page = recording.page(options).unwrap();
    let html = page.to_html();
    (page, html)
}

fn bench(c: &mut Criterion) {
    let mut files: Vec<(String, Recording, Option<Vec<u8>>)> = Vec::new();
    if let Some(demos) = common::load() {
        for demo in demos {
            files.push((
                demo.label.to_owned(),
                Recording::from_bytes(demo.data).unwrap(),
                None,
            ));
        }
    }
    let map = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/shared/real-fixtures/maps/dm1_0.6.map");
    match std::fs::read(&map) {
        Ok(map) => files.push((
            "generated_teehistorian".into(),
            Recording::from_bytes(server::large_generated()).unwrap(),
            Some(map),
        )),
        Err(e) => eprintln!("skipping the teehistorian file: {}: {e}", map.display()),
    }
    for (label, recording, map) in &files {
        let mut options = PageOptions::default();
        options.render.map = map.clone();
        let (p, html) = page(recording, &options);
        let hours = p.seconds / 3600.0;
        println!(
            "{label}: {} bytes, {:.1} min; page {} bytes ({:.0} KB per hour), {} of {} positions (step {})",
            recording.bytes().unwrap().len(),
            p.seconds / 60.0,
            html.len(),
            html.len() as f64 / 1024.0 / hours,
            p.samples_kept,
            p.samples_read,
            p.step
        );
        Ratio::measure(
            || page(recording, &options).1.len() as u64,
            || info(recording),
        )
        .print(&format!("{label}: info time / page time"));
        Ratio::measure(|| render(recording, &options.render), || info(recording))
            .print(&format!("{label}: info time / render time"));
    }
    let mut group = c.benchmark_group("page");
    group.sample_size(10);
    for (label, recording, map) in &files {
        let mut options = PageOptions::default();
        options.render.map = map.clone();
        group.throughput(Throughput::Bytes(recording.bytes().unwrap().len() as u64));
        group.bench_with_input(BenchmarkId::new("info", label), recording, |b, r| {
            b.iter(|| info(r))
        });
        group.bench_with_input(BenchmarkId::new("render", label), recording, |b, r| {
            b.iter(|| render(r, &options.render))
        });
        group.bench_with_input(BenchmarkId::new("page", label), recording, |b, r| {
            b.iter(|| page(r, &options).1.len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
