//! The header: the 16-byte file UUID, then a JSON object terminated by a NUL.
//!
//! [`Header`] is the typed object, read with serde. [`Header::write_json`] writes it the way
//! DDNet's `CTeeHistorian::WriteHeader` does: no whitespace, keys in DDNet's order, strings
//! through DDNet's `EscapeJson`. For a header that DDNet (of any version so far) wrote, that
//! reproduces the stored bytes; the readers keep the stored bytes anyway, and a rewrite uses
//! them, so that even a header no writer of ours would produce comes back unchanged.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::HeaderError;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// A teehistorian header as DDNet writes it.
///
/// Every value DDNet writes is a JSON string, except `config` and `tuning` (objects of
/// string values, kept in file order) and `uuids` (an array of strings). A key a given DDNet
/// version did not write is `None`; the typed writer leaves it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `"teehistorian@ddnet.tw"` ([`COMMENT`](super::format::COMMENT)).
    pub comment: Option<String>,
    /// The format version: `"1"` (no EX messages) or `"2"`.
    pub version: String,
    /// The minor version (`"22"` in DDNet 20.1); DDNet 12.6.1 and older wrote none.
    pub version_minor: Option<String>,
    /// The game's UUID, hyphenated; the file is named after it.
    pub game_uuid: Option<String>,
    /// The previous game's UUID, when the server had one.
    pub prev_game_uuid: Option<String>,
    /// `GAME_VERSION`, plus `" (hash)"` when built from git.
    pub server_version: Option<String>,
    /// Start time, `"%Y-%m-%dT%H:%M:%S%z"` in current DDNet (11.0.1 wrote
    /// `"%Y-%m-%d %H:%M:%S %z"`).
    pub start_time: Option<String>,
    /// `sv_name`.
    pub server_name: Option<String>,
    /// The server port, as a decimal string.
    pub server_port: Option<String>,
    /// The game type.
    pub game_type: Option<String>,
    /// The map name.
    pub map_name: Option<String>,
    /// The map file size, as a decimal string.
    pub map_size: Option<String>,
    /// The map's SHA-256, 64 lowercase hex digits (DDNet 12 and later).
    pub map_sha256: Option<String>,
    /// The map's CRC-32, 8 lowercase hex digits.
    pub map_crc: Option<String>,
    /// How the server's PRNG was seeded, e.g. `"pcg-xsh-rr:%08x%08x:%08x%08x"`.
    pub prng_description: Option<String>,
    /// Server config variables that differ from their defaults, in file order.
    pub config: Option<Vec<(String, String)>>,
    /// Tuning parameters that differ from their defaults (int value, float × 100), in order.
    pub tuning: Option<Vec<(String, String)>>,
    /// Every UUID name the server registered, in registration order.
    pub uuids: Option<Vec<String>>,
    /// Keys this type does not know, and known string keys holding another kind of value
    /// (such as a `null`), in file order.
    ///
    /// The writer puts a known key at DDNet's place for it and unknown keys after all known
    /// ones. Objects nested inside these values come back with their keys sorted.
    pub extra: Vec<(String, Value)>,
}

/// The keys DDNet writes, in the order it writes them.
pub const DDNET_KEY_ORDER: [&str; 18] = [
    "comment",
    "version",
    "version_minor",
    "game_uuid",
    "prev_game_uuid",
    "server_version",
    "start_time",
    "server_name",
    "server_port",
    "game_type",
    "map_name",
    "map_size",
    "map_sha256",
    "map_crc",
    "prng_description",
    "config",
    "tuning",
    "uuids",
];

impl Header {
    /// A header with only `version` set: fill in the rest with struct update syntax, e.g.
    /// `Header { game_uuid: Some(uuid), ..Header::new("2") }`.
    pub fn new(version: &str) -> Header {
        Header {
            comment: None,
            version: version.to_owned(),
            version_minor: None,
            game_uuid: None,
            prev_game_uuid: None,
            server_version: None,
            start_time: None,
            server_name: None,
            server_port: None,
            game_type: None,
            map_name: None,
            map_size: None,
            map_sha256: None,
            map_crc: None,
            prng_description: None,
            config: None,
            tuning: None,
            uuids: None,
            extra: Vec::new(),
        }
    }

