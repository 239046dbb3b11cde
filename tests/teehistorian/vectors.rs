//! The teehistorian [`Recorder`] against DDNet: the 31 cases of DDNet's own unit test
//! (`teehistorian-vectors.json`, each driven by interpreting the C++ calls of the case), the
//! 19 cases DDNet's `CTeeHistorian` wrote for client ids 64..127 with `MAX_CLIENTS` = 128
//! (`teehistorian-vectors-128.json`: bytes, and the tick the writer was in for each byte), the
//! full reference file DDNet's `CTeeHistorian` wrote (`ref.teehistorian`), the flush policy,
//! a sink that fails part-way, a read-back of a long pseudo-random recording, and a check
//! that recording a tick allocates nothing once the buffer has grown.

use crate::common;

use common::alloc::allocations;
use demokit::codec::uuid::teeworlds_uuid;
use demokit::gamenet::Protocol;
use demokit::teehistorian::format::FILE_UUID;
use demokit::teehistorian::{
    FlushPolicy, Header, Message, Phase, Recorder, RecorderError, TeehistorianReader,
    TeehistorianSlice, apply_input_diff,
};
use std::collections::HashMap;
use std::io::{self, Write};
use std::num::NonZeroU32;
use std::path::Path;
use uuid::Uuid;

// ---------------------------------------------------------------------------------------
// Shared inputs
// ---------------------------------------------------------------------------------------

