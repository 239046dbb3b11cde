//! Text from a recording, shown to a person: escaped so that it cannot drive a terminal.
//!
//! Player names, clans, chat, map and server names come from whoever wrote the file. Put
//! on a terminal as they are, an escape sequence among them can retitle the window, change
//! the colours of everything after it, write the clipboard (OSC 52) or make the terminal
//! answer into the input; a bidirectional override (U+202E) makes a line read as something
//! else. [`for_terminal`] is the one function every text meant for a person goes through
//! (the tool's text output and its messages): each such character becomes a visible
//! escape, `\x1b` or `\u{202e}`. JSON keeps the exact text instead: serde escapes C0
//! controls, and [`for_json`] escapes C1 controls and the line separators U+2028/U+2029
//! too. Files written (recordings, pages, tables) keep their bytes.
//!
//! This module knows no format; it works on text.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` could drive a terminal or reorder what it shows: C0 controls but the line
/// feed and tab, DEL, C1 controls, and the bidirectional marks, embeddings, overrides and
/// isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
pub fn is_unsafe_for_terminal(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character that could drive a terminal ([`is_unsafe_for_terminal`])
/// written as a visible escape: `\x1b` for the ASCII ones (C0 and DEL), `\u{9b}` for the
/// others. Lines (`\n`) and tabs stay. A backslash stays as it is, so an escape that was in
/// the text itself reads the same as one made here: the point is that nothing reaches the
/// terminal raw, not that the text can be read back. Borrowed when nothing needs escaping.
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe_for_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !is_unsafe_for_terminal(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

/// Serialized JSON with DEL, C1 controls, the bidirectional controls of
/// [`is_unsafe_for_terminal`] and U+2028/U+2029 written as `\uXXXX` escapes, which serde
/// leaves as they are (it escapes C0 itself): the same JSON value, and no character on a
/// terminal or in a JavaScript source that acts as a control or a line end. Outside
/// strings JSON holds only ASCII, so only string contents change; [`for_terminal`] finds
/// nothing left to escape in the result.
pub fn for_json(json: &str) -> Cow<'_, str> {
    let escaped = |c: char| is_unsafe_for_terminal(c) || matches!(c, '\u{2028}' | '\u{2029}');
    if !json.chars().any(escaped) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if escaped(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_become_visible_escapes() {
        let attack = "\u{1b}]0;PWNED\u{7}\u{1b}[31mred\u{9b}2J\r\u{202e}txt.exe\u{7f}";
        let shown = for_terminal(attack);
        assert_eq!(
            shown,
            "\\x1b]0;PWNED\\x07\\x1b[31mred\\u{9b}2J\\x0d\\u{202e}txt.exe\\x7f"
        );
        assert!(!shown.chars().any(is_unsafe_for_terminal));
        // Lines, tabs and ordinary text (any script) stay as they are, borrowed.
        let plain = "name\tclan\nНикита 日本 ✓";
        assert!(matches!(for_terminal(plain), Cow::Borrowed(_)));
    }

    #[test]
    fn json_keeps_its_value_without_c1_or_line_separators() {
        let text = "a\u{85}b\u{9b}c\u{2028}d\u{2029}e\u{1b}f\u{7f}g\u{202e}";
        let json = serde_json::to_string(text).unwrap();
        let safe = for_json(&json);
        assert!(safe.is_ascii(), "{safe}");
        assert_eq!(for_terminal(&safe), safe);
        let back: String = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, text);
    }
}