    /// Parses the JSON text of a header (without the file UUID and the NUL).
    ///
    /// Text that is not UTF-8 is read with each bad sequence replaced by U+FFFD: DDNet cuts
    /// long values to its buffers byte-wise, which can split a character (the stored bytes,
    /// kept by the readers, are unaffected).
    pub fn from_json(json: &[u8]) -> Result<Header, HeaderError> {
        match std::str::from_utf8(json) {
            Ok(text) => Ok(serde_json::from_str(text)?),
            Err(_) => Ok(serde_json::from_str(&String::from_utf8_lossy(json))?),
        }
    }

    /// The header as DDNet writes it (without the file UUID and the NUL).
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4096);
        self.write_json(&mut out);
        out
    }

    /// Appends the JSON text as DDNet writes it: keys in [`DDNET_KEY_ORDER`], absent ones
    /// left out, no whitespace, strings through `escape_json_capped` with DDNet's buffer
    /// sizes: at most 127 escaped bytes for the comment, server version, start time,
    /// server name, game type, map name and PRNG description, 255 for the map SHA-256,
    /// 1023 for config and tuning keys, config values and UUID names. Other values (the
    /// ones DDNet formats as numbers or UUIDs) and unknown keys are written whole.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let mut first = true;
        let mut key = |out: &mut Vec<u8>, name: &str| {
            out.push(if first { b'{' } else { b',' });
            first = false;
            write_string(out, name);
            out.push(b':');
        };
        for name in DDNET_KEY_ORDER {
            match self.typed(name) {
                Typed::Str(Some(s)) => {
                    key(out, name);
                    write_string_capped(out, s, value_cap(name));
                }
                Typed::Pairs(Some(pairs)) => {
                    key(out, name);
                    out.push(b'{');
                    for (i, (k, v)) in pairs.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        write_string_capped(out, k, LONG_CAP);
                        out.push(b':');
                        write_string_capped(out, v, LONG_CAP);
                    }
                    out.push(b'}');
                }
                Typed::List(Some(items)) => {
                    key(out, name);
                    out.push(b'[');
                    for (i, s) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        write_string_capped(out, s, LONG_CAP);
                    }
                    out.push(b']');
                }
                Typed::Str(None) | Typed::Pairs(None) | Typed::List(None) => {}
            }
            for (_, value) in self.extra.iter().filter(|(k, _)| k == name) {
                key(out, name);
                write_value(out, value);
            }
        }
        for (name, value) in &self.extra {
            if !DDNET_KEY_ORDER.contains(&name.as_str()) {
                key(out, name);
                write_value(out, value);
            }
        }
        if first {
            out.push(b'{');
        }
        out.push(b'}');
    }

    fn typed(&self, name: &str) -> Typed<'_> {
        fn s(v: &Option<String>) -> Typed<'_> {
            Typed::Str(v.as_deref())
        }
        match name {
            "comment" => s(&self.comment),
            "version" => Typed::Str(Some(&self.version)),
            "version_minor" => s(&self.version_minor),
            "game_uuid" => s(&self.game_uuid),
            "prev_game_uuid" => s(&self.prev_game_uuid),
            "server_version" => s(&self.server_version),
            "start_time" => s(&self.start_time),
            "server_name" => s(&self.server_name),
            "server_port" => s(&self.server_port),
            "game_type" => s(&self.game_type),
            "map_name" => s(&self.map_name),
            "map_size" => s(&self.map_size),
            "map_sha256" => s(&self.map_sha256),
            "map_crc" => s(&self.map_crc),
            "prng_description" => s(&self.prng_description),
            "config" => Typed::Pairs(self.config.as_deref()),
            "tuning" => Typed::Pairs(self.tuning.as_deref()),
            "uuids" => Typed::List(self.uuids.as_deref()),
            _ => Typed::Str(None),
        }
    }

    fn string_slot(&mut self, name: &str) -> Option<&mut Option<String>> {
        Some(match name {
            "comment" => &mut self.comment,
            "version_minor" => &mut self.version_minor,
            "game_uuid" => &mut self.game_uuid,
            "prev_game_uuid" => &mut self.prev_game_uuid,
            "server_version" => &mut self.server_version,
            "start_time" => &mut self.start_time,
            "server_name" => &mut self.server_name,
            "server_port" => &mut self.server_port,
            "game_type" => &mut self.game_type,
            "map_name" => &mut self.map_name,
            "map_size" => &mut self.map_size,
            "map_sha256" => &mut self.map_sha256,
            "map_crc" => &mut self.map_crc,
            "prng_description" => &mut self.prng_description,
            _ => return None,
        })
    }
}

