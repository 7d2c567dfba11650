//! The checks tobj 4 skips, made before it reads: found by fuzzing
//! (`fuzz/regressions/import_obj/`). tobj resolves a face corner's
//! relative index (`-4`) as `count + index` cast to usize, so one reaching
//! back past the first element wraps, and `index * 3` then overflows (a
//! panic in checked builds, a wrong element otherwise); a huge positive
//! index overflows the same way.

use super::{ImportErrorKind, MeshFormat};

/// The three kinds of element a face corner `v/vt/vn` refers to.
const KINDS: [(&str, &str, &str); 3] = [
    ("v", "vertex", "vertices"),
    ("vt", "texture coordinate", "texture coordinates"),
    ("vn", "normal", "normals"),
];

/// Every index of every `f`, `l` and `p` corner names an element: a
/// positive index at most the file's count of that kind, a negative one
/// at most the count defined before its line. Texture coordinate and
/// normal indices are not read (so not checked) in a file that has none.
pub(super) fn check_corner_indices(bytes: &[u8]) -> Result<(), ImportErrorKind> {
    let text = String::from_utf8_lossy(bytes);
    let statements = || {
        text.lines().enumerate().filter_map(|(n, line)| {
            let mut words = line.split_whitespace();
            words.next().map(|keyword| (n + 1, keyword, words))
        })
    };
    let mut totals = [0usize; 3];
    for (_, keyword, _) in statements() {
        if let Some(k) = KINDS.iter().position(|(kw, ..)| *kw == keyword) {
            totals[k] += 1;
        }
    }
    let mut so_far = [0usize; 3];
    for (line, keyword, words) in statements() {
        if let Some(k) = KINDS.iter().position(|(kw, ..)| *kw == keyword) {
            so_far[k] += 1;
            continue;
        }
        if !matches!(keyword, "f" | "l" | "p") {
            continue;
        }
        for corner in words {
            for (k, part) in corner.split('/').take(3).enumerate() {
                let Ok(index) = part.parse::<i64>() else {
                    continue; // empty (`v//vn`) or not a number: tobj refuses it itself
                };
                if k > 0 && totals[k] == 0 {
                    continue; // tobj reads no texture coordinates (normals) when the file has none
                }
                let (limit, reach) = if index < 0 {
                    (so_far[k], index.unsigned_abs())
                } else {
                    (totals[k], index.unsigned_abs())
                };
                if reach > limit as u64 {
                    return Err(ImportErrorKind::parse(
                        MeshFormat::Obj,
                        format!(
                            "line {line}: face corner {corner:?} is out of bounds: it names {} {index}, but {limit} {} are defined{}",
                            KINDS[k].1,
                            KINDS[k].2,
                            if index < 0 { " before it" } else { "" }
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_reach_only_defined_elements() {
        let ok = b"v 0 0 0\nv 1 0 0\nvn 0 0 1\nf 1//1 2//-1 -2\nv 0 1 0\nf 3/7 -1/-9 1\n";
        assert!(check_corner_indices(ok).is_ok());
        for (bad, says) in [
            (
                &b"v 0 1 0\nvn 0 0 1\nf 1//-4 1 1\n"[..],
                "names normal -4, but 1 normals are defined before it",
            ),
            (
                b"v 0 0 0\nf -2 1 1\n",
                "names vertex -2, but 1 vertices are defined before it",
            ),
            (
                b"v 0 0 0\nf 1 1 6148914691236517206\n",
                "names vertex 6148914691236517206",
            ),
            (b"v 0 0 0\nvt 0 0\nf 1/2 1 1\n", "texture coordinate 2"),
        ] {
            let e = check_corner_indices(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
    }
}
