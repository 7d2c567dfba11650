//! Names from files shown as text, and used as file names, safely.
//!
//! Entry names (from a name list), CollisionSet record names and magics come
//! from files sylcol did not write. A control character in one (ESC, CR,
//! BEL, a bidirectional override) would act on a terminal instead of
//! showing. [`escape`] writes each as visible text (`\x1b`, `\u{202e}`) for
//! human-readable output; JSON keeps names intact (its encoder escapes
//! them). [`visible_file_name`] maps them to `%1B` in file names, so every
//! entry stays extractable under a name that shows what it held.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` acts on a terminal rather than shows: C0 and C1 controls,
/// DEL, and the bidirectional marks, embeddings, overrides and isolates.
pub fn is_hidden_control(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` for human-readable output: each hidden control written `\x1b`
/// (below U+0100) or `\u{202e}`. A backslash stays as it is (archive names
/// use it as the folder separator), so the escape is for reading, not a
/// reversible encoding.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hidden_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_hidden_control(c) {
            out.push(c);
        } else if u32::from(c) < 0x100 {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
    Cow::Owned(out)
}

/// Lines of human-readable text (a message, a table) with [`escape`]
/// applied between their line breaks, which stay.
pub fn escape_lines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_hidden_control(c)) {
        return Cow::Borrowed(s);
    }
    let lines: Vec<Cow<str>> = s.split('\n').map(escape).collect();
    Cow::Owned(lines.join("\n"))
}

/// One file-name component with each hidden control replaced by `%XX`
/// per UTF-8 byte (`a\x1bb` -> `a%1Bb`). Other characters, `%` included,
/// stay; the mapping is visible, not reversible.
pub fn visible_file_name(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hidden_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_hidden_control(c) {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
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
    fn controls_become_visible() {
        assert_eq!(escape("plain\\name.bin"), "plain\\name.bin");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(escape("a\x1b[31mb\rc\x07"), "a\\x1b[31mb\\x0dc\\x07");
        assert_eq!(escape("x\u{7f}\u{85}y"), "x\\x7f\\x85y");
        assert_eq!(escape("evil\u{202e}gpj.exe"), "evil\\u{202e}gpj.exe");
        assert_eq!(escape("é ü 日本"), "é ü 日本");
        assert_eq!(escape_lines("a\x1b\nb\tc\n"), "a\\x1b\nb\\x09c\n");
        assert_eq!(escape_lines("one\ntwo"), "one\ntwo");
    }

    #[test]
    fn file_names_map_controls_to_percent_codes() {
        assert_eq!(visible_file_name("a\x1bb\r.bin"), "a%1Bb%0D.bin");
        assert_eq!(visible_file_name("r\u{202e}t"), "r%E2%80%AEt");
        assert_eq!(visible_file_name("100%.bin"), "100%.bin");
    }
}