enum Typed<'a> {
    Str(Option<&'a str>),
    Pairs(Option<&'a [(String, String)]>),
    List(Option<&'a [String]>),
}

/// DDNet's buffer for config and tuning keys, config values and UUID names (1024 bytes
/// with the NUL).
const LONG_CAP: usize = 1023;

/// How many escaped bytes DDNet's header buffers leave for the value of `key`.
fn value_cap(key: &str) -> usize {
    match key {
        "comment" | "server_version" | "start_time" | "server_name" | "game_type" | "map_name"
        | "prng_description" => 127,
        "map_sha256" => 255,
        // Formatted with `%s`/`%d` from UUIDs and numbers, not through a buffer.
        _ => usize::MAX,
    }
}

/// [`escape_json`] into a buffer of `cap` bytes, cut as DDNet's `EscapeJson` cuts: an
/// escape that does not fit whole ends the value, a plain byte goes in while there is room
/// (so a multi-byte character can be split).
pub(crate) fn escape_json_capped(s: &str, cap: usize, out: &mut Vec<u8>) {
    if s.len() <= cap / 6 {
        // Fits even if every byte needed the longest escape.
        return escape_json(s, out);
    }
    let mut room = cap;
    for &b in s.as_bytes() {
        let short = json_escape(b);
        let need = match short {
            Some(0) => 6,
            Some(_) => 2,
            None => 1,
        };
        if need > room {
            break;
        }
        room -= need;
        match short {
            None => out.push(b),
            Some(short) => push_escape(b, short, out),
        }
    }
}

/// How DDNet's `EscapeJson` writes byte `b`: `None` as is, `Some(c)` as backslash and `c`,
/// `Some(0)` as `\u00xx`.
fn json_escape(b: u8) -> Option<u8> {
    match b {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        0x08 => Some(b'b'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        0x00..=0x1f => Some(0),
        _ => None,
    }
}

/// Appends the escape [`json_escape`] chose for `b`.
fn push_escape(b: u8, short: u8, out: &mut Vec<u8>) {
    if short != 0 {
        out.extend_from_slice(&[b'\\', short]);
    } else {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        out.extend_from_slice(b"\\u00");
        // Both halves of a byte are below 16.
        let digit = |half: u8| HEX.get(usize::from(half)).copied().unwrap_or_default();
        out.push(digit(b >> 4));
        out.push(digit(b & 0xf));
    }
}

/// Appends `s` escaped as DDNet's `EscapeJson` does: `"` `\` backspace, newline, carriage
/// return and tab as backslash escapes, other bytes below 0x20 as `\u00xx` (lowercase hex),
/// everything else — `/`, DEL, non-ASCII — as is.
pub(crate) fn escape_json(s: &str, out: &mut Vec<u8>) {
    // Escapes are all ASCII and UTF-8 continuation bytes are >= 0x80, so bytewise is exact;
    // runs of plain bytes are copied at once.
    let bytes = s.as_bytes();
    let mut plain = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(short) = json_escape(b) {
            out.extend_from_slice(bytes.get(plain..i).unwrap_or_default());
            plain = i + 1;
            push_escape(b, short, out);
        }
    }
    out.extend_from_slice(bytes.get(plain..).unwrap_or_default());
}

fn write_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    escape_json(s, out);
    out.push(b'"');
}

/// [`write_string`] with the value cut to `cap` escaped bytes as DDNet cuts it.
fn write_string_capped(out: &mut Vec<u8>, s: &str, cap: usize) {
    out.push(b'"');
    escape_json_capped(s, cap, out);
    out.push(b'"');
}

/// Writes any JSON value in DDNet's style (strings escaped as above, no whitespace).
fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(out, k);
                out.push(b':');
                write_value(out, v);
            }
            out.push(b'}');
        }
        // null, booleans and numbers print the same in any writer.
        scalar => out.extend_from_slice(scalar.to_string().as_bytes()),
    }
}

