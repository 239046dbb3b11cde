//! Demos past 2 GiB: DDNet reads them since 9c9272a0 (October 2024, 64-bit file offsets),
//! and so does demokit, its offsets being 64-bit. The stream is generated as it is read
//! (a prelude, then one block of ticks repeated), so the test needs neither the disk nor
//! the memory of such a file.

use demokit::twdemo::container::format::{ChunkKind, SizeForm, TickForm};
use demokit::twdemo::container::reader::{DemoReader, TickMarker};
use demokit::twdemo::container::summary::Summary;
use demokit::twdemo::container::writer::DemoWriter;
use std::io::Read;

/// A prelude and first tick, then `block` `times` over, then the first `cut` bytes of one
/// more block.
struct Repeated {
    head: Vec<u8>,
    block: Vec<u8>,
    times: u64,
    cut: usize,
    /// Where in the stream: the part (0 head, 1.. blocks) and the offset in it.
    part: u64,
    at: usize,
}

impl Read for Repeated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let (source, end): (&[u8], usize) = if self.part == 0 {
            (&self.head, self.head.len())
        } else if self.part <= self.times {
            (&self.block, self.block.len())
        } else if self.part == self.times + 1 {
            (&self.block, self.cut)
        } else {
            return Ok(0);
        };
        if self.at >= end {
            self.part += 1;
            self.at = 0;
            return self.read(buf);
        }
        let n = buf.len().min(end - self.at);
        buf[..n].copy_from_slice(&source[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A head (prelude, tick 0 and its message) and a block (ten ticks, each one tick after
/// the last, with a message of 60,000 bytes) whose bytes are the same wherever it stands.
fn head_and_block() -> (Vec<u8>, Vec<u8>) {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/recorded_v6.demo");
    let reader = DemoReader::new(std::fs::File::open(fixture).unwrap()).unwrap();
    let (prelude, map) = (*reader.prelude(), reader.map().to_vec());
    let mut writer = DemoWriter::new(Vec::new(), &prelude, &map).unwrap();
    let payload: Vec<u8> = (0..60_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let tick = |writer: &mut DemoWriter<Vec<u8>>, tick: i32, form: TickForm| {
        let marker = TickMarker {
            tick,
            keyframe: false,
            form,
        };
        writer.write_tick_marker(marker).unwrap();
        writer
            .write_stored(ChunkKind::Message, SizeForm::Word, &payload)
            .unwrap();
    };
    tick(&mut writer, 0, TickForm::Absolute);
    let head_len = writer.get_ref().len();
    for t in 1..=10 {
        tick(&mut writer, t, TickForm::Delta);
    }
    let mut bytes = writer.into_inner().unwrap();
    let block = bytes.split_off(head_len);
    (bytes, block)
}

#[test]
fn a_demo_past_2_gib_reads_with_its_offsets_whole() {
    let (head, block) = head_and_block();
    // 2.25 GiB of blocks.
    let times = (9u64 << 28) / block.len() as u64;
    let total = head.len() as u64 + times * block.len() as u64;
    assert!(total > 1 << 31);
    let stream = |cut| Repeated {
        head: head.clone(),
        block: block.clone(),
        times,
        cut,
        part: 0,
        at: 0,
    };

    let (summary, error) = Summary::scan_reader(stream(0)).unwrap();
    assert!(error.is_none(), "{error:?}");
    assert_eq!(summary.last_tick, Some(i32::try_from(times * 10).unwrap()));
    assert_eq!(summary.counts.messages, times * 10 + 1);
    assert_eq!(summary.counts.tick_markers, times * 10 + 1);
    assert_eq!(summary.payload_bytes, (times * 10 + 1) * 60_000);

    // The last chunk's offset, and a cut in the middle of the next block's first message:
    // the error names the offset past 2 GiB where that message starts.
    let mut reader = DemoReader::new(stream(1000)).unwrap();
    let mut last = 0;
    let error = loop {
        match reader.next() {
            Some(Ok(chunk)) => last = chunk.offset,
            Some(Err(e)) => break e,
            None => panic!("a cut stream ends with an error"),
        }
    };
    assert!(last > 1 << 31, "{last}");
    assert!(
        error.offset > total && error.offset < total + 1000,
        "{error}"
    );
}
