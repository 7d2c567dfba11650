//! `sylcol probe FILE [--json]`: analyse any POF0-relocated chunk (MCOL,
//! REGN, an unknown magic) — header words, relocated slots and their
//! targets, the distance histogram, runs of equal stride, and where each
//! header pointer lands. Works on chunks sylcol cannot decode.

use serde_json::{Value, json};
use sylcol_format::probe::{HeaderWord, Probe, probe};

use sylcol_format::text::escape_lines;

use crate::Outcome;
use crate::input::read_input;

/// Arguments of `sylcol probe`.
#[derive(clap::Args)]
pub struct Args {
    /// The input: a file, or `ARCHIVE.pak+INNER`.
    pub file: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// In text output, list at most this many runs and slots.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let input = read_input(&args.file)?;
    let p = probe(&input.bytes)
        .map_err(|e| anyhow::anyhow!("{}: not a POF0 chunk: {e}", input.name))?;
    if args.json {
        say!(
            "{}",
            serde_json::to_string_pretty(&to_json(&input.name, &p))?
        );
    } else {
        print!("{}", escape_lines(&to_text(&input.name, &p, args.limit)));
    }
    Ok(Outcome::Ok)
}

fn word_json(w: &HeaderWord) -> Value {
    json!({
        "offset": w.offset,
        "hex": format!("{:08x}", w.value),
        "u32": w.value,
        "f32": finite(f32::from_bits(w.value)),
        "u16": [w.value >> 16, w.value & 0xFFFF],
        "bytes": w.value.to_be_bytes(),
        "relocated": w.relocated,
        "target": w.lands.as_ref().map(|l| l.target),
        "lands": w.lands.as_ref().map(|l| l.relation.clone()),
        "target_words": w.lands.as_ref().map(|l| l.first_words.iter().map(|x| format!("{x:08x}")).collect::<Vec<_>>()),
    })
}

fn finite(f: f32) -> Option<f32> {
    f.is_finite().then_some(f)
}

fn to_json(path: &str, p: &Probe) -> Value {
    let pairs = p.slots.len().saturating_sub(1).max(1) as f64;
    json!({
        "path": path,
        "magic": p.magic,
        "data_size": p.data_size,
        "pof0_offset": p.pof0_offset,
        "table_len": p.table_len,
        "trailer_len": p.trailer_len,
        "bases": p.bases.iter().map(|(b, bad)| json!({
            "base": b,
            "fits": bad.is_none(),
            "first_bad_slot": bad.as_ref().map(|x| x.slot),
            "reason": bad.as_ref().map(|x| x.reason.clone()),
        })).collect::<Vec<_>>(),
        "pof0_base": p.base,
        "base_fits": p.base_fits,
        "relocations": p.slots.len(),
        "header_end": p.header_end,
        "header_words": p.header_words.iter().map(word_json).collect::<Vec<_>>(),
        "header_slots": p.header_words.iter().filter(|w| w.relocated).map(|w| w.offset).collect::<Vec<_>>(),
        "gap_histogram": p.gap_histogram.iter().map(|(g, n)| json!({
            "gap": g, "count": n, "percent": 100.0 * *n as f64 / pairs,
        })).collect::<Vec<_>>(),
        "runs": p.runs.iter().map(|r| json!({"start": r.start, "stride": r.stride, "count": r.count})).collect::<Vec<_>>(),
        "slots": p.slots.iter().map(|s| json!({"offset": s.offset, "value": s.value, "target": s.target})).collect::<Vec<_>>(),
    })
}

fn word_text(w: &HeaderWord) -> String {
    let b = w.value.to_be_bytes();
    let ascii: String = b
        .iter()
        .map(|&c| if c.is_ascii_graphic() { c as char } else { '.' })
        .collect();
    let f = f32::from_bits(w.value);
    let float = if f.is_finite() && f != 0.0 && (1e-6..1e12).contains(&f.abs()) {
        format!("f32 {f}")
    } else {
        String::new()
    };
    let mut s = format!(
        "  {:#06x}  {:08x}  {:>10}  u16 {:>5} {:>5}  {ascii}  {float}",
        w.offset,
        w.value,
        w.value,
        w.value >> 16,
        w.value & 0xFFFF
    );
    if let Some(l) = &w.lands {
        s.push_str(&format!(
            "\n          relocated -> {:#x}: {}",
            l.target, l.relation
        ));
    }
    s
}

fn to_text(path: &str, p: &Probe, limit: usize) -> String {
    let mut t = format!(
        "{path}: chunk '{}', data size {:#x}, POF0 at {:#x} ({} table bytes, {} bytes after it)\n",
        p.magic, p.data_size, p.pof0_offset, p.table_len, p.trailer_len
    );
    for (b, bad) in &p.bases {
        match bad {
            None => t.push_str(&format!(
                "  slot base {b:#x}: every slot holds an in-data pointer\n"
            )),
            Some(x) => t.push_str(&format!(
                "  slot base {b:#x}: fails at slot {:#x}: {}\n",
                x.slot, x.reason
            )),
        }
    }
    if !p.base_fits {
        t.push_str("  no base fits; slots below are read with base 0x10\n");
    }
    t.push_str(&format!("\nheader words (0x00..{:#x}):\n", p.header_end));
    for w in &p.header_words {
        t.push_str(&word_text(w));
        t.push('\n');
    }
    let pairs = p.slots.len().saturating_sub(1).max(1) as f64;
    t.push_str(&format!(
        "\n{} relocated words; distances between consecutive ones:\n     gap   count       %\n",
        p.slots.len()
    ));
    for (g, n) in p.gap_histogram.iter().take(limit) {
        t.push_str(&format!(
            "  {g:>6}  {n:>6}  {:>6.2}\n",
            100.0 * *n as f64 / pairs
        ));
    }
    t.push_str(&format!(
        "\nruns of equal stride (3 or more slots): {}\n",
        p.runs.len()
    ));
    for (k, r) in p.runs.iter().enumerate().take(limit) {
        t.push_str(&format!(
            "  run {:>3}  from {:#08x}  stride {:>4}  x {}\n",
            k + 1,
            r.start,
            r.stride,
            r.count
        ));
    }
    if p.runs.len() > limit {
        t.push_str(&format!(
            "  ... {} more (--limit, or --json for all)\n",
            p.runs.len() - limit
        ));
    }
    t.push_str("\nheader pointers:\n");
    for w in p.header_words.iter().filter(|w| w.relocated) {
        if let Some(l) = &w.lands {
            let words: Vec<String> = l.first_words.iter().map(|x| format!("{x:08x}")).collect();
            t.push_str(&format!(
                "  {:#06x} -> {:#08x}  {}\n          {}\n",
                w.offset,
                l.target,
                l.relation,
                words.join(" ")
            ));
        }
    }
    t
}
