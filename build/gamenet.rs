//! The game protocol tables of `src/gamenet/six.rs` and `seven.rs`, written from their
//! specs: `src/gamenet/spec/<protocol>.json`, what DDNet's `datasrc` declares (written by
//! `tools/gamenet-spec/dump.py`), joined with `<protocol>.overlay.json`, what demokit
//! adds by hand (docs, Rust names, layouts DDNet packs by hand).
//!
//! The output is one `net_objects! { … }` and one `net_messages! { … }` invocation (the
//! macros of `src/gamenet/table.rs`) per protocol, in `OUT_DIR/gamenet_<protocol>.rs`, and
//! for 0.7 the checks of DDNet's object validation from the members' bounds
//! (`OUT_DIR/gamenet_seven_checks.rs`, used by `seven::object_is_valid`).
//!
//! Rules, so that the overlay only says what they do not give:
//!
//! - Order: numbered objects and messages by number, then the extended ones in datasrc
//!   order; game messages before system messages.
//! - Rust name of an entry: DDNet's without `_`, `DDNet` and `DDRace` as `Ddnet`, `Ddrace`
//!   (`Sv_DDRaceTime` is `SvDdraceTime`); the overlay's `"rust"` wins.
//! - Rust name of a field: the member's without `m_` and its type prefix (`a`, `p`, `ap`,
//!   ...), in snake case (`m_aSkinPartNames` is `skin_part_names`); the overlay's wins.
//! - Kind of a field: an int member is `int`, `(opt int)` with a default (DDNet reads it
//!   with that default when it is not sent); `NetTwIntString` is `(text N)`; an array of
//!   ints `(ints N)` (`(opt ints N)`); a string member of a message is `str`, an array of
//!   them `(strs N)`. The overlay's `"kind"` wins, and for an object must take as many ints.
//! - A derived object (`Character:CharacterCore`, the events on `Common`) has its base's
//!   fields first, with the docs the base's overlay entry gives them.
//! - An overlay `"layout"` replaces the members (where DDNet packs a message by hand, or
//!   declares none); an overlay entry with an `"id"` is one datasrc does not have; a
//!   `"note"` is for its readers.
//!
//! DDNet's pull requests in flight (`<protocol>.inflight.json`, only for `six`) are applied
//! to the spec before the overlay joins it (see `apply_inflight`).
//!
//! Anything that does not fit (an entry or a member without overlay docs, an overlay key
//! that names nothing) stops the build with the name.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt::Write;
use std::fs;
use std::path::Path;

/// Writes `OUT_DIR/gamenet_six.rs` and `gamenet_seven.rs`.
pub fn generate(spec_dir: &Path, out_dir: &Path) {
    for protocol in ["six", "seven"] {
        let mut spec = read(&spec_dir.join(format!("{protocol}.json")));
        let inflight = spec_dir.join(format!("{protocol}.inflight.json"));
        if inflight.is_file() {
            apply_inflight(&mut spec, &read(&inflight));
        }
        let overlay = read(&spec_dir.join(format!("{protocol}.overlay.json")));
        let code = tables(protocol, &spec, &overlay);
        fs::write(out_dir.join(format!("gamenet_{protocol}.rs")), code).unwrap();
        if protocol == "seven" {
            let code = object_checks(&spec);
            fs::write(out_dir.join("gamenet_seven_checks.rs"), code).unwrap();
        }
    }
}

