//! The text form of a string table: what `sylcol export` writes and `sylcol
//! build idxd` reads back, byte-identical (grammar in `docs/formats/idxd.md`).
//!
//! ```text
//! format IXUD
//! pool-size units
//! string 0 "mapmesh_box_500km.col"
//! record 2CF7EB47 s0 00000000 00000001
//! pair 0000ABCD s0 -
//! ```

use std::fmt::Write as _;

use super::pool::units;
use super::{Flavour, Lookup, NO_STRING, Pair, PoolSizeUnit, Record, StringTable};

/// A line of the text form that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TextError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// Writes `table` in the text form.
pub fn to_text(table: &StringTable) -> String {
    let pool = table.pool();
    let mut out = format!(
        "# sylcol string table, text form (docs/formats/idxd.md): {} records, {} pairs, {} strings\nformat {}\n",
        table.records.len(),
        table.pairs.len(),
        pool.strings.len(),
        table.flavour.name()
    );
    if table.flavour == Flavour::Ixud {
        let _ = writeln!(out, "pool-size {}", table.pool_size_unit.as_str());
    }
    for (i, s) in pool.strings.iter().enumerate() {
        let _ = writeln!(
            out,
            "string {i} {}",
            quote(s.bytes(pool.bytes), table.flavour)
        );
    }
    if !pool.tail().is_empty() {
        let _ = writeln!(out, "tail {}", quote(pool.tail(), table.flavour));
    }
    let reference = |offset: u32| match pool.lookup(offset) {
        Lookup::None => "-".to_string(),
        Lookup::String(i) => format!("s{i}"),
        Lookup::NotAStart | Lookup::Outside => format!("={offset:#x}"),
    };
    for r in &table.records {
        let _ = writeln!(
            out,
            "record {:08X} {} {:08X} {:08X}",
            r.hash,
            reference(r.string),
            r.p1,
            r.p2
        );
    }
    for p in &table.pairs {
        let _ = writeln!(
            out,
            "pair {:08X} {} {}",
            p.hash,
            reference(p.first),
            reference(p.second)
        );
    }
    if !table.trailer.is_empty() {
        let hex: String = table.trailer.iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(out, "trailer {hex}");
    }
    out
}

/// A reference as written: a string index, -1, or a raw offset.
#[derive(Debug, Clone, Copy)]
enum Ref {
    String(usize),
    Raw(u32),
}

/// What the lines say, before the pool is laid out.
struct Parsed {
    flavour: Option<Flavour>,
    unit: PoolSizeUnit,
    strings: Vec<Vec<u8>>,
    tail: Vec<u8>,
    records: Vec<(u32, Ref, u32, u32, usize)>,
    pairs: Vec<(u32, Ref, Ref, usize)>,
    trailer: Vec<u8>,
}

/// Reads the text form back into a table (the pool laid out string by
/// string as listed, each followed by its terminator, then the tail).
pub fn from_text(text: &str) -> Result<StringTable, TextError> {
    let mut p = Parsed {
        flavour: None,
        unit: PoolSizeUnit::Bytes,
        strings: Vec::new(),
        tail: Vec::new(),
        records: Vec::new(),
        pairs: Vec::new(),
        trailer: Vec::new(),
    };
    for (n, line) in text.lines().enumerate() {
        parse_line(&mut p, line, n + 1).map_err(|message| TextError {
            line: n + 1,
            message,
        })?;
    }
    let flavour = p.flavour.ok_or_else(|| TextError {
        line: 1,
        message: "no `format IDXD` or `format IXUD` line".into(),
    })?;
    let unit = flavour.unit();
    let mut pool = Vec::new();
    let mut offsets = Vec::with_capacity(p.strings.len());
    for s in &p.strings {
        offsets.push((pool.len() / unit) as u32);
        pool.extend_from_slice(s);
        pool.extend(std::iter::repeat_n(0, unit));
    }
    pool.extend_from_slice(&p.tail);
    let resolve = |r: Ref, line: usize| match r {
        Ref::Raw(v) => Ok(v),
        Ref::String(i) => offsets.get(i).copied().ok_or_else(|| TextError {
            line,
            message: format!("s{i}: there are {} strings", offsets.len()),
        }),
    };
    let mut table = StringTable::new(flavour);
    table.pool_size_unit = p.unit;
    for &(hash, r, p1, p2, line) in &p.records {
        let string = resolve(r, line)?;
        table.records.push(Record {
            hash,
            string,
            p1,
            p2,
        });
    }
    for &(hash, a, b, line) in &p.pairs {
        let (first, second) = (resolve(a, line)?, resolve(b, line)?);
        table.pairs.push(Pair {
            hash,
            first,
            second,
        });
    }
    table.pool = pool;
    table.trailer = p.trailer;
    Ok(table)
}

