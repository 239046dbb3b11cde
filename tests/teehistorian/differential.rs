//! Differential tests against the independent `teehistorian` crate (zwelf's nom parser): on
//! the real files and on generated ones, both read the same header text and the same
//! messages, field by field.
//!
//! Ticks are not compared: that crate leaves them to its callers.

use crate::common;

use demokit::codec::string::NulStr;
use demokit::teehistorian::strategies;
use demokit::teehistorian::{Args, AuthRole, Ex, Message, TeehistorianSlice};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use teehistorian::{Chunk, Th};

/// Compares `their` chunk with `ours`, converting theirs into our types.
fn same(their: &Chunk<'_>, ours: &Message<'_>) -> bool {
    let ex = |e: Ex<'_>| *ours == Message::Ex(e);
    match their {
        Chunk::PlayerDiff(p) => {
            *ours
                == Message::PlayerDiff {
                    cid: p.cid,
                    dx: p.dx,
                    dy: p.dy,
                }
        }
        Chunk::Eos => *ours == Message::Finish,
        Chunk::TickSkip { dt } => *ours == Message::TickSkip { dt: *dt },
        Chunk::PlayerNew(p) => {
            *ours
                == Message::PlayerNew {
                    cid: p.cid,
                    x: p.x,
                    y: p.y,
                }
        }
        Chunk::PlayerOld { cid } => *ours == Message::PlayerOld { cid: *cid },
        Chunk::InputDiff(p) => {
            *ours
                == Message::InputDiff {
                    cid: p.cid,
                    diff: p.dinput,
                }
        }
        Chunk::InputNew(p) => {
            *ours
                == Message::InputNew {
                    cid: p.cid,
                    input: p.input,
                }
        }
        Chunk::NetMessage(p) => {
            *ours
                == Message::NetMessage {
                    cid: p.cid,
                    data: p.msg,
                }
        }
        Chunk::Join { cid } => *ours == Message::Join { cid: *cid },
        Chunk::Drop(p) => {
            *ours
                == Message::Drop {
                    cid: p.cid,
                    reason: NulStr::borrowed(p.reason),
                }
        }
        Chunk::ConsoleCommand(p) => {
            *ours
                == Message::ConsoleCommand {
                    cid: p.cid,
                    flags: p.flags,
                    cmd: NulStr::borrowed(p.cmd),
                    args: Args::list(&p.args),
                }
        }
        // A record newer than the peer (AUTH_INIT_ROLE, AUTH_LOGIN with a role by name,
        // DDNet #12788) is unknown to it: ours has its UUID and payload.
        Chunk::UnknownEx(u) => match ours {
            Message::Ex(e @ (Ex::AuthInitRole { .. } | Ex::AuthLogin { .. })) => {
                let mut payload = Vec::new();
                e.encode_payload(&mut payload).unwrap();
                e.uuid() == u.uuid && payload == u.data
            }
            _ => ex(Ex::Unknown {
                uuid: u.uuid,
                data: u.data,
            }),
        },
        Chunk::Test => ex(Ex::Test),
        Chunk::DdnetVersionOld(p) => ex(Ex::DdnetVersionOld {
            cid: p.cid,
            ddnet_version: p.version,
        }),
        Chunk::DdnetVersion(p) => ex(Ex::DdnetVersion {
            cid: p.cid,
            connection_id: p.connection_id,
            ddnet_version: p.version,
            version_str: NulStr::borrowed(p.version_str),
        }),
        Chunk::AuthInit(p) => ex(Ex::AuthInit {
            cid: p.cid,
            level: p.level,
            auth_name: NulStr::borrowed(p.auth_name),
        }),
        Chunk::AuthLogin(p) => {
            // Level 0 has the bytes of an empty role name, which is what ours reads.
            let empty = NulStr::borrowed(b"");
            ex(Ex::AuthLogin {
                cid: p.cid,
                role: AuthRole::Level(p.level),
                auth_name: NulStr::borrowed(p.auth_name),
            }) || (p.level == 0
                && ex(Ex::AuthLogin {
                    cid: p.cid,
                    role: AuthRole::Name(empty),
                    auth_name: NulStr::borrowed(p.auth_name),
                }))
        }
        Chunk::AuthLogout { cid } => ex(Ex::AuthLogout { cid: *cid }),
        Chunk::JoinVer6 { cid } => ex(Ex::JoinVer6 { cid: *cid }),
        Chunk::JoinVer7 { cid } => ex(Ex::JoinVer7 { cid: *cid }),
        Chunk::RejoinVer6 { cid } => ex(Ex::PlayerRejoin { cid: *cid }),
        Chunk::TeamSaveSuccess(p) => ex(Ex::SaveSuccess {
            team: p.team,
            save_id: p.save_id,
            team_save: NulStr::borrowed(p.save),
        }),
        Chunk::TeamSaveFailure { team } => ex(Ex::SaveFailure { team: *team }),
        Chunk::TeamLoadSuccess(p) => ex(Ex::LoadSuccess {
            team: p.team,
            save_id: p.save_id,
            team_save: NulStr::borrowed(p.save),
        }),
        Chunk::TeamLoadFailure { team } => ex(Ex::LoadFailure { team: *team }),
        Chunk::PlayerTeam { cid, team } => ex(Ex::PlayerTeam {
            cid: *cid,
            team: *team,
        }),
        Chunk::TeamPractice { team, practice } => ex(Ex::TeamPractice {
            team: *team,
            practice: *practice,
        }),
        Chunk::PlayerReady { cid } => ex(Ex::PlayerReady { cid: *cid }),
        Chunk::PlayerSwap { cid1, cid2 } => ex(Ex::PlayerSwitch {
            cid1: *cid1,
            cid2: *cid2,
        }),
        Chunk::Antibot(p) => ex(Ex::Antibot { data: p.data }),
        Chunk::PlayerName(p) => ex(Ex::PlayerName {
            cid: p.cid,
            name: NulStr::borrowed(p.name),
        }),
        Chunk::PlayerFinish { cid, time } => ex(Ex::PlayerFinish {
            cid: *cid,
            time: *time,
        }),
        Chunk::TeamFinish { team, time } => ex(Ex::TeamFinish {
            team: *team,
            time: *time,
        }),
    }
}