/// `OBJECT_CHECKS` of `src/gamenet/seven.rs`: what DDNet's 0.7 validation
/// (`protocol7::CNetObjHandler::ValidateObj`) asks of each int of each numbered object, as
/// runs of (ints, check) in field order, by type (an empty list for a type that is none).
fn object_checks(spec: &Value) -> String {
    let objects = spec["objects"].as_array().unwrap();
    let by_name: HashMap<&str, &Value> = objects.iter().map(|o| (str(o, "name"), o)).collect();
    let numbered: Vec<(u64, &Value)> = objects
        .iter()
        .filter_map(|o| Some((o.get("id")?.as_u64()?, o)))
        .collect();
    let len = numbered.iter().map(|&(id, _)| id + 1).max().unwrap_or(0);
    let mut out = format!(
        "// Written by build.rs (build/gamenet.rs) from src/gamenet/spec/seven.json (DDNet {}); \
         do not edit.\n\n\
         /// The checks of each 0.7 object by type (an empty list: no object), as runs of \
         (ints, check) in field order, from the bounds of `datasrc/seven/network.py`.\n\
         const OBJECT_CHECKS: [&[(usize, Check)]; {len}] = [\n",
        spec["source"]["commit"].as_str().unwrap()
    );
    for id in 0..len {
        let Some(&(_, object)) = numbered.iter().find(|&&(n, _)| n == id) else {
            out += "    &[],\n";
            continue;
        };
        let mut runs: Vec<(u64, String)> = Vec::new();
        for member in flattened(object, &by_name) {
            let (count, check) = member_check(spec, member);
            match runs.last_mut() {
                Some((n, last)) if *last == check => *n += count,
                _ => runs.push((count, check)),
            }
        }
        let runs: Vec<String> = runs.iter().map(|(n, c)| format!("({n}, {c})")).collect();
        writeln!(out, "    // {id} {}", str(object, "name")).unwrap();
        writeln!(out, "    &[{}],", runs.join(", ")).unwrap();
    }
    out += "];\n";
    out
}

/// The members of a datasrc object, its base's first.
fn flattened<'a>(object: &'a Value, by_name: &HashMap<&str, &'a Value>) -> Vec<&'a Value> {
    let mut members = match object.get("base") {
        Some(base) => flattened(by_name[base.as_str().unwrap()], by_name),
        None => Vec::new(),
    };
    members.extend(object["members"].as_array().unwrap());
    members
}

/// The ints of a member and the check each of them gets (`Check` of `seven.rs`).
fn member_check(spec: &Value, member: &Value) -> (u64, String) {
    if let Some(size) = member.get("size") {
        let (n, check) = member_check(spec, &member["inner"]);
        return (size.as_u64().unwrap() * n, check);
    }
    let check = if let Some(mask) = member.get("mask") {
        format!("Check::Flags({})", bound(spec, mask))
    } else if let (Some(min), Some(max)) = (member.get("min"), member.get("max")) {
        format!("Check::Range({}, {})", bound(spec, min), bound(spec, max))
    } else {
        "Check::Any".to_owned()
    };
    (1, check)
}

/// A bound as datasrc writes it (`-1`, `MAX_CLIENTS-1`, `max_int`, `A|B|C`), worked out
/// from the spec's constants.
fn bound(spec: &Value, value: &Value) -> i64 {
    if let Some(n) = value.as_i64() {
        return n;
    }
    let text = value.as_str().unwrap();
    let term = |term: &str| {
        let (name, minus) = match term.split_once('-') {
            Some((name, n)) => (name, n.parse::<i64>().unwrap()),
            None => (term, 0),
        };
        let value = match name {
            "max_int" => i64::from(i32::MAX),
            "min_int" => i64::from(i32::MIN),
            _ => spec["constants"][name]
                .as_i64()
                .unwrap_or_else(|| panic!("bound {text}: no constant {name}")),
        };
        value - minus
    };
    text.split('|').map(term).fold(0, |all, value| all | value)
}