fn parse_line(p: &mut Parsed, line: &str, number: usize) -> Result<(), String> {
    let tokens = tokenize(line)?;
    let Some((keyword, args)) = tokens.split_first() else {
        return Ok(());
    };
    let flavour = || {
        p.flavour
            .ok_or("the `format` line must come first".to_string())
    };
    let want = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!(
                "`{keyword}` takes {n} values, found {}",
                args.len()
            ))
        }
    };
    match keyword.as_str() {
        "format" => {
            want(1)?;
            if p.flavour.is_some() {
                return Err("a second `format` line".into());
            }
            p.flavour =
                Some(Flavour::from_magic(args[0].as_bytes()).ok_or("format is IDXD or IXUD")?);
        }
        "pool-size" => {
            want(1)?;
            p.unit = match (flavour()?, args[0].as_str()) {
                (_, "bytes") => PoolSizeUnit::Bytes,
                (Flavour::Ixud, "units") => PoolSizeUnit::Units,
                _ => return Err("pool-size is `bytes` (or `units` for IXUD)".into()),
            };
        }
        "string" => {
            want(2)?;
            let index: usize = args[0].parse().map_err(|_| "a string number".to_string())?;
            if index != p.strings.len() {
                return Err(format!(
                    "string {index} where string {} comes next",
                    p.strings.len()
                ));
            }
            p.strings.push(unquote(&args[1], flavour()?)?);
        }
        "tail" => {
            want(1)?;
            p.tail = unquote(&args[0], flavour()?)?;
        }
        "record" => {
            want(4)?;
            flavour()?;
            let r = (
                hex(&args[0])?,
                reference(&args[1])?,
                hex(&args[2])?,
                hex(&args[3])?,
            );
            p.records.push((r.0, r.1, r.2, r.3, number));
        }
        "pair" => {
            want(3)?;
            flavour()?;
            p.pairs.push((
                hex(&args[0])?,
                reference(&args[1])?,
                reference(&args[2])?,
                number,
            ));
        }
        "trailer" => {
            want(1)?;
            p.trailer = hex_bytes(&args[0])?;
        }
        other => return Err(format!("unknown line `{other}`")),
    }
    Ok(())
}

/// Splits a line into words and quoted strings (quotes kept); `#` outside
/// quotes starts a comment.
fn tokenize(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '#' {
            break;
        } else if c == '"' {
            let mut word = String::from(chars.next().unwrap_or('"'));
            let mut closed = false;
            while let Some(c) = chars.next() {
                word.push(c);
                if c == '\\' {
                    word.extend(chars.next());
                } else if c == '"' {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return Err("a string without its closing quote".into());
            }
            out.push(word);
        } else {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '#' {
                    break;
                }
                word.push(c);
                chars.next();
            }
            out.push(word);
        }
    }
    Ok(out)
}

fn hex(s: &str) -> Result<u32, String> {
    u32::from_str_radix(s, 16).map_err(|_| format!("`{s}` is not a hex word"))
}

fn hex_bytes(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return Err("trailer bytes are pairs of hex digits".into());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("`{s}` is not hex")))
        .collect()
}

