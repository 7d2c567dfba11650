//! Streaming string runs: ASCII and UTF-16BE (at either byte parity), found
//! in bytes fed piece by piece, with constant memory.
//!
//! A run is a maximal sequence of *name characters* (printable ASCII but
//! space and `" * < > ? | ' , ; =`), at least [`MIN_RUN`] long; a run
//! longer than [`MAX_RUN`] is cut into pieces of that length. In UTF-16BE a
//! name character is the unit `00 c`; its run is reported as the ASCII
//! bytes `c`.

/// Shortest run reported.
pub const MIN_RUN: usize = 4;
/// Longest run kept in one piece.
pub const MAX_RUN: usize = 255;

/// Which characters can be part of a file name, as a 256-entry table.
const NAME_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0x21;
    while c < 0x7F {
        t[c] = !matches!(
            c as u8,
            b'"' | b'*' | b'<' | b'>' | b'?' | b'|' | b'\'' | b',' | b';' | b'='
        );
        c += 1;
    }
    t
};

/// Whether `b` can be part of a file name.
#[inline]
pub fn is_name_char(b: u8) -> bool {
    NAME_CHAR[b as usize]
}

/// How a run was encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// One byte per character.
    Ascii,
    /// Two bytes per character, big-endian.
    Utf16Be,
}

/// One run in progress.
#[derive(Debug, Clone)]
struct Run {
    bytes: Vec<u8>,
    start: u64,
    /// UTF-16 only: the previous byte was a zero high byte at this parity.
    pending: bool,
}

impl Run {
    fn new() -> Self {
        Run {
            bytes: Vec::with_capacity(MAX_RUN),
            start: 0,
            pending: false,
        }
    }

    fn push(
        &mut self,
        b: u8,
        at: u64,
        encoding: Encoding,
        emit: &mut impl FnMut(&[u8], u64, Encoding),
    ) {
        if self.bytes.is_empty() {
            self.start = at;
        }
        self.bytes.push(b);
        if self.bytes.len() == MAX_RUN {
            self.end(encoding, emit);
        }
    }

    fn end(&mut self, encoding: Encoding, emit: &mut impl FnMut(&[u8], u64, Encoding)) {
        if self.bytes.len() >= MIN_RUN {
            emit(&self.bytes, self.start, encoding);
        }
        self.bytes.clear();
    }
}

/// Finds runs in a byte stream fed in pieces.
#[derive(Debug, Clone)]
pub struct Scanner {
    ascii: Run,
    /// UTF-16BE runs whose high bytes sit at even / odd offsets.
    wide: [Run; 2],
    at: u64,
}

impl Default for Scanner {
    fn default() -> Self {
        Self::new()
    }
}

impl Scanner {
    /// A scanner at offset 0.
    pub fn new() -> Self {
        Scanner {
            ascii: Run::new(),
            wide: [Run::new(), Run::new()],
            at: 0,
        }
    }

    /// Bytes fed so far.
    pub fn offset(&self) -> u64 {
        self.at
    }

    /// Scans the next bytes; `emit(run, offset, encoding)` is called for
    /// each run that ends in them (offset: of the run's first byte).
    pub fn feed(&mut self, bytes: &[u8], emit: &mut impl FnMut(&[u8], u64, Encoding)) {
        let mut i = 0;
        while i < bytes.len() {
            if self.idle() {
                // Nothing is open: a byte that is neither a name character
                // nor zero starts nothing either.
                let skipped = bytes[i..]
                    .iter()
                    .position(|&b| b == 0 || is_name_char(b))
                    .unwrap_or(bytes.len() - i);
                i += skipped;
                self.at += skipped as u64;
                if i == bytes.len() {
                    break;
                }
            }
            self.step(bytes[i], emit);
            i += 1;
        }
    }

    /// Whether no run is open and no zero high byte is pending.
    fn idle(&self) -> bool {
        self.ascii.bytes.is_empty() && self.wide.iter().all(|w| w.bytes.is_empty() && !w.pending)
    }

    /// One byte.
    #[inline]
    fn step(&mut self, b: u8, emit: &mut impl FnMut(&[u8], u64, Encoding)) {
        let at = self.at;
        if is_name_char(b) {
            self.ascii.push(b, at, Encoding::Ascii, emit);
        } else {
            self.ascii.end(Encoding::Ascii, emit);
        }
        let parity = (at & 1) as usize;
        // At this parity the byte is a high byte; at the other, a low byte.
        let high = &mut self.wide[parity];
        if b != 0 {
            high.end(Encoding::Utf16Be, emit);
        }
        high.pending = b == 0;
        let low = &mut self.wide[parity ^ 1];
        if low.pending && is_name_char(b) {
            low.push(b, at - 1, Encoding::Utf16Be, emit);
        } else if low.pending {
            low.end(Encoding::Utf16Be, emit);
        }
        low.pending = false;
        self.at += 1;
    }