impl<'de> Deserialize<'de> for Header {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(HeaderVisitor)
    }
}

struct HeaderVisitor;

impl<'de> Visitor<'de> for HeaderVisitor {
    type Value = Header;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Header, A::Error> {
        let mut header = Header::new("");
        let mut version = None;
        let mut seen: Vec<&'static str> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            // A known key twice would be ambiguous (which one does a reader believe?).
            if let Some(&known) = DDNET_KEY_ORDER.iter().find(|&&k| k == key) {
                if seen.contains(&known) {
                    return Err(de::Error::duplicate_field(known));
                }
                seen.push(known);
            }
            match key.as_str() {
                "version" => version = Some(map.next_value::<String>()?),
                "config" => header.config = Some(map.next_value::<StringPairs>()?.0),
                "tuning" => header.tuning = Some(map.next_value::<StringPairs>()?.0),
                "uuids" => header.uuids = Some(map.next_value::<Vec<String>>()?),
                _ => {
                    let value = map.next_value::<Value>()?;
                    match (header.string_slot(&key), value) {
                        (Some(slot), Value::String(s)) => *slot = Some(s),
                        (_, value) => header.extra.push((key, value)),
                    }
                }
            }
        }
        header.version = version.ok_or_else(|| de::Error::missing_field("version"))?;
        Ok(header)
    }
}

/// An object of string values, kept in order (serde_json's own map would sort it).
struct StringPairs(Vec<(String, String)>);

impl<'de> Deserialize<'de> for StringPairs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PairsVisitor;
        impl<'de> Visitor<'de> for PairsVisitor {
            type Value = StringPairs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StringPairs, A::Error> {
                let mut pairs = Vec::new();
                while let Some(entry) = map.next_entry::<String, String>()? {
                    pairs.push(entry);
                }
                Ok(StringPairs(pairs))
            }
        }
        deserializer.deserialize_map(PairsVisitor)
    }
}

/// The header as a JSON object with the keys in the order [`Header::write_json`] uses, for
/// front ends that print it (serde's own string escaping applies).
#[cfg(feature = "serde")]
impl serde::Serialize for Header {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;

