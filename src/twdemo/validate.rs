//! Would DDNet's player accept this demo? The checks of `CDemoPlayer` (header validity,
//! version, marker and SHA-256 blocks, map, scan for keyframes, at least two tick markers,
//! every chunk readable and decodable, no delta before a full snapshot), plus the embedded
//! map against the header's CRC-32 and SHA-256 that the client checks when it loads the map.

use super::error::ReadError;
use super::format::ChunkKind;
use super::payload::PayloadDecoder;
use super::reader::{Chunk, DemoSlice};
use serde::Serialize;
use sha2::Digest;

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Offset the problem was found at.
    pub offset: u64,
    /// What DDNet would say, or what is wrong.
    pub message: String,
    /// Whether DDNet's player would refuse or stop on it (false: it only logs it).
    pub fatal: bool,
}

/// The outcome of [`validate`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Everything found, in file order.
    pub problems: Vec<Problem>,
}

impl Report {
    /// Whether DDNet's player would load and play the demo to its end.
    pub fn accepted(&self) -> bool {
        !self.problems.iter().any(|p| p.fatal)
    }

    /// The first fatal problem.
    pub fn first_fatal(&self) -> Option<&Problem> {
        self.problems.iter().find(|p| p.fatal)
    }

    fn push(&mut self, offset: u64, message: impl Into<String>, fatal: bool) {
        self.problems.push(Problem {
            offset,
            message: message.into(),
            fatal,
        });
    }

    fn push_read_error(&mut self, e: &ReadError) {
        self.push(e.offset, e.kind.to_string(), true);
    }
}

/// Checks `data` the way DDNet's player and client would.
pub fn validate(data: &[u8]) -> Report {
    let mut report = Report::default();
    let slice = match DemoSlice::parse(data) {
        Ok(s) => s,
        Err(e) => {
            report.push_read_error(&e);
            return report;
        }
    };
    let p = slice.prelude();
    let h = &p.header;
    for (name, offset, ok) in [
        ("net_version", 8, h.net_version.to_str().is_ok()),
        ("map_name", 72, h.map_name.to_str().is_ok()),
        ("type", 144, h.kind.to_str().is_ok()),
        ("timestamp", 156, h.timestamp.to_str().is_ok()),
    ] {
        if !ok {
            report.push(
                offset,
                format!("header field {name} is not valid UTF-8"),
                true,
            );
        }
    }
    let map = slice.map();
    let map_offset = slice.map_offset() as u64;
    if !map.is_empty() {
        let crc = crc32fast::hash(map);
        if crc != h.map_crc {
            report.push(
                map_offset,
                format!(
                    "embedded map CRC-32 is {crc:08x}, the header says {:08x}",
                    h.map_crc
                ),
                true,
            );
        }
        if let Some(sha) = &p.map_sha256 {
            let digest: [u8; 32] = sha2::Sha256::digest(map).into();
            if digest != sha.digest {
                report.push(
                    map_offset,
                    format!(
                        "embedded map SHA-256 is {}, the header says {}",
                        hex::encode(digest),
                        hex::encode(sha.digest)
                    ),
                    true,
                );
            }
        }
    }

    let mut decoder = PayloadDecoder::new();
    let mut tick_markers = 0u64;
    let mut keyframes = 0u64;
    let mut seen_snapshot = false;
    let mut end_error = None;
    for item in slice.chunks() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                end_error = Some(e);
                break;
            }
        };
        match item.chunk {
            Chunk::Tick(m) => {
                tick_markers += 1;
                keyframes += m.keyframe as u64;
            }
            Chunk::Data(d) => match d.kind {
                ChunkKind::Unknown => {
                    report.push(item.offset, "chunk of unknown type 0 (ignored)", false)
                }
                kind => {
                    if let Err(e) = decoder.decode(d.payload) {
                        report.push(item.offset, e.to_string(), true);
                    }
                    match kind {
                        ChunkKind::Snapshot => seen_snapshot = true,
                        ChunkKind::SnapshotDelta if !seen_snapshot => report.push(
                            item.offset,
                            "delta snapshot before any full snapshot",
                            true,
                        ),
                        _ => {}
                    }
                }
            },
        }
    }
    if let Some(e) = &end_error {
        report.push_read_error(e);
    }
    let end = data.len() as u64;
    if keyframes == 0 {
        report.push(
            end,
            "no keyframe: DDNet fails with \"Error scanning demo file\"",
            true,
        );
    } else if tick_markers < 2 {
        report.push(
            end,
            "fewer than two tick markers: DDNet stops with \"Empty demo\"",
            true,
        );
    }
    report
}