/// Applies `<protocol>.inflight.json`, DDNet's pull requests in flight, to the spec in
/// order: each change's `"objects"` replace the spec's object of their name or are added
/// after the object their `"after"` names (at the end without), its `"flags"` replace flag
/// lists and its `"constants"` are added.
fn apply_inflight(spec: &mut Value, inflight: &Value) {
    for change in inflight["changes"].as_array().unwrap() {
        let pr = &change["pr"];
        for (name, values) in change
            .get("flags")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let flags = spec["flags"].as_array_mut().unwrap();
            let flag = flags
                .iter_mut()
                .find(|f| str(f, "name") == name)
                .unwrap_or_else(|| panic!("in-flight PR {pr}: no flags {name}"));
            flag["values"] = values.clone();
        }
        for (name, value) in change
            .get("constants")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let constants = spec["constants"].as_object_mut().unwrap();
            constants.insert(name.clone(), value.clone());
        }
        for object in change
            .get("objects")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut object = object.clone();
            let after = object
                .as_object_mut()
                .unwrap()
                .remove("after")
                .map(|a| a.as_str().unwrap().to_owned());
            let objects = spec["objects"].as_array_mut().unwrap();
            let name = str(&object, "name").to_owned();
            if let Some(slot) = objects.iter_mut().find(|o| str(o, "name") == name) {
                assert!(
                    after.is_none(),
                    "in-flight PR {pr}: {name} is there already"
                );
                *slot = object;
                continue;
            }
            let at = match after {
                Some(after) => {
                    1 + objects
                        .iter()
                        .position(|o| str(o, "name") == after)
                        .unwrap_or_else(|| panic!("in-flight PR {pr}: no {after} for {name}"))
                }
                None => objects.len(),
            };
            objects.insert(at, object);
        }
    }
}

fn read(path: &Path) -> Value {
    println!("cargo::rerun-if-changed={}", path.display());
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One object or message as the macros take it.
struct Entry {
    doc: String,
    rust: String,
    /// The type or id in the macros' form: `7`, `(sys 7)`, `(ex "name" 0x...)`.
    id: String,
    name: String,
    fields: Vec<Field>,
}

struct Field {
    doc: String,
    name: String,
    kind: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Objects,
    Messages,
    SystemMessages,
}

impl Section {
    fn key(self) -> &'static str {
        match self {
            Section::Objects => "objects",
            Section::Messages => "messages",
            Section::SystemMessages => "system_messages",
        }
    }
}

fn tables(protocol: &str, spec: &Value, overlay: &Value) -> String {
    let commit = spec["source"]["commit"].as_str().unwrap();
    let mut out = format!(
        "// Written by build.rs (build/gamenet.rs) from src/gamenet/spec/{protocol}.json \
         (DDNet {commit}) and {protocol}.overlay.json; do not edit.\n\n"
    );
    out += "net_objects! {\n";
    for entry in entries(spec, overlay, Section::Objects) {
        write_entry(&mut out, &entry, false);
    }
    out += "}\n\nnet_messages! {\n";
    for section in [Section::Messages, Section::SystemMessages] {
        for entry in entries(spec, overlay, section) {
            write_entry(&mut out, &entry, true);
        }
    }
    out += "}\n";
    out
}

fn write_entry(out: &mut String, entry: &Entry, message: bool) {
    let lifetime = message && entry.fields.iter().any(|f| borrows(&f.kind));
    write_doc(out, "    ", &entry.doc);
    let lt = if lifetime { "<'a>" } else { "" };
    writeln!(
        out,
        "    {}{lt} = {}, {:?} {{",
        entry.rust, entry.id, entry.name
    )
    .unwrap();
    for field in &entry.fields {
        write_doc(out, "        ", &field.doc);
        writeln!(out, "        {}: {},", field.name, field.kind).unwrap();
    }
    out.push_str("    }\n");
}

fn write_doc(out: &mut String, indent: &str, doc: &str) {
    assert!(!doc.is_empty() && !doc.contains('\n'), "doc {doc:?}");
    writeln!(out, "{indent}/// {doc}").unwrap();
}

/// Whether a message field of this kind borrows from the message's bytes.
fn borrows(kind: &str) -> bool {
    matches!(kind, "str" | "(opt str)" | "rest" | "bytes") || kind.starts_with("(strs ")
}