/// Reads `data` with both parsers and checks that they agree on every message of a file
/// that ends with FINISH. Returns the number of messages.
fn compare(data: &[u8]) -> Result<usize, String> {
    let ours = TeehistorianSlice::parse(data).map_err(|e| e.to_string())?;
    let mut theirs = Th::parse(data).map_err(|e| format!("theirs: {e}"))?;
    let header = theirs.header().map_err(|e| format!("theirs: {e}"))?;
    if header != ours.header_json() {
        return Err("header texts differ".into());
    }
    let mut n = 0;
    for item in ours.messages() {
        let item = item.map_err(|e| format!("ours: {e}"))?;
        let chunk = match theirs.next_chunk() {
            Ok(chunk) => chunk,
            // AUTH_LOGIN with a role by name (DDNet #12788) is newer than the peer, which
            // cannot read on: the files agree up to there.
            Err(_)
                if matches!(
                    item.message,
                    Message::Ex(Ex::AuthLogin {
                        role: AuthRole::Name(_),
                        ..
                    })
                ) =>
            {
                return Ok(n);
            }
            Err(e) => return Err(format!("theirs at message {n} ({:?}): {e}", item.message)),
        };
        if !same(&chunk, &item.message) {
            return Err(format!(
                "message {n} at {}: ours {:?}, theirs {chunk:?}",
                item.offset, item.message
            ));
        }
        n += 1;
    }
    match theirs.next_chunk() {
        Err(e) if e.is_eof() => Ok(n),
        other => Err(format!("theirs after FINISH: {other:?}")),
    }
}

#[test]
fn real_files_read_the_same() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut paths: Vec<_> = std::fs::read_dir(shared.join("real-fixtures/teehistorian"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.push(shared.join("conformance/ddnet-recorder/ref.teehistorian"));
    paths.sort();
    assert_eq!(paths.len(), 4);
    for path in paths {
        let data = std::fs::read(&path).unwrap();
        let n = compare(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(n > 10, "{}", path.display());
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/teehistorian_differential.txt",
        ))),
        ..ProptestConfig::default()
    })]

    /// Generated files with every message kind read the same in both parsers.
    #[test]
    fn generated_files_read_the_same(
        header in strategies::header(),
        body in strategies::body(40),
    ) {
        let data = strategies::write_file(&header, &body, true);
        let result = compare(&data);
        prop_assert!(result.is_ok(), "{:?}", result);
    }
}

/// The Recorder's output, from a server-like loop with every kind of record, reads the same
/// in both parsers.
#[test]
fn recorder_output_reads_the_same() {
    use demokit::gamenet::Protocol;
    use demokit::teehistorian::{Header, Recorder};
    let header = Header {
        map_name: Some("dm1".into()),
        ..Header::new("2")
    };
    let mut rec = Recorder::new(Vec::new(), &header).unwrap();
    // A small deterministic generator: the test must not depend on a seed file.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n) as i32
    };
    for cid in 0..4 {
        rec.record_player_join(
            cid,
            if cid % 2 == 0 {
                Protocol::Six
            } else {
                Protocol::Seven
            },
        )
        .unwrap();
        rec.record_player_name(cid, &format!("tee {cid}")).unwrap();
    }
    for tick in 1..400 {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        for cid in 0..4 {
            if next(10) == 0 {
                rec.record_dead_player(cid).unwrap();
            } else {
                rec.record_player(cid, 100 + next(50), 200 - next(50))
                    .unwrap();
            }
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        for cid in 0..4 {
            let input = [
                next(3) - 1,
                next(2000) - 1000,
                next(2000) - 1000,
                next(2),
                0,
                0,
                0,
                0,
                0,
                0,
            ];
            rec.record_player_input(cid, 1 + cid as u32, &input)
                .unwrap();
        }
        if tick % 37 == 0 {
            rec.record_player_message(next(4), &[0x04, 0x00, b'h', b'i', 0])
                .unwrap();
            rec.record_console_command(-1, 1, "say", &["hello", "world"])
                .unwrap();
            rec.record_player_team(next(4), next(3)).unwrap();
            rec.record_player_finish(next(4), next(10000)).unwrap();
        }
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    }
    rec.record_player_drop(3, "bye").unwrap();
    let data = rec.finish().unwrap();
    let n = compare(&data).unwrap();
    assert!(n > 1000, "{n} messages");
}