fn vectors(shared: &Path, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(shared.join("conformance").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn reference_file(shared: &Path) -> Vec<u8> {
    std::fs::read(shared.join("conformance/ddnet-recorder/ref.teehistorian")).unwrap()
}

/// The header JSON of a whole file (between the file UUID and the NUL).
fn header_json(file: &[u8]) -> &[u8] {
    let nul = file[16..].iter().position(|&b| b == 0).unwrap();
    &file[16..16 + nul]
}

/// The game info every DDNet test case uses, as a typed header. `start_time` and the UUID
/// names come from the reference file (written from the same game info).
fn test_game_header(reference: &Header) -> Header {
    let game_uuid = teeworlds_uuid("test@ddnet.tw").to_string();
    assert_eq!(game_uuid, "a1eb7182-796e-3b3e-941d-38ca71b2a4a8");
    Header {
        comment: Some("teehistorian@ddnet.tw".into()),
        version_minor: Some("22".into()),
        game_uuid: Some(game_uuid),
        server_version: Some("DDNet test".into()),
        start_time: reference.start_time.clone(),
        server_name: Some("server name".into()),
        server_port: Some("8303".into()),
        game_type: Some("game type".into()),
        map_name: Some("Kobra 3 Solo".into()),
        map_size: Some("903514".into()),
        map_sha256: Some("0123456789".repeat(7)[..64].into()),
        map_crc: Some("eceaf25c".into()),
        prng_description: Some("test-prng:02468ace".into()),
        config: Some(Vec::new()),
        tuning: Some(Vec::new()),
        uuids: reference.uuids.clone(),
        ..Header::new("2")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------------------
// An interpreter for the C++ calls of DDNet's teehistorian test
// ---------------------------------------------------------------------------------------

/// Splits `s` at `sep` outside string literals, parentheses and braces.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut in_str, mut escaped, mut start) = (0i32, false, false, 0);
    for (i, c) in s.char_indices() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '(' | '{' => depth += 1,
            ')' | '}' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// The bytes of a C string literal (quotes included in `lit`), without the implicit NUL.
fn c_string(lit: &str) -> Result<Vec<u8>, String> {
    let inner = lit
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or_else(|| format!("not a string literal: {lit}"))?;
    let mut out = Vec::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        out.push(match chars.next() {
            Some('0') => 0,
            Some('t') => b'\t',
            Some('n') => b'\n',
            Some('r') => b'\r',
            Some('\\') => b'\\',
            Some('"') => b'"',
            other => return Err(format!("unsupported escape {other:?} in {lit}")),
        });
    }
    Ok(out)
}

/// A value of the test's C++ expressions.
#[derive(Debug, Clone)]
enum Value {
    Int(i64),
    Bool(bool),
    /// A C string's bytes, without the NUL.
    Str(Vec<u8>),
    Uuid(Uuid),
    /// `&Input`: the test's current `CNetObj_PlayerInput`.
    Input,
}

/// The names the test fixture defines (see the vectors' "about").
const FIXTURE_UUID: &str = "fb13a576-d35f-4893-b815-eedc6d98015b";
const INPUT_FIELDS: [&str; 10] = [
    "m_Direction",
    "m_TargetX",
    "m_TargetY",
    "m_Jump",
    "m_Fire",
    "m_Hook",
    "m_PlayerFlags",
    "m_WantedWeapon",
    "m_NextWeapon",
    "m_PrevWeapon",
];

/// One test case being run: the recorder plus the C++ test's variables.
struct Harness {
    header: Header,
    rec: Option<Recorder<Vec<u8>>>,
    /// Where the body starts in the output (the header's length).
    body_offset: usize,
    output: Option<Vec<u8>>,
    input: [i32; 10],
    vars: HashMap<String, i64>,
}

type Res<T> = Result<T, String>;

fn rec_err(e: RecorderError) -> String {
    format!("recorder error: {e}")
}

impl Harness {
    fn new(header: Header) -> Self {
        let mut h = Harness {
            header,
            rec: None,
            body_offset: 0,
            output: None,
            input: [0; 10],
            vars: HashMap::new(),
        };
        h.reset();
        h
    }

    /// DDNet's `Reset(&m_GameInfo)`: a new file with the current header.
    fn reset(&mut self) {
        let rec = Recorder::new(Vec::new(), &self.header).unwrap();
        self.body_offset = rec.position() as usize;
        self.rec = Some(rec);
        self.output = None;
    }

    fn rec(&mut self) -> Res<&mut Recorder<Vec<u8>>> {
        self.rec
            .as_mut()
            .ok_or_else(|| "call after Finish".to_string())
    }

    fn eval(&self, expr: &str) -> Res<Value> {
        let expr = expr.trim();
        if expr.starts_with('"') {
            return c_string(expr).map(Value::Str);
        }
        if let Ok(n) = expr.parse::<i64>() {
            return Ok(Value::Int(n));
        }
        if let Some(&n) = self.vars.get(expr) {
            return Ok(Value::Int(n));
        }
        Ok(match expr {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "ConnectionId" | "SaveId" => Value::Uuid(FIXTURE_UUID.parse().unwrap()),
            "pTeamSave" => Value::Str(b"2\tH.\nll0".to_vec()),
            "AUTHED_ADMIN" => Value::Int(3),
            "AUTHED_MOD" => Value::Int(2),
            "AUTHED_HELPER" => Value::Int(1),
            // DDNet #10964 / #12788: roles by name.
            "RoleName::ADMIN" => Value::Str(b"admin".to_vec()),
            "RoleName::MODERATOR" => Value::Str(b"moderator".to_vec()),
            "RoleName::HELPER" => Value::Str(b"helper".to_vec()),
            "CTeeHistorian::PROTOCOL_6" => Value::Int(6),
            "CTeeHistorian::PROTOCOL_7" => Value::Int(7),
            "&Input" => Value::Input,
            _ => return Err(format!("unknown expression {expr:?}")),
        })
    }

    fn int(&self, expr: &str) -> Res<i32> {
        match self.eval(expr)? {
            Value::Int(n) => i32::try_from(n).map_err(|e| e.to_string()),
            other => Err(format!("expected an int, got {other:?}")),
        }
    }

    fn string(&self, expr: &str) -> Res<String> {
        match self.eval(expr)? {
            Value::Str(s) => String::from_utf8(s).map_err(|e| e.to_string()),
            other => Err(format!("expected a string, got {other:?}")),
        }
    }

    fn uuid(&self, expr: &str) -> Res<Uuid> {
        match self.eval(expr)? {
            Value::Uuid(u) => Ok(u),
            other => Err(format!("expected a UUID, got {other:?}")),
        }
    }

    fn boolean(&self, expr: &str) -> Res<bool> {
        match self.eval(expr)? {
            Value::Bool(b) => Ok(b),
            other => Err(format!("expected a bool, got {other:?}")),
        }
    }

    /// `(pData, DataSize)`: the first `size` bytes of the C string, its NUL included.
    fn sized_bytes(&self, data: &str, size: &str) -> Res<Vec<u8>> {
        let Value::Str(mut bytes) = self.eval(data)? else {
            return Err(format!("expected a string: {data}"));
        };
        bytes.push(0);
        let size = usize::try_from(self.int(size)?).map_err(|e| e.to_string())?;
        bytes
            .get(..size)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| format!("size {size} exceeds the literal {data}"))
    }

    /// The harness's `Tick(n)`: closes the open phases, then `BeginTick(n)`, `BeginPlayers`.
    fn tick(&mut self, tick: i32) -> Res<()> {
        let rec = self.rec()?;
        if rec.phase() == Phase::Players {
            rec.end_players().map_err(rec_err)?;
            rec.begin_inputs().map_err(rec_err)?;
        }
        if rec.phase() == Phase::Inputs {
            rec.end_inputs().map_err(rec_err)?;
            rec.end_tick().map_err(rec_err)?;
        }
        rec.begin_tick(tick).map_err(rec_err)?;
        rec.begin_players().map_err(rec_err)
    }

    /// The harness's `Finish()`: closes the players phase as the harness does; the recorder
    /// closes the rest itself.
    fn finish(&mut self) -> Res<()> {
        let mut rec = self.rec.take().ok_or("Finish twice")?;
        if rec.phase() == Phase::Players {
            rec.end_players().map_err(rec_err)?;
            rec.begin_inputs().map_err(rec_err)?;
        }
        self.output = Some(rec.finish().map_err(rec_err)?);
        Ok(())
    }

    fn run(&mut self, calls: &str) -> Res<()> {
        let statements: Vec<&str> = split_top(calls, ';')
            .into_iter()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        let mut i = 0;
        while i < statements.len() {
            if let Some(header) = statements[i].strip_prefix("for(") {
                let body = statements.get(i + 1).ok_or("a for loop without a body")?;
                self.run_for(header.strip_suffix(')').ok_or("unclosed for")?, body)?;
                i += 2;
            } else {
                self.statement(statements[i])?;
                i += 1;
            }
        }
        Ok(())
    }

    /// `for(int i = A; i < B; i++)` or `i += S`, running `body` once per value.
    fn run_for(&mut self, header: &str, body: &str) -> Res<()> {
        let parts: Vec<&str> = split_top(header, ';').into_iter().map(str::trim).collect();
        let [init, cond, step] = parts[..] else {
            return Err(format!("unsupported for header {header:?}"));
        };
        let (var, start) = init
            .strip_prefix("int ")
            .and_then(|s| s.split_once('='))
            .ok_or_else(|| format!("unsupported for init {init:?}"))?;
        let var = var.trim().to_string();
        let start = self.int(start)?;
        let (cond_var, end) = cond
            .split_once('<')
            .ok_or_else(|| format!("unsupported for condition {cond:?}"))?;
        let end = self.int(end)?;
        let step = if step == format!("{var}++") {
            1
        } else if let Some(s) = step.strip_prefix(&format!("{var} +=")) {
            self.int(s)?
        } else {
            return Err(format!("unsupported for step {step:?}"));
        };
        if cond_var.trim() != var || step <= 0 {
            return Err(format!("unsupported for header {header:?}"));
        }
        let mut value = start;
        while value < end {
            self.vars.insert(var.clone(), value.into());
            self.statement(body)?;
            value += step;
        }
        self.vars.remove(&var);
        Ok(())
    }

    fn statement(&mut self, stmt: &str) -> Res<()> {
        if let Some(list) = stmt.strip_prefix("CNetObj_PlayerInput Input =") {
            let list = list
                .trim()
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .ok_or_else(|| format!("unsupported initializer {stmt:?}"))?;
            let values: Vec<&str> = split_top(list, ',');
            if values.len() != 10 {
                return Err(format!("an input has 10 ints: {stmt:?}"));
            }
            for (slot, v) in self.input.iter_mut().zip(values) {
                *slot = v.trim().parse().map_err(|_| format!("bad int {v:?}"))?;
            }
            return Ok(());
        }
        if let Some(rest) = stmt.strip_prefix("Input.") {
            let (field, value) = rest
                .split_once('=')
                .ok_or_else(|| format!("unsupported statement {stmt:?}"))?;
            let index = INPUT_FIELDS
                .iter()
                .position(|f| *f == field.trim())
                .ok_or_else(|| format!("unknown input field {field:?}"))?;
            self.input[index] = self.int(value)?;
            return Ok(());
        }
        if let Some(uuid) = stmt.strip_prefix("game info with prev_game_uuid =") {
            let uuid: Uuid = uuid.trim().parse().map_err(|e| format!("{e}"))?;
            self.header.prev_game_uuid = Some(uuid.to_string());
            return Ok(());
        }
        let (name, args) = stmt
            .strip_suffix(')')
            .and_then(|s| s.split_once('('))
            .ok_or_else(|| format!("unsupported statement {stmt:?}"))?;
        let name = name.strip_prefix("m_TH.").unwrap_or(name);
        let args: Vec<&str> = if args.trim().is_empty() {
            Vec::new()
        } else {
            split_top(args, ',')
        };
        let arity = |n: usize| -> Res<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(format!("{name} takes {n} arguments: {stmt:?}"))
            }
        };
        match name {
            "Tick" => {
                arity(1)?;
                let tick = self.int(args[0])?;
                self.tick(tick)
            }
            "Inputs" => {
                arity(0)?;
                let rec = self.rec()?;
                rec.end_players().map_err(rec_err)?;
                rec.begin_inputs().map_err(rec_err)
            }
            "Finish" => {
                arity(0)?;
                self.finish()
            }
            "Reset" => {
                arity(1)?;
                if args[0].trim() != "&m_GameInfo" {
                    return Err(format!("unsupported Reset argument {:?}", args[0]));
                }
                self.reset();
                Ok(())
            }
            _ => self.record(name, &args).map_err(|e| format!("{stmt}: {e}")),
        }
    }

    /// The `m_TH.Record...` calls (and the harness's `Player`/`DeadPlayer`).
    fn record(&mut self, name: &str, a: &[&str]) -> Res<()> {
        let want = |n: usize| -> Res<()> {
            if a.len() == n {
                Ok(())
            } else {
                Err(format!("{name} takes {n} arguments"))
            }
        };
        let input = self.input;
        let result = match name {
            "Player" => {
                want(3)?;
                let (cid, x, y) = (self.int(a[0])?, self.int(a[1])?, self.int(a[2])?);
                self.rec()?.record_player(cid, x, y)
            }
            "DeadPlayer" => {
                want(1)?;
                let cid = self.int(a[0])?;
                self.rec()?.record_dead_player(cid)
            }
            "RecordPlayerInput" => {
                want(3)?;
                let (cid, id) = (self.int(a[0])?, self.int(a[1])?);
                if !matches!(self.eval(a[2])?, Value::Input) {
                    return Err(format!("unsupported input {:?}", a[2]));
                }
                let id = u32::try_from(id).map_err(|e| e.to_string())?;
                self.rec()?.record_player_input(cid, id, &input)
            }
            "RecordPlayerMessage" => {
                want(3)?;
                let cid = self.int(a[0])?;
                let data = self.sized_bytes(a[1], a[2])?;
                self.rec()?.record_player_message(cid, &data)
            }
            "RecordPlayerJoin" => {
                want(2)?;
                let cid = self.int(a[0])?;
                let protocol = match self.int(a[1])? {
                    6 => Protocol::Six,
                    7 => Protocol::Seven,
                    p => return Err(format!("protocol {p}")),
                };
                self.rec()?.record_player_join(cid, protocol)
            }
            "RecordPlayerDrop" => {
                want(2)?;
                let (cid, reason) = (self.int(a[0])?, self.string(a[1])?);
                self.rec()?.record_player_drop(cid, &reason)
            }
            "RecordTestExtra" => {
                want(0)?;
                self.rec()?.record_test_extra()
            }
            "RecordDDNetVersion" => {
                want(4)?;
                let (cid, conn) = (self.int(a[0])?, self.uuid(a[1])?);
                let (version, text) = (self.int(a[2])?, self.string(a[3])?);
                self.rec()?.record_ddnet_version(cid, conn, version, &text)
            }
            "RecordDDNetVersionOld" => {
                want(2)?;
                let (cid, version) = (self.int(a[0])?, self.int(a[1])?);
                self.rec()?.record_ddnet_version_old(cid, version)
            }
            "RecordAuthInitial" | "RecordAuthLogin" => {
                want(3)?;
                let (cid, auth) = (self.int(a[0])?, self.string(a[2])?);
                // An int is a level (DDNet 20.x), a string a role by name (DDNet #12788).
                let role = match self.eval(a[1])? {
                    Value::Str(role) => Err(String::from_utf8(role).map_err(|e| e.to_string())?),
                    _ => Ok(self.int(a[1])?),
                };
                let rec = self.rec()?;
                match (name == "RecordAuthInitial", role) {
                    (true, Ok(level)) => rec.record_auth_initial(cid, level, &auth),
                    (false, Ok(level)) => rec.record_auth_login(cid, level, &auth),
                    (true, Err(role)) => rec.record_auth_initial_role(cid, &role, &auth),
                    (false, Err(role)) => rec.record_auth_login_role(cid, &role, &auth),
                }
            }
            "RecordAuthLogout" => {
                want(1)?;
                let cid = self.int(a[0])?;
                self.rec()?.record_auth_logout(cid)
            }
            "RecordTeamSaveSuccess" | "RecordTeamLoadSuccess" => {
                want(3)?;
                let (team, id, save) = (self.int(a[0])?, self.uuid(a[1])?, self.string(a[2])?);
                let rec = self.rec()?;
                if name == "RecordTeamSaveSuccess" {
                    rec.record_team_save_success(team, id, &save)
                } else {
                    rec.record_team_load_success(team, id, &save)
                }
            }
            "RecordTeamSaveFailure" => {
                want(1)?;
                let team = self.int(a[0])?;
                self.rec()?.record_team_save_failure(team)
            }
            "RecordTeamLoadFailure" => {
                want(1)?;
                let team = self.int(a[0])?;
                self.rec()?.record_team_load_failure(team)
            }
            "RecordPlayerSwap" => {
                want(2)?;
                let (c1, c2) = (self.int(a[0])?, self.int(a[1])?);
                self.rec()?.record_player_swap(c1, c2)
            }
            "RecordPlayerTeam" => {
                want(2)?;
                let (cid, team) = (self.int(a[0])?, self.int(a[1])?);
                self.rec()?.record_player_team(cid, team)
            }
            "RecordTeamPractice" => {
                want(2)?;
                let (team, practice) = (self.int(a[0])?, self.boolean(a[1])?);
                self.rec()?.record_team_practice(team, practice)
            }
            "RecordPlayerRejoin" => {
                want(1)?;
                let cid = self.int(a[0])?;
                self.rec()?.record_player_rejoin(cid)
            }
            "RecordPlayerReady" => {
                want(1)?;
                let cid = self.int(a[0])?;
                self.rec()?.record_player_ready(cid)
            }
            "RecordAntibot" => {
                want(2)?;
                let data = self.sized_bytes(a[0], a[1])?;
                self.rec()?.record_antibot(&data)
            }
            "RecordConsoleCommand" => {
                want(4)?;
                let (cid, flags, cmd) = (self.int(a[0])?, self.int(a[1])?, self.string(a[2])?);
                let args = a[3]
                    .trim()
                    .strip_prefix("Args(")
                    .and_then(|s| s.strip_suffix(')'))
                    .ok_or_else(|| format!("unsupported arguments {:?}", a[3]))?;
                let args: Vec<String> = if args.trim().is_empty() {
                    Vec::new()
                } else {
                    split_top(args, ',')
                        .into_iter()
                        .map(|arg| self.string(arg))
                        .collect::<Res<_>>()?
                };
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                self.rec()?.record_console_command(cid, flags, &cmd, &args)
            }
            "RecordPlayerName" => {
                want(2)?;
                let (cid, player) = (self.int(a[0])?, self.string(a[1])?);
                self.rec()?.record_player_name(cid, &player)
            }
            "RecordPlayerFinish" => {
                want(2)?;
                let (cid, time) = (self.int(a[0])?, self.int(a[1])?);
                self.rec()?.record_player_finish(cid, time)
            }
            "RecordTeamFinish" => {
                want(2)?;
                let (team, time) = (self.int(a[0])?, self.int(a[1])?);
                self.rec()?.record_team_finish(team, time)
            }
            _ => return Err(format!("unknown call {name}")),
        };
        result.map_err(rec_err)
    }

    /// The whole file: the finished output, or what an unfinished recorder has written.
    fn into_output(mut self) -> Res<Vec<u8>> {
        match (self.output.take(), self.rec.take()) {
            (Some(out), _) => Ok(out),
            (None, Some(rec)) => rec.into_inner().map_err(rec_err),
            (None, None) => Err("no output".into()),
        }
    }
}