fn entries(spec: &Value, overlay: &Value, section: Section) -> Vec<Entry> {
    let items = spec[section.key()].as_array().unwrap();
    let extra = &overlay[section.key()];
    let extra = extra
        .as_object()
        .unwrap_or_else(|| panic!("overlay: no {}", section.key()));
    let by_name: HashMap<&str, &Value> = items.iter().map(|i| (str(i, "name"), i)).collect();
    for (name, o) in extra {
        assert!(
            by_name.contains_key(name.as_str()) || o.get("id").is_some(),
            "overlay {}: {name} is not in the spec (an added entry needs an \"id\")",
            section.key()
        );
    }

    let mut numbered = Vec::new();
    let mut extended = Vec::new();
    for item in items {
        let name = str(item, "name");
        let o = extra
            .get(name)
            .unwrap_or_else(|| panic!("overlay {}: no entry for {name}", section.key()));
        let entry = entry(section, item, o, &by_name, extra);
        match item.get("id") {
            Some(id) => numbered.push((id.as_u64().unwrap(), entry)),
            None => extended.push(entry),
        }
    }
    for (name, o) in extra {
        if let Some(id) = o.get("id") {
            let item = serde_json::json!({ "name": name, "id": id });
            numbered.push((
                id.as_u64().unwrap(),
                entry(section, &item, o, &by_name, extra),
            ));
        }
    }
    numbered.sort_by_key(|&(id, _)| id);
    numbered
        .into_iter()
        .map(|(_, e)| e)
        .chain(extended)
        .collect()
}

fn entry(
    section: Section,
    item: &Value,
    o: &Value,
    by_name: &HashMap<&str, &Value>,
    extra: &Map<String, Value>,
) -> Entry {
    let ddnet = str(item, "name");
    let id = match (item.get("id"), item.get("ex")) {
        (Some(id), _) if section == Section::SystemMessages => format!("(sys {id})"),
        (Some(id), _) => id.to_string(),
        (None, Some(ex)) => {
            let keyword = if section == Section::SystemMessages {
                "sys_ex"
            } else {
                "ex"
            };
            let uuid = str(item, "uuid").replace('-', "");
            let uuid = format!(
                "{}_{}_{}_{}_{}",
                &uuid[..8],
                &uuid[8..12],
                &uuid[12..16],
                &uuid[16..20],
                &uuid[20..]
            );
            format!("({keyword} {ex} 0x{uuid})")
        }
        (None, None) => panic!("{ddnet}: neither id nor ex"),
    };
    let fields = match o.get("layout") {
        Some(layout) => layout
            .as_array()
            .unwrap()
            .iter()
            .map(|f| Field {
                doc: str(f, "doc").to_owned(),
                name: str(f, "name").to_owned(),
                kind: str(f, "kind").to_owned(),
            })
            .collect(),
        None => members(section, item, by_name, extra),
    };
    Entry {
        doc: str(o, "doc").to_owned(),
        rust: o
            .get("rust")
            .and_then(Value::as_str)
            .map_or_else(|| rust_name(ddnet), str::to_owned),
        id,
        name: o
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(ddnet)
            .to_owned(),
        fields,
    }
}

