//! A deterministic simulated game server that drives the teehistorian `Recorder`, shared by
//! the crash test and the teehistorian benchmark (which includes this file by path).

use demokit::teehistorian::{Protocol, Recorder};
use std::io::Write;

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
                Protocol::V6
            } else {
                Protocol::V7
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