        /// `config` and `tuning`: an object in stored order.
        struct Pairs<'a>(&'a [(String, String)]);
        impl serde::Serialize for Pairs<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }

        let mut map = serializer.serialize_map(None)?;
        for name in DDNET_KEY_ORDER {
            match self.typed(name) {
                Typed::Str(Some(s)) => map.serialize_entry(name, s)?,
                Typed::Pairs(Some(pairs)) => map.serialize_entry(name, &Pairs(pairs))?,
                Typed::List(Some(items)) => map.serialize_entry(name, items)?,
                Typed::Str(None) | Typed::Pairs(None) | Typed::List(None) => {}
            }
            for (_, value) in self.extra.iter().filter(|(k, _)| k == name) {
                map.serialize_entry(name, value)?;
            }
        }
        for (name, value) in &self.extra {
            if !DDNET_KEY_ORDER.contains(&name.as_str()) {
                map.serialize_entry(name, value)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_cut_to_ddnets_buffers() {
        let capped = |s: &str, cap| {
            let mut out = Vec::new();
            escape_json_capped(s, cap, &mut out);
            out
        };
        let a126 = "a".repeat(126);
        // Plain bytes fill the buffer; an escape that does not fit whole ends the value.
        assert_eq!(capped(&"x".repeat(200), 127), b"x".repeat(127));
        assert_eq!(capped(&format!("{a126}\\"), 127), a126.as_bytes());
        assert_eq!(capped(&format!("{a126}\x01z"), 127), a126.as_bytes());
        assert_eq!(
            capped(&format!("{}\\", "a".repeat(125)), 127),
            format!("{}\\\\", "a".repeat(125)).as_bytes()
        );
        // A character is cut byte-wise, as DDNet does.
        let cut = capped(&format!("{a126}é"), 127);
        assert_eq!(cut.len(), 127);
        assert_eq!(cut[126], 0xC3);
        // Which fields are cut where.
        let header = Header {
            server_name: Some("n".repeat(300)),
            map_sha256: Some("f".repeat(300)),
            server_port: Some("9".repeat(300)),
            config: Some(vec![("sv_motd".into(), "m".repeat(2000))]),
            ..Header::new("2")
        };
        let json = String::from_utf8(header.to_json()).unwrap();
        assert!(json.contains(&format!("\"server_name\":\"{}\"", "n".repeat(127))));
        assert!(json.contains(&format!("\"map_sha256\":\"{}\"", "f".repeat(255))));
        assert!(json.contains(&format!("\"server_port\":\"{}\"", "9".repeat(300))));
        assert!(json.contains(&format!("\"sv_motd\":\"{}\"", "m".repeat(1023))));
        // A header whose value was cut inside a character still reads.
        let split = Header {
            map_name: Some(format!("{a126}é")),
            ..Header::new("2")
        };
        let back = Header::from_json(&split.to_json()).unwrap();
        assert_eq!(back.map_name.unwrap(), format!("{a126}\u{FFFD}"));
    }

    #[test]
    fn escaping_matches_ddnet() {
        let mut out = Vec::new();
        escape_json("a\"b\\c\x08\n\r\t\x0c\x01\x1f/é\x7f", &mut out);
        assert_eq!(
            out,
            "a\\\"b\\\\c\\b\\n\\r\\t\\u000c\\u0001\\u001f/é\x7f".as_bytes()
        );
    }

    #[test]
    fn order_and_unknown_keys() {
        let json = br#"{"version":"2","comment":"x","zz":{"b":1,"a":[true,null]},"config":{"b":"1","a":"2"},"prev_game_uuid":null}"#;
        let h = Header::from_json(json).unwrap();
        assert_eq!(h.version, "2");
        assert_eq!(
            h.config,
            Some(vec![("b".into(), "1".into()), ("a".into(), "2".into())])
        );
        assert_eq!(h.prev_game_uuid, None);
        assert_eq!(h.extra.len(), 2);
        // DDNet order; the null stays at prev_game_uuid's place, the unknown key goes last
        // (its nested object sorted).
        assert_eq!(
            h.to_json(),
            br#"{"comment":"x","version":"2","prev_game_uuid":null,"config":{"b":"1","a":"2"},"zz":{"a":[true,null],"b":1}}"#
        );
        // Read back, the null comes first among the extras (its place is earlier): the
        // text is a fixed point, the extras' order is not.
        let again = Header::from_json(&h.to_json()).unwrap();
        assert_eq!(again.to_json(), h.to_json());
    }

    #[test]
    fn refusals() {
        assert!(Header::from_json(b"{}").is_err());
        assert!(Header::from_json(b"[]").is_err());
        assert!(Header::from_json(br#"{"version":2}"#).is_err());
        assert!(Header::from_json(br#"{"version":"2","version":"2"}"#).is_err());
        assert!(Header::from_json(br#"{"version":"2","config":{"a":1}}"#).is_err());
        assert!(Header::from_json(b"{\"version\":\"2\"} x").is_err());
        assert_eq!(Header::new("1").to_json(), br#"{"version":"1"}"#);
    }

    #[test]
    #[cfg(feature = "serde")]
    fn serde_serialization_keeps_the_order() {
        let json = br#"{"comment":"c","version":"2","map_name":"dm1","config":{"z":"1","a":"2"},"uuids":["u"],"x":null}"#;
        let h = Header::from_json(json).unwrap();
        assert_eq!(serde_json::to_vec(&h).unwrap(), json);
        assert_eq!(h.to_json(), json);
    }
}
