//! A deterministic simulated game server that drives the teehistorian `Recorder`, shared by
//! the crash test, the teehistorian and export benchmarks and the example that writes the
//! generated recording (which include this file by path).

use demokit::gamenet::Protocol;
use demokit::teehistorian::{FlushPolicy, Header, Recorder};
use std::io::Write;

/// Records `ticks` ticks of a 64-player [`Server`] into `sink` (header: version 2, map
/// `bench`), flushing as `policy` says; returns the sink.
pub fn record_generated<W: Write>(sink: W, ticks: i32, policy: FlushPolicy) -> W {
    let header = Header {
        map_name: Some("bench".into()),
        ..Header::new("2")
    };
    let mut rec = Recorder::new(sink, &header)
        .unwrap()
        .with_flush_policy(policy);
    let mut server = Server::new(64);
    server.start(&mut rec);
    for tick in 1..=ticks {
        server.tick(&mut rec, tick);
    }
    rec.finish().unwrap()
}

/// Ticks in the large generated recording of the benchmarks: about 900 bytes a tick, so
/// about 55 MB.
pub const LARGE_TICKS: i32 = 60_000;

/// The large generated recording, recorded to a file under the temp dir (as a server
/// writes it), read back and removed.
pub fn large_generated() -> Vec<u8> {
    let path = std::env::temp_dir().join(format!(
        "demokit-generated-{}.teehistorian",
        std::process::id()
    ));
    let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
    record_generated(file, LARGE_TICKS, FlushPolicy::Never)
        .into_inner()
        .unwrap()
        .sync_all()
        .unwrap();
    let data = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    data
}

/// A deterministic server: `players` clients moving and giving inputs, with chat, console
/// commands and EX records now and then. Client 0 never dies and sits at x = 1000 + tick,
/// so a reader can check which tick a record belongs to.
pub struct Server {
    players: i32,
    state: u64,
}

impl Server {
    /// A server with `players` clients (at most 64).
    pub fn new(players: i32) -> Self {
        Server {
            players,
            state: 0x2545_f491_4f6c_dd1d,
        }
    }

    /// A pseudo-random number in `0..n` (xorshift64).
    pub fn next(&mut self, n: u64) -> i32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        (self.state % n) as i32
    }

    /// Records the joins and names before the first tick.
    pub fn start<W: Write>(&mut self, rec: &mut Recorder<W>) {
        for cid in 0..self.players {
            let protocol = if cid % 2 == 0 {
                Protocol::Six
            } else {
                Protocol::Seven
            };
            rec.record_player_join(cid, protocol).unwrap();
            rec.record_player_name(cid, &format!("tee {cid}")).unwrap();
        }
    }

    /// Records one whole tick, `begin_tick` to `end_tick`.
    pub fn tick<W: Write>(&mut self, rec: &mut Recorder<W>, tick: i32) {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        rec.record_player(0, 1000 + tick, 500).unwrap();
        for cid in 1..self.players {
            if self.next(50) == 0 {
                rec.record_dead_player(cid).unwrap();
            } else {
                let (x, y) = (self.next(4000), self.next(4000));
                rec.record_player(cid, x, y).unwrap();
            }
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        for cid in 0..self.players {
            if self.next(3) == 0 {
                continue; // unchanged input: nothing recorded
            }
            let input = [
                self.next(3) - 1,
                self.next(2000) - 1000,
                self.next(2000) - 1000,
                self.next(2),
                self.next(2),
                self.next(2),
                self.next(4),
                self.next(6),
                0,
                0,
            ];
            rec.record_player_input(cid, 1 + cid as u32, &input)
                .unwrap();
        }
        if tick % 10 == 0 {
            let cid = self.next(self.players as u64);
            rec.record_player_message(cid, b"\x04\x00hello there\0")
                .unwrap();
        }
        if tick % 25 == 0 {
            let cid = self.next(self.players as u64);
            rec.record_player_team(cid, self.next(4)).unwrap();
            rec.record_player_finish(cid, self.next(100_000)).unwrap();
            rec.record_console_command(cid, 1, "say", &["gg", "wp"])
                .unwrap();
        }
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    }
}
