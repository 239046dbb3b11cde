//! How many times faster one implementation is than another, measured so that a machine
//! whose speed drifts (this one is shared) cannot skew it: the two run alternately, round
//! after round, their order swapped every round, and each round gives one ratio of their
//! times. The median and quartiles of those ratios are what the benchmarks print first,
//! beside criterion's separate figures for each.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Rounds per ratio: enough for quartiles, short enough to print in a few seconds.
const ROUNDS: usize = 21;

/// About how long each side runs per round.
const ROUND_TIME: Duration = Duration::from_millis(40);

/// The per-round ratios of one comparison, sorted.
pub struct Ratio {
    sorted: Vec<f64>,
}

impl Ratio {
    /// Times `ours` and `peer` alternately; each round's ratio is the peer's time over
    /// ours (above 1: ours is faster). Both are called enough times per round to take
    /// about [`ROUND_TIME`] each.
    pub fn measure<A: FnMut() -> u64, B: FnMut() -> u64>(mut ours: A, mut peer: B) -> Ratio {
        let calls = |f: &mut dyn FnMut() -> u64| {
            let start = Instant::now();
            black_box(f());
            let once = start.elapsed().max(Duration::from_micros(1));
            (ROUND_TIME.as_secs_f64() / once.as_secs_f64())
                .ceil()
                .max(1.0) as usize
        };
        let (n_ours, n_peer) = (calls(&mut ours), calls(&mut peer));
        let time = |f: &mut dyn FnMut() -> u64, n: usize| {
            let start = Instant::now();
            for _ in 0..n {
                black_box(f());
            }
            start.elapsed().as_secs_f64() / n as f64
        };
        let mut sorted: Vec<f64> = (0..ROUNDS)
            .map(|round| {
                if round % 2 == 0 {
                    let o = time(&mut ours, n_ours);
                    time(&mut peer, n_peer) / o
                } else {
                    let p = time(&mut peer, n_peer);
                    p / time(&mut ours, n_ours)
                }
            })
            .collect();
        sorted.sort_by(f64::total_cmp);
        Ratio { sorted }
    }

    /// The median ratio.
    pub fn median(&self) -> f64 {
        self.sorted[self.sorted.len() / 2]
    }

    /// Prints `label: 4.21x (quartiles 4.15 to 4.30, range ...; 21 alternating rounds)`.
    pub fn print(&self, label: &str) {
        let r = &self.sorted;
        eprintln!(
            "ratio {label}: {:.2}x (quartiles {:.2} to {:.2}, range {:.2} to {:.2}; {} \
             alternating rounds)",
            self.median(),
            r[r.len() / 4],
            r[3 * r.len() / 4],
            r[0],
            r[r.len() - 1],
            r.len()
        );
    }
}

/// Whether the ratio `label` is to be measured: all are, unless `DEMOKIT_RATIOS` names
/// some (comma-separated parts of their labels), e.g. `DEMOKIT_RATIOS="export DIR"
/// cargo bench --bench export -- nothing` measures that one ratio and no criterion
/// benchmark.
#[allow(dead_code)] // Not every bench selects its ratios.
pub fn wanted(label: &str) -> bool {
    match std::env::var("DEMOKIT_RATIOS") {
        Ok(names) if !names.is_empty() => names.split(',').any(|name| label.contains(name)),
        _ => true,
    }
}