/// The header DDNet's test expects for every case of `v`: its template with the start time
/// and the UUID names of `reference` filled in.
fn expected_header(v: &serde_json::Value, reference: &Header) -> Vec<u8> {
    let uuid_names: Vec<String> = reference
        .uuids
        .as_ref()
        .unwrap()
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect();
    let template = v["header"]["json_template"].as_str().unwrap();
    let expected_json = template
        .replace("START_TIME", reference.start_time.as_deref().unwrap())
        .replace("UUID_NAMES", &uuid_names.join(","));
    let mut expected_header = FILE_UUID.to_vec();
    expected_header.extend_from_slice(expected_json.as_bytes());
    expected_header.push(0);
    expected_header
}

/// One recorded case of a vectors file: its JSON, the header the harness ended with, the
/// whole file and where its body starts.
struct RecordedCase<'a> {
    case: &'a serde_json::Value,
    header: Header,
    file: Vec<u8>,
    body_offset: usize,
}

/// Runs every case of the vectors file `name` (which must hold `count` cases) through the
/// harness and checks its body against DDNet's bytes and its header against the file's
/// template; then `check` does the rest. Fails with every case that failed.
fn check_vectors(name: &str, count: usize, mut check: impl FnMut(&RecordedCase<'_>) -> Res<()>) {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let v = vectors(&shared, name);
    let reference = Header::from_json(header_json(&reference_file(&shared))).unwrap();
    let base_header = test_game_header(&reference);
    let expected_header = expected_header(&v, &reference);

    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), count);
    let mut failures = Vec::new();
    for case in cases {
        let calls = case["ddnet_test_calls"].as_str().unwrap();
        let expected_body = case["expected_body_hex"].as_str().unwrap();
        let mut h = Harness::new(base_header.clone());
        let outcome = h.run(calls).and_then(|()| {
            let body_offset = h.body_offset;
            let header = h.header.clone();
            let file = h.into_output()?;
            let (head, body) = file.split_at(body_offset);
            if hex(body) != expected_body {
                return Err(format!("body {} (expected {expected_body})", hex(body)));
            }
            // A case that changes the game info checks its header itself.
            if header.prev_game_uuid.is_none() && head != expected_header {
                return Err("the header differs from DDNet's".into());
            }
            check(&RecordedCase {
                case,
                header,
                file,
                body_offset,
            })
        });
        if let Err(e) = outcome {
            failures.push(format!("{}: {e}", case["name"].as_str().unwrap()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn ddnet_unit_test_vectors() {
    check_vectors("teehistorian-vectors.json", 31, |r| {
        let Some(keys) = r.case.get("expected_header_json_has") else {
            return Ok(());
        };
        let parsed = Header::from_json(header_json(&r.file)).map_err(|e| e.to_string())?;
        for (key, value) in keys.as_object().unwrap() {
            let value = value.as_str().unwrap();
            if key != "prev_game_uuid" || parsed.prev_game_uuid.as_deref() != Some(value) {
                return Err(format!("header lacks {key}={value}"));
            }
            // DDNet writes it right after game_uuid.
            let json = String::from_utf8_lossy(header_json(&r.file)).into_owned();
            let game = r.header.game_uuid.as_deref().unwrap();
            let pair = format!("\"game_uuid\":\"{game}\",\"{key}\":\"{value}\",");
            if !json.contains(&pair) {
                return Err(format!("{key} is not right after game_uuid"));
            }
        }
        Ok(())
    });
}

/// The tick DDNet's writer was in at each body offset, from a case's `ddnet_ticks` runs.
fn ddnet_tick_at(runs: &serde_json::Value, offset: usize) -> i64 {
    runs.as_array()
        .unwrap()
        .iter()
        .take_while(|run| run[0].as_u64().unwrap() as usize <= offset)
        .last()
        .map_or(0, |run| run[1].as_i64().unwrap())
}

#[test]
fn ddnet_128_client_vectors() {
    let mut high_cids = 0;
    check_vectors("teehistorian-vectors-128.json", 19, |r| {
        // Both readers put every message at the tick DDNet's writer was in when it wrote
        // the message's first byte.
        let slice = TeehistorianSlice::parse(&r.file).map_err(|e| e.to_string())?;
        let from_slice: Vec<_> = slice
            .messages()
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let mut stream = TeehistorianReader::new(&r.file[..]).map_err(|e| e.to_string())?;
        let mut from_stream = Vec::new();
        while let Some(m) = stream.next() {
            let m = m.map_err(|e| e.to_string())?;
            from_stream.push((m.offset, m.tick));
        }
        let slice_ticks: Vec<(u64, i32)> = from_slice.iter().map(|m| (m.offset, m.tick)).collect();
        if slice_ticks != from_stream {
            return Err("the streaming reader's ticks differ from the slice reader's".into());
        }
        for m in &from_slice {
            let at = m.offset as usize - r.body_offset;
            let ddnet = ddnet_tick_at(&r.case["ddnet_ticks"], at);
            if i64::from(m.tick) != ddnet {
                return Err(format!(
                    "{} at body offset {at}: reader tick {}, DDNet's writer was in tick {ddnet}",
                    m.message.kind_name(),
                    m.tick
                ));
            }
            if m.message.player_record_cid().is_some_and(|cid| cid >= 64) {
                high_cids += 1;
            }
        }
        Ok(())
    });
    // The cases are about client ids 64..127: most of their player records are there. (0
    // when the corpus is missing outside CI, where check_vectors skipped.)
    assert!(
        high_cids >= 40 || common::shared_dir().is_none(),
        "only {high_cids} player records for cids 64..127"
    );
}

// ---------------------------------------------------------------------------------------
// The reference file, as a server's tick loop records it
// ---------------------------------------------------------------------------------------

const INPUT_1: [i32; 10] = [1, 10, -20, 0, 0, 0, 0, 0, 0, 0];
const INPUT_2: [i32; 10] = [0, 10, -20, 1, 0, 0, 0, 0, 0, 0];

/// The calls listed for `ref.teehistorian`, made the way DDNet's server makes them: team
/// and input every tick (written only on change), positions after each tick. Each step is
/// named; the first error is returned with the step's name.
fn record_reference<W: Write>(rec: &mut Recorder<W>) -> Result<(), (&'static str, RecorderError)> {
    let step = |name: &'static str| move |e| (name, e);
    rec.record_player_join(0, Protocol::Six)
        .map_err(step("join"))?;
    rec.record_player_name(0, "nameless tee")
        .map_err(step("name"))?;
    for tick in 1..=11 {
        rec.record_player_team(0, 0).map_err(step("team"))?;
        rec.begin_tick(tick).map_err(step("begin_tick"))?;
        rec.begin_players().map_err(step("begin_players"))?;
        match tick {
            1 => rec.record_player(0, 100, 200),
            2..=9 => rec.record_player(0, 103, 200),
            _ => rec.record_dead_player(0),
        }
        .map_err(step("player"))?;
        for cid in 1..64 {
            rec.record_dead_player(cid).map_err(step("player"))?;
        }
        rec.end_players().map_err(step("end_players"))?;
        rec.begin_inputs().map_err(step("begin_inputs"))?;
        let input = if tick == 1 { &INPUT_1 } else { &INPUT_2 };
        if tick < 11 {
            rec.record_player_input(0, 1, input)
                .map_err(step("input"))?;
        } else {
            rec.record_player_drop(0, "bye").map_err(step("drop"))?;
        }
        rec.end_inputs().map_err(step("end_inputs"))?;
        rec.end_tick().map_err(step("end_tick"))?;
    }
    Ok(())
}

#[test]
fn reference_file_byte_for_byte() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let data = reference_file(&shared);
    let json = header_json(&data);
    let header = Header::from_json(json).unwrap();
    // The typed header, the same game info built by hand, and the stored JSON all give the
    // file DDNet wrote.
    let recorders = [
        Recorder::new(Vec::new(), &header).unwrap(),
        Recorder::new(Vec::new(), &test_game_header(&header)).unwrap(),
        Recorder::with_header_json(Vec::new(), json).unwrap(),
    ];
    for (i, mut rec) in recorders.into_iter().enumerate() {
        assert_eq!(rec.position(), 3190);
        record_reference(&mut rec).unwrap();
        let out = rec.finish().unwrap();
        assert_eq!(hex(&out[3190..]), hex(&data[3190..]), "recorder {i}");
        assert_eq!(out, data, "recorder {i}");
    }
}

// ---------------------------------------------------------------------------------------
// Flushing
// ---------------------------------------------------------------------------------------

/// A sink that remembers what was written, in how many calls, and how much was flushed.
#[derive(Default)]
struct FlushLog {
    data: Vec<u8>,
    writes: usize,
    flushes: usize,
    flushed_len: usize,
}

impl Write for FlushLog {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writes += 1;
        self.data.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.flushes += 1;
        self.flushed_len = self.data.len();
        Ok(())
    }
}

fn small_header() -> Header {
    Header {
        comment: Some("teehistorian@ddnet.tw".into()),
        ..Header::new("2")
    }
}

/// Ten ticks of the loop: player 0 moving, inputs changing every other tick, a chat
/// message every third tick. Calls `after_end_tick` after each tick.
fn ten_ticks(
    rec: &mut Recorder<FlushLog>,
    mut after_end_tick: impl FnMut(i32, &Recorder<FlushLog>, usize),
) {
    rec.record_player_join(0, Protocol::Seven).unwrap();
    for tick in 1..=10 {
        let written_before = rec.get_ref().data.len();
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        rec.record_player(0, tick * 3, 7).unwrap();
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        rec.record_player_input(0, 9, &[tick / 2, 0, 0, 0, 0, 0, 0, 0, 0, 0])
            .unwrap();
        if tick % 3 == 0 {
            rec.record_player_message(0, &[0x22, 0x00, 0x68, 0x69, 0x00])
                .unwrap();
        }
        rec.end_inputs().unwrap();
        // Nothing reaches the sink before the tick ends.
        assert_eq!(rec.get_ref().data.len(), written_before);
        assert!(rec.buffered() > 0);
        rec.end_tick().unwrap();
        after_end_tick(tick, rec, written_before);
    }
}

#[test]
fn every_tick_policy_flushes_each_tick_in_one_write() {
    let mut rec = Recorder::new(FlushLog::default(), &small_header()).unwrap();
    assert_eq!(rec.flush_policy(), FlushPolicy::EveryTick);
    assert_eq!(rec.get_ref().writes, 1, "the header is one write");
    let mut ticks = Vec::new();
    ten_ticks(&mut rec, |tick, rec, written_before| {
        let sink = rec.get_ref();
        assert_eq!(rec.buffered(), 0);
        assert_eq!(sink.data.len() as u64, rec.position());
        assert!(sink.data.len() > written_before);
        assert_eq!(sink.flushed_len, sink.data.len(), "tick {tick} not flushed");
        // Header, then one write per tick.
        assert_eq!(sink.writes, 1 + tick as usize);
        // What is on disk now reads as complete ticks up to this one.
        let slice = TeehistorianSlice::parse(&sink.data).unwrap();
        let mut last = None;
        for item in slice.messages() {
            match item {
                Ok(m) => last = Some(m.tick),
                Err(e) => {
                    assert!(e.is_truncation(), "{e}");
                    assert_eq!(e.offset, sink.data.len() as u64);
                }
            }
        }
        assert_eq!(last, Some(tick));
        ticks.push(tick);
    });
    assert_eq!(ticks.len(), 10);
    let sink = rec.finish().unwrap();
    assert_eq!(sink.flushed_len, sink.data.len());
    assert_eq!(sink.data.last(), Some(&0x40));
}

#[test]
fn never_and_every_n_ticks_policies() {
    let mut rec = Recorder::new(FlushLog::default(), &small_header())
        .unwrap()
        .with_flush_policy(FlushPolicy::Never);
    ten_ticks(&mut rec, |_, rec, _| {
        // Written at the end of each tick, but never flushed.
        assert_eq!(rec.buffered(), 0);
        assert_eq!(rec.get_ref().flushes, 0);
    });
    rec.flush().unwrap();
    assert_eq!(rec.get_ref().flushes, 1);
    assert_eq!(rec.get_ref().flushed_len, rec.get_ref().data.len());
    let never = rec.finish().unwrap();

    let three = NonZeroU32::new(3).unwrap();
    let mut rec = Recorder::new(FlushLog::default(), &small_header())
        .unwrap()
        .with_flush_policy(FlushPolicy::EveryNTicks(three));
    ten_ticks(&mut rec, |tick, rec, _| {
        let sink = rec.get_ref();
        assert_eq!(sink.flushes, tick as usize / 3, "tick {tick}");
        if tick % 3 == 0 {
            assert_eq!(sink.flushed_len, sink.data.len());
        } else {
            assert!(sink.flushed_len < sink.data.len());
        }
    });
    let every_three = rec.finish().unwrap();
    // The policy changes when bytes are flushed, never which bytes.
    assert_eq!(never.data, every_three.data);
    assert_eq!(every_three.flushed_len, every_three.data.len());
}

// ---------------------------------------------------------------------------------------
// A failing sink
// ---------------------------------------------------------------------------------------

/// A sink that accepts `limit` bytes and then fails every write.
#[derive(Debug)]
struct FailAfter {
    data: Vec<u8>,
    limit: usize,
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.limit - self.data.len();
        if room == 0 {
            return Err(io::Error::other("disk full"));
        }
        let n = buf.len().min(room);
        self.data.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The messages of `data` (tick and raw bytes) up to its end, and the error there.
fn messages_of(
    data: &[u8],
) -> (
    Vec<(i32, Vec<u8>)>,
    Option<demokit::teehistorian::ReadError>,
) {
    let mut reader = TeehistorianReader::new(data).unwrap();
    let mut out = Vec::new();
    loop {
        match reader.next() {
            None => return (out, None),
            Some(Ok(m)) => out.push((m.tick, m.raw.to_vec())),
            Some(Err(e)) => return (out, Some(e)),
        }
    }
}

#[test]
fn failing_sink_poisons_the_recorder_and_leaves_a_readable_prefix() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let reference = reference_file(&shared);
    let json = header_json(&reference);
    let header_len = 16 + json.len() + 1;
    let (all_messages, end) = messages_of(&reference);
    assert!(end.is_none());

    for limit in 0..reference.len() {
        let sink = FailAfter {
            data: Vec::new(),
            limit,
        };
        let mut rec = match Recorder::with_header_json(sink, json) {
            Ok(rec) => rec,
            Err(RecorderError::Io { call: "new", .. }) => {
                assert!(limit < header_len);
                continue;
            }
            Err(e) => panic!("limit {limit}: {e}"),
        };
        assert!(limit >= header_len);
        let (step, error) = match record_reference(&mut rec) {
            Err(failure) => failure,
            Ok(()) => {
                // Every tick fitted; only FINISH, the last byte, does not.
                assert_eq!(limit, reference.len() - 1);
                let e = rec.finish().unwrap_err();
                assert!(matches!(e, RecorderError::Io { call: "finish", .. }), "{e}");
                continue;
            }
        };
        // Bytes reach the sink only when a tick ends (the header at creation).
        assert_eq!(step, "end_tick", "limit {limit}: {error}");
        assert!(
            matches!(
                error,
                RecorderError::Io {
                    call: "end_tick",
                    ..
                }
            ),
            "limit {limit}: {error}"
        );
        assert!(rec.is_poisoned());
        // Every later call is refused, whatever it is.
        assert!(matches!(
            rec.begin_tick(100),
            Err(RecorderError::Poisoned { call: "begin_tick" })
        ));
        assert!(matches!(
            rec.record_player_name(0, "x"),
            Err(RecorderError::Poisoned { .. })
        ));
        assert!(matches!(rec.flush(), Err(RecorderError::Poisoned { .. })));
        let data = rec.abandon().data;
        assert_eq!(data, reference[..limit], "limit {limit}");
        // The prefix reads as the reference's messages up to the cut, then a truncation (or
        // nothing, when the cut falls between two messages: an unfinished file).
        let (messages, end) = messages_of(&data);
        let read: usize = header_len + messages.iter().map(|(_, raw)| raw.len()).sum::<usize>();
        match end {
            Some(end) => assert!(end.is_truncation(), "limit {limit}: {end}"),
            None => assert_eq!(read, limit, "limit {limit}"),
        }
        assert!(messages.last().is_none_or(|(_, raw)| raw[..] != [0x40]));
        assert_eq!(
            messages[..],
            all_messages[..messages.len()],
            "limit {limit}"
        );
        assert!(read <= limit && limit - read < 64, "limit {limit}");
    }
}

// ---------------------------------------------------------------------------------------
// A long recording read back
// ---------------------------------------------------------------------------------------

/// A small deterministic generator (PCG-style LCG), so the test needs no dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

#[derive(Clone, PartialEq, Debug)]
struct World {
    players: Vec<Option<(i32, i32)>>,
    inputs: Vec<Option<[i32; 10]>>,
}

impl World {
    fn new() -> Self {
        World {
            players: vec![None; 64],
            inputs: vec![None; 64],
        }
    }
}

#[test]
fn pseudo_random_recordings_read_back_tick_by_tick() {
    for seed in 0..40u64 {
        let mut rng = Lcg(seed);
        let mut rec = Recorder::new(Vec::new(), &small_header()).unwrap();
        let mut world = World::new();
        let mut expected: Vec<(i32, World)> = Vec::new();
        let mut tick = 0;
        // Unique client ids are never 0 (DDNet's "none").
        let mut ids = [1u32; 64];
        for _ in 0..300 {
            // Gaps of up to a few ticks between recorded ones; some ticks record nothing.
            tick += 1 + rng.below(3) as i32 * rng.below(2) as i32;
            rec.begin_tick(tick).unwrap();
            rec.begin_players().unwrap();
            let active = rng.below(6);
            for cid in 0..64usize {
                if cid as u32 % 6 > active {
                    continue; // Not every client id is passed every tick.
                }
                if rng.below(5) == 0 {
                    world.players[cid] = None;
                    rec.record_dead_player(cid as i32).unwrap();
                } else {
                    let (x, y) = world.players[cid].unwrap_or((0, 0));
                    let (x, y) = match rng.below(3) {
                        0 => (x, y),
                        1 => (x + rng.below(7) as i32 - 3, y),
                        _ => (rng.next() as i32, rng.next() as i32),
                    };
                    world.players[cid] = Some((x, y));
                    rec.record_player(cid as i32, x, y).unwrap();
                }
            }
            rec.end_players().unwrap();
            rec.begin_inputs().unwrap();
            for _ in 0..rng.below(4) {
                let cid = rng.below(64) as usize;
                if rng.below(8) == 0 {
                    ids[cid] = 1 + rng.below(3);
                }
                let mut input = world.inputs[cid].unwrap_or([0; 10]);
                input[rng.below(10) as usize] = rng.next() as i32;
                rec.record_player_input(cid as i32, ids[cid], &input)
                    .unwrap();
                world.inputs[cid] = Some(input);
            }
            if rng.below(10) == 0 {
                rec.record_player_ready(rng.below(64) as i32).unwrap();
            }
            rec.end_inputs().unwrap();
            rec.end_tick().unwrap();
            expected.push((tick, world.clone()));
        }
        let data = rec.finish().unwrap();

        // Replay: the state after all messages of ticks up to T must be the world at T.
        let slice = TeehistorianSlice::parse(&data).unwrap();
        let messages: Vec<_> = slice.messages().collect::<Result<_, _>>().unwrap();
        let mut replay = World::new();
        let mut next = 0;
        for (t, want) in &expected {
            while next < messages.len() && messages[next].tick <= *t {
                match messages[next].message {
                    Message::PlayerNew { cid, x, y } => replay.players[cid as usize] = Some((x, y)),
                    Message::PlayerDiff { cid, dx, dy } => {
                        let (x, y) = replay.players[cid as usize].expect("diff of a dead player");
                        replay.players[cid as usize] =
                            Some((x.wrapping_add(dx), y.wrapping_add(dy)));
                    }
                    Message::PlayerOld { cid } => {
                        assert!(replay.players[cid as usize].is_some());
                        replay.players[cid as usize] = None;
                    }
                    Message::InputNew { cid, input } => replay.inputs[cid as usize] = Some(input),
                    Message::InputDiff { cid, diff } => {
                        let old = replay.inputs[cid as usize].expect("diff without input");
                        replay.inputs[cid as usize] = Some(apply_input_diff(&old, &diff));
                    }
                    _ => {}
                }
                next += 1;
            }
            assert_eq!(&replay, want, "seed {seed} tick {t}");
        }
        assert_eq!(next, messages.len());
        assert_eq!(messages.last().unwrap().message, Message::Finish);
    }
}

// ---------------------------------------------------------------------------------------
// No allocation per message
// ---------------------------------------------------------------------------------------

#[test]
fn recording_ticks_allocates_nothing_once_the_buffer_has_grown() {
    let mut rec = Recorder::new(io::sink(), &small_header()).unwrap();
    let run_tick = |rec: &mut Recorder<io::Sink>, tick: i32| {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        for cid in 0..64 {
            // Everyone moves every tick; every fourth player dies and respawns in turn.
            if (cid + tick) % 4 == 0 {
                rec.record_dead_player(cid).unwrap();
            } else {
                rec.record_player(cid, tick * 7 + cid, -tick).unwrap();
            }
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        for cid in 0..64 {
            rec.record_player_input(
                cid,
                1 + (tick as u32 / 10),
                &[tick, cid, 0, 0, 0, 0, 0, 0, 0, 0],
            )
            .unwrap();
            rec.record_player_team(cid, tick % 3).unwrap();
        }
        rec.record_player_message(3, &[0x22, 0x00, 0x68, 0x69, 0x00])
            .unwrap();
        rec.record_console_command(-1, 36, "say", &["hello", "world"])
            .unwrap();
        rec.record_player_name(5, "nameless tee").unwrap();
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    };
    // Warm-up: the tick buffer grows to its working size.
    for tick in 1..=20 {
        run_tick(&mut rec, tick);
    }
    let count = allocations(|| {
        for tick in 21..=500 {
            run_tick(&mut rec, tick);
        }
    });
    assert_eq!(count, 0, "allocations while recording");
    rec.finish().unwrap();
}

/// DDNet's byte vectors of changes after 28baa427 (fixtures/inflight, each case naming the
/// pull request and commit its bytes come from): recorded byte for byte, read back typed
/// and rewritten unchanged.
#[test]
fn ddnet_pull_request_vectors() {
    use demokit::teehistorian::{AuthRole, Ex, rewrite};
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/inflight/teehistorian-ddnet-prs.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let shared = common::shared_dir().unwrap();
    let reference = Header::from_json(header_json(&reference_file(&shared))).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 1);
    for case in cases {
        assert!(case["source"].as_str().unwrap().contains("ddnet/ddnet"));
        let mut h = Harness::new(test_game_header(&reference));
        h.run(case["ddnet_test_calls"].as_str().unwrap()).unwrap();
        let body_offset = h.body_offset;
        let file = h.into_output().unwrap();
        assert_eq!(
            hex(&file[body_offset..]),
            case["expected_body_hex"].as_str().unwrap()
        );

        let mut kinds = Vec::new();
        for m in TeehistorianSlice::parse(&file).unwrap().messages() {
            if let Message::Ex(ex) = m.unwrap().message {
                kinds.push(match ex {
                    Ex::AuthInitRole {
                        cid,
                        role,
                        auth_name,
                    } => {
                        format!(
                            "init {cid} {} {}",
                            role.to_string_lossy(),
                            auth_name.to_string_lossy()
                        )
                    }
                    Ex::AuthLogin {
                        cid,
                        role: AuthRole::Name(role),
                        auth_name,
                    } => {
                        format!(
                            "login {cid} {} {}",
                            role.to_string_lossy(),
                            auth_name.to_string_lossy()
                        )
                    }
                    other => format!("{other:?}"),
                });
            }
        }
        assert_eq!(
            kinds,
            [
                "init 0 admin default_admin",
                "login 1 moderator foobar",
                "login 2 helper help",
                "AuthLogout { cid: 1 }"
            ]
        );
        let mut again = Vec::new();
        rewrite(&file, &mut again).unwrap();
        assert_eq!(again, file);
    }
}

/// AUTH_LOGIN's two layouts under one UUID: DDNet 20.x's level and #12788's role by name
/// are each read as written (payloads as DDNet's own tests of each write them), and the one
/// payload both could read (level 0, an empty name) reads back to the same bytes.
#[test]
fn auth_login_reads_a_level_or_a_role() {
    use demokit::teehistorian::{ExKind, rewrite};
    let shared = common::shared_dir().unwrap();
    let reference = Header::from_json(header_json(&reference_file(&shared))).unwrap();
    let mut h = Harness::new(test_game_header(&reference));
    h.run("Finish();").unwrap();
    let body_offset = h.body_offset;
    let empty = h.into_output().unwrap();
    let typed = |payload: &[u8]| {
        let mut file = empty[..body_offset].to_vec();
        file.push(0x4a);
        file.extend_from_slice(ExKind::AuthLogin.uuid().as_bytes());
        file.push(u8::try_from(payload.len()).unwrap());
        file.extend_from_slice(payload);
        file.extend_from_slice(&empty[body_offset..]);
        let mut again = Vec::new();
        rewrite(&file, &mut again).unwrap();
        assert_eq!(again, file);
        let slice = TeehistorianSlice::parse(&file).unwrap();
        let message = slice.messages().next().unwrap().unwrap();
        format!("{:?}", message.message)
    };
    // DDNet 20.x: cid 1, AUTHED_MOD, "foobar".
    assert!(typed(b"\x01\x02foobar\0").contains("AuthLogin { cid: 1, role: Level(2)"));
    // DDNet #12788: cid 1, "moderator", "foobar".
    assert!(typed(b"\x01moderator\0foobar\0").contains("role: Name(\"moderator\")"));
    assert!(typed(b"\x01\0foobar\0").contains("role: Name(\"\")"));
    // A level of two bytes.
    assert!(typed(b"\x01\x80\x01x\0").contains("role: Level(64)"));
    // Neither layout (three strings): kept untyped.
    assert!(typed(b"\x01a\0b\0c\0").contains("Unknown"));
}