    /// Ends the stream: reports the runs still open.
    pub fn finish(&mut self, emit: &mut impl FnMut(&[u8], u64, Encoding)) {
        self.ascii.end(Encoding::Ascii, emit);
        for w in &mut self.wide {
            w.end(Encoding::Utf16Be, emit);
            w.pending = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(pieces: &[&[u8]]) -> Vec<(String, u64, Encoding)> {
        let mut out = Vec::new();
        let mut s = Scanner::new();
        let mut emit = |r: &[u8], at: u64, e: Encoding| {
            out.push((String::from_utf8_lossy(r).into_owned(), at, e))
        };
        for p in pieces {
            s.feed(p, &mut emit);
        }
        s.finish(&mut emit);
        out
    }

    fn utf16(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_be_bytes).collect()
    }

    #[test]
    fn ascii_runs_split_at_non_name_characters() {
        let r = runs(&[b"\x01abc\0mapmesh_box_500km.col\0x y\"dat\\S01.tbl"]);
        assert_eq!(
            r,
            [
                ("mapmesh_box_500km.col".to_string(), 5, Encoding::Ascii),
                ("dat\\S01.tbl".to_string(), 31, Encoding::Ascii),
            ]
        );
    }

    #[test]
    fn runs_survive_piece_boundaries() {
        let whole = b"..\0S01_AsteroidVolume_wp.col\0";
        let one = runs(&[whole]);
        for cut in 0..whole.len() {
            assert_eq!(runs(&[&whole[..cut], &whole[cut..]]), one, "cut at {cut}");
        }
    }

    #[test]
    fn utf16_runs_at_both_parities() {
        for pad in [0usize, 1, 2, 3] {
            let mut d = vec![0xFFu8; pad];
            d.extend(utf16("eng\\GP_TITLE.tbl"));
            d.extend([0, 0, 0xFF]);
            let r = runs(&[&d]);
            assert_eq!(
                r,
                [(
                    "eng\\GP_TITLE.tbl".to_string(),
                    pad as u64,
                    Encoding::Utf16Be
                )],
                "pad {pad}"
            );
        }
        // Split anywhere, including between the two bytes of a unit.
        let d = utf16("\u{3042}names.rgn\u{3044}");
        for cut in 0..d.len() {
            let r = runs(&[&d[..cut], &d[cut..]]);
            assert_eq!(
                r,
                [("names.rgn".to_string(), 2, Encoding::Utf16Be)],
                "cut {cut}"
            );
        }
    }

    /// Runs found the plain way: whole input, each encoding on its own.
    fn reference(d: &[u8]) -> Vec<(String, u64, Encoding)> {
        let mut out = Vec::new();
        let mut push = |run: &[u8], at: u64, e| {
            for (k, piece) in run.chunks(MAX_RUN).enumerate() {
                if piece.len() >= MIN_RUN {
                    let step = if e == Encoding::Ascii { 1 } else { 2 };
                    let start = at + (k * MAX_RUN * step) as u64;
                    out.push((String::from_utf8_lossy(piece).into_owned(), start, e));
                }
            }
        };
        let mut i = 0;
        while i < d.len() {
            let n = d[i..].iter().take_while(|&&b| is_name_char(b)).count();
            push(&d[i..i + n], i as u64, Encoding::Ascii);
            i += n.max(1);
        }
        for parity in 0..2 {
            let units: Vec<(usize, u8)> = (parity..d.len().saturating_sub(1))
                .step_by(2)
                .map(|j| {
                    (
                        j,
                        if d[j] == 0 && is_name_char(d[j + 1]) {
                            d[j + 1]
                        } else {
                            0
                        },
                    )
                })
                .collect();
            let mut k = 0;
            while k < units.len() {
                let n = units[k..].iter().take_while(|u| u.1 != 0).count();
                let run: Vec<u8> = units[k..k + n].iter().map(|u| u.1).collect();
                push(&run, units[k].0 as u64, Encoding::Utf16Be);
                k += n.max(1);
            }
        }
        out.sort_by_key(|r| (r.1, r.2 == Encoding::Utf16Be));
        out
    }

    proptest::proptest! {
        #[test]
        fn streaming_finds_what_a_plain_pass_finds(
            d in proptest::collection::vec(
                proptest::prop_oneof![proptest::prelude::Just(0u8), b'a'..=b'e', proptest::prelude::any::<u8>()],
                0..700,
            ),
            cut in 0usize..700,
        ) {
            let cut = cut.min(d.len());
            let mut got = runs(&[&d[..cut], &d[cut..]]);
            got.sort_by_key(|r| (r.1, r.2 == Encoding::Utf16Be));
            proptest::prop_assert_eq!(got, reference(&d));
        }
    }

    #[test]
    fn long_runs_are_cut_and_short_ones_dropped() {
        let long = vec![b'a'; MAX_RUN + 10];
        let r = runs(&[&long, b"\0abc\0"]);
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].0.len(), r[1].0.len(), r[1].1),
            (MAX_RUN, 10, MAX_RUN as u64)
        );
    }
}