/// The fields of a datasrc entry, its base's first.
fn members(
    section: Section,
    item: &Value,
    by_name: &HashMap<&str, &Value>,
    extra: &Map<String, Value>,
) -> Vec<Field> {
    let ddnet = str(item, "name");
    let mut fields = match item.get("base") {
        Some(base) => members(section, by_name[base.as_str().unwrap()], by_name, extra),
        None => Vec::new(),
    };
    let docs = extra[ddnet].get("fields").and_then(Value::as_object);
    let members = item
        .get("members")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for member in members {
        let m_name = str(member, "name");
        let o = docs
            .and_then(|d| d.get(m_name))
            .unwrap_or_else(|| panic!("overlay: no doc for {ddnet}.{m_name}"));
        let (doc, rust, kind) = match o {
            Value::String(doc) => (doc.as_str(), None, None),
            o => (
                str(o, "doc"),
                o.get("rust").and_then(Value::as_str),
                o.get("kind").and_then(Value::as_str),
            ),
        };
        let kind = match kind {
            Some(kind) => {
                if section == Section::Objects {
                    assert_eq!(
                        object_ints(kind),
                        member_ints(member),
                        "{ddnet}.{m_name}: {kind}"
                    );
                }
                kind.to_owned()
            }
            None => field_kind(member, section != Section::Objects).unwrap_or_else(|| {
                panic!("{ddnet}.{m_name}: no kind for it, the overlay must give one")
            }),
        };
        fields.push(Field {
            doc: doc.to_owned(),
            name: rust.map_or_else(|| field_name(m_name), str::to_owned),
            kind,
        });
    }
    if let Some(docs) = docs {
        for key in docs.keys() {
            assert!(
                members.iter().any(|m| str(m, "name") == key),
                "overlay: {ddnet} has no member {key}"
            );
        }
    }
    fields
}

fn str<'a>(value: &'a Value, key: &str) -> &'a str {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no {key:?} in {value}"))
}

const INTS: [&str; 7] = [
    "NetIntAny",
    "NetIntRange",
    "NetBool",
    "NetTick",
    "NetTickStrict",
    "NetEnum",
    "NetFlag",
];
const STRINGS: [&str; 3] = ["NetString", "NetStringStrict", "NetStringHalfStrict"];

/// The kind of a datasrc member, where the rules give one.
fn field_kind(member: &Value, message: bool) -> Option<String> {
    let ty = str(member, "type");
    let opt = if member.get("default").is_some() {
        "opt "
    } else {
        ""
    };
    let size = || member["size"].as_u64().unwrap();
    if INTS.contains(&ty) {
        return Some(if opt.is_empty() {
            "int".into()
        } else {
            "(opt int)".into()
        });
    }
    if message && STRINGS.contains(&ty) {
        return Some("str".into());
    }
    match (ty, member.get("inner").map(|i| str(i, "type"))) {
        ("NetTwIntString", _) => Some(format!("(text {})", size())),
        ("NetArray", Some(inner)) if INTS.contains(&inner) => {
            Some(format!("({opt}ints {})", size()))
        }
        ("NetArray", Some(inner)) if message && STRINGS.contains(&inner) => {
            Some(format!("(strs {})", size()))
        }
        _ => None,
    }
}

/// Ints a datasrc object member takes.
fn member_ints(member: &Value) -> u64 {
    match member.get("size") {
        Some(size) => size.as_u64().unwrap() * member_ints(&member["inner"]),
        None => 1,
    }
}

/// Ints an object field kind takes: `(texts 6 6)` 36, `int` 1.
fn object_ints(kind: &str) -> u64 {
    kind.trim_matches(['(', ')'])
        .split(' ')
        .filter_map(|w| w.parse::<u64>().ok())
        .product()
}

/// `Sv_DDRaceTime` → `SvDdraceTime`.
fn rust_name(ddnet: &str) -> String {
    ddnet
        .replace('_', "")
        .replace("DDNet", "Ddnet")
        .replace("DDRace", "Ddrace")
}

/// `m_aSkinPartNames` → `skin_part_names`, `m_HookDx` → `hook_dx`.
fn field_name(member: &str) -> String {
    let name = member.strip_prefix("m_").unwrap_or(member);
    // The type prefix: the lower-case letters before the first capital.
    let name = match name.find(|c: char| c.is_ascii_uppercase()) {
        Some(at) if name[..at].chars().all(|c| c.is_ascii_lowercase()) => &name[at..],
        _ => name,
    };
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if c.is_ascii_uppercase()
            && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
        {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
        previous = Some(c);
    }
    out
}
