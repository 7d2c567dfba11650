//! `probe`: any POF0-relocated chunk, even one sylcol cannot decode —
//! header words, relocated slots, the gap histogram, runs of equal stride,
//! and where each header pointer lands.

use schemars::JsonSchema;
use serde::Serialize;
use sylcol_format::probe::{HeaderWord, Probe};

/// The `probe` report.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ProbeReport {
    /// The input as named.
    pub path: String,
    /// The magic as text (non-printable bytes escaped).
    pub magic: String,
    /// The u32 at 0x04.
    pub data_size: u32,
    /// Where the POF0 framing starts.
    pub pof0_offset: u64,
    /// The encoded table's length in bytes.
    pub table_len: usize,
    /// Bytes after the table, to the end of the input.
    pub trailer_len: u64,
    /// Each candidate slot base and whether every slot fits under it.
    pub bases: Vec<BaseFit>,
    /// The base used below: the first that fits, else 0x10.
    pub pof0_base: u32,
    /// Whether `pof0_base` fits every slot.
    pub base_fits: bool,
    /// Relocated words in the table.
    pub relocations: usize,
    /// End of the header words shown.
    pub header_end: u64,
    /// The header's words, each read several ways.
    pub header_words: Vec<WordReport>,
    /// Header offsets that are relocated.
    pub header_slots: Vec<u64>,
    /// Distances between consecutive relocated words.
    pub gap_histogram: Vec<GapCount>,
    /// Runs of three or more slots at an equal stride.
    pub runs: Vec<RunReport>,
    /// Every relocated slot.
    pub slots: Vec<SlotReport>,
}

/// One candidate slot base.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BaseFit {
    /// The base.
    pub base: u32,
    /// Whether every slot holds an in-data pointer under it.
    pub fits: bool,
    /// The first slot that does not (offset).
    pub first_bad_slot: Option<u64>,
    /// Why it does not.
    pub reason: Option<String>,
}

/// One header word.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct WordReport {
    /// Its offset.
    pub offset: u64,
    /// Eight hex digits.
    pub hex: String,
    /// As u32.
    pub u32: u32,
    /// As f32, when finite.
    pub f32: Option<f32>,
    /// As two u16.
    pub u16: [u32; 2],
    /// Its four bytes.
    pub bytes: [u8; 4],
    /// Whether the POF0 table relocates it.
    pub relocated: bool,
    /// Where it points, when relocated.
    pub target: Option<u64>,
    /// What it lands on.
    pub lands: Option<String>,
    /// The first words at the target (hex).
    pub target_words: Option<Vec<String>>,
}

/// One row of the gap histogram.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GapCount {
    /// Distance between consecutive slots.
    pub gap: u64,
    /// How many pairs are that far apart.
    pub count: usize,
    /// Share of all pairs.
    pub percent: f64,
}

/// A run of equal stride.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RunReport {
    /// First slot.
    pub start: u32,
    /// Stride.
    pub stride: u64,
    /// Slots in the run.
    pub count: usize,
}

/// One relocated slot.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SlotReport {
    /// Its offset.
    pub offset: u32,
    /// The word stored there.
    pub value: Option<u32>,
    /// Where it points.
    pub target: Option<u64>,
}

fn word_report(w: &HeaderWord) -> WordReport {
    WordReport {
        offset: w.offset,
        hex: format!("{:08x}", w.value),
        u32: w.value,
        f32: Some(f32::from_bits(w.value)).filter(|f| f.is_finite()),
        u16: [w.value >> 16, w.value & 0xFFFF],
        bytes: w.value.to_be_bytes(),
        relocated: w.relocated,
        target: w.lands.as_ref().map(|l| l.target),
        lands: w.lands.as_ref().map(|l| l.relation.clone()),
        target_words: w
            .lands
            .as_ref()
            .map(|l| l.first_words.iter().map(|x| format!("{x:08x}")).collect()),
    }
}

/// The report of a probed chunk.
pub fn probe_report(path: &str, p: &Probe) -> ProbeReport {
    let pairs = p.slots.len().saturating_sub(1).max(1) as f64;
    ProbeReport {
        path: path.to_string(),
        magic: p.magic.clone(),
        data_size: p.data_size,
        pof0_offset: p.pof0_offset,
        table_len: p.table_len,
        trailer_len: p.trailer_len,
        bases: p
            .bases
            .iter()
            .map(|(b, bad)| BaseFit {
                base: *b,
                fits: bad.is_none(),
                first_bad_slot: bad.as_ref().map(|x| x.slot),
                reason: bad.as_ref().map(|x| x.fault.to_string()),
            })
            .collect(),
        pof0_base: p.base,
        base_fits: p.base_fits,
        relocations: p.slots.len(),
        header_end: p.header_end,
        header_words: p.header_words.iter().map(word_report).collect(),
        header_slots: p
            .header_words
            .iter()
            .filter(|w| w.relocated)
            .map(|w| w.offset)
            .collect(),
        gap_histogram: p
            .gap_histogram
            .iter()
            .map(|(g, n)| GapCount {
                gap: *g,
                count: *n,
                percent: 100.0 * *n as f64 / pairs,
            })
            .collect(),
        runs: p
            .runs
            .iter()
            .map(|r| RunReport {
                start: r.start,
                stride: r.stride,
                count: r.count,
            })
            .collect(),
        slots: p
            .slots
            .iter()
            .map(|s| SlotReport {
                offset: s.offset,
                value: s.value,
                target: s.target,
            })
            .collect(),
    }
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

/// The human-readable probe of `path`, listing at most `limit` runs and
/// histogram rows.
pub fn probe_text(path: &str, p: &Probe, limit: usize) -> String {
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
                x.slot, x.fault
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