fn reference(s: &str) -> Result<Ref, String> {
    if s == "-" {
        return Ok(Ref::Raw(NO_STRING));
    }
    if let Some(raw) = s.strip_prefix('=') {
        let value = match raw.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16),
            None => raw.parse(),
        };
        return value
            .map(Ref::Raw)
            .map_err(|_| format!("`{s}` is not an offset"));
    }
    s.strip_prefix('s')
        .and_then(|n| n.parse().ok())
        .map(Ref::String)
        .ok_or_else(|| format!("`{s}` is not a reference (sN, - or =OFFSET)"))
}

/// A string's bytes (or a tail's) as a quoted literal.
pub fn quote(bytes: &[u8], flavour: Flavour) -> String {
    let mut out = String::from('"');
    match flavour {
        Flavour::Idxd => {
            for chunk in bytes.utf8_chunks() {
                chunk.valid().chars().for_each(|c| escape_char(c, &mut out));
                for b in chunk.invalid() {
                    let _ = write!(out, "\\x{b:02X}");
                }
            }
        }
        Flavour::Ixud => {
            for c in char::decode_utf16(units(bytes)) {
                match c {
                    Ok(c) => escape_char(c, &mut out),
                    Err(e) => {
                        let _ = write!(out, "\\u{{{:04X}}}", e.unpaired_surrogate());
                    }
                }
            }
        }
    }
    out.push('"');
    out
}

fn escape_char(c: char, out: &mut String) {
    match c {
        '\\' => out.push_str("\\\\"),
        '"' => out.push_str("\\\""),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() => {
            let _ = write!(out, "\\u{{{:02X}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// The bytes of a quoted literal in `flavour`'s encoding.
fn unquote(token: &str, flavour: Flavour) -> Result<Vec<u8>, String> {
    let inner = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .ok_or("a quoted string")?;
    let mut out = Vec::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        let unit = if c == '\\' {
            match chars.next() {
                Some('\\') => Unit::Char('\\'),
                Some('"') => Unit::Char('"'),
                Some('n') => Unit::Char('\n'),
                Some('r') => Unit::Char('\r'),
                Some('t') => Unit::Char('\t'),
                Some('x') => {
                    let h: String = chars.by_ref().take(2).collect();
                    Unit::Byte(u8::from_str_radix(&h, 16).map_err(|_| format!("\\x{h}"))?)
                }
                Some('u') => {
                    let rest = chars.as_str();
                    let body = rest
                        .strip_prefix('{')
                        .and_then(|r| r.split_once('}'))
                        .ok_or("\\u{HEX}")?;
                    let v = u32::from_str_radix(body.0, 16).map_err(|_| "\\u{HEX}".to_string())?;
                    chars = body.1.chars();
                    match char::from_u32(v) {
                        Some(c) => Unit::Char(c),
                        None if (0xD800..0xE000).contains(&v) => Unit::Surrogate(v as u16),
                        None => return Err(format!("\\u{{{v:X}}} is no character")),
                    }
                }
                other => return Err(format!("unknown escape \\{}", other.unwrap_or(' '))),
            }
        } else {
            Unit::Char(c)
        };
        if unit == Unit::Char('\0') {
            return Err("a string cannot hold its terminator (NUL)".into());
        }
        push_unit(&mut out, unit, flavour)?;
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Char(char),
    Byte(u8),
    Surrogate(u16),
}

fn push_unit(out: &mut Vec<u8>, unit: Unit, flavour: Flavour) -> Result<(), String> {
    match (flavour, unit) {
        (Flavour::Idxd, Unit::Char(c)) => {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes())
        }
        (Flavour::Idxd, Unit::Byte(b)) => out.push(b),
        (Flavour::Ixud, Unit::Char(c)) => {
            for u in c.encode_utf16(&mut [0; 2]) {
                out.extend_from_slice(&u.to_be_bytes());
            }
        }
        (Flavour::Ixud, Unit::Surrogate(u)) => out.extend_from_slice(&u.to_be_bytes()),
        (Flavour::Idxd, Unit::Surrogate(_)) => {
            return Err("a lone surrogate in an IDXD string".into());
        }
        (Flavour::Ixud, Unit::Byte(_)) => {
            return Err("\\xXX in an IXUD string (use \\u{DXXX})".into());
        }
    }
    Ok(())
}
