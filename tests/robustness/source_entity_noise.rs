//! Source entity decoding on noise: each real demo's data tables (sometimes with a bit
//! flipped) and random update bits go through the `source_entity` fuzz check, so the
//! decoders meet every branch's real tables with data no server wrote, without a fuzzer.

use crate::fuzz_checks;
use demokit::source::entity::DataTables;
use demokit::source::net::Protocol;
use demokit::source::{Body, SourceSlice};

#[test]
fn random_updates_against_every_demos_tables_fail_cleanly() {
    // xorshift: the same inputs on every run.
    let mut seed: u64 = 0x1234_5678_9abc_def0;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for path in crate::common::source_demos() {
        let data = std::fs::read(&path).unwrap();
        let slice = SourceSlice::parse(&data).unwrap();
        let tables = slice
            .frames()
            .find_map(|f| match f.ok()?.frame.body {
                Body::DataTables(b) => Some(b.to_vec()),
                _ => None,
            })
            .unwrap();
        let protocol = Protocol::of_header(slice.header()).unwrap();
        assert!(DataTables::decode(&tables, protocol).is_ok());
        // The branch numbers of the check's protocol list.
        let selector: u8 = match slice.header().network_protocol {
            7 => 0,
            14 => 1,
            15 => 2,
            24 => 3,
            2001 => 7,
            2027 => 6,
            2042..2200 => 5,
            _ => 4,
        };
        for round in 0..40 {
            let mut input = vec![selector | (next() as u8 & 0xc0)];
            input.extend_from_slice(&(tables.len() as u32).to_le_bytes());
            let mut t = tables.clone();
            if round % 3 == 0 {
                let at = next() as usize % t.len();
                t[at] ^= 1 << (next() % 8);
            }
            input.extend_from_slice(&t);
            let n = 1 + next() as usize % 400;
            input.extend((0..n).map(|_| next() as u8));
            fuzz_checks::source_entity(&input);
        }
    }
}
