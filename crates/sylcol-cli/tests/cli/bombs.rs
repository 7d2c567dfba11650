//! Memory bombs, run through the real binary under an address-space cap
//! (`ulimit -v`): entries whose first bytes are a format sylcol decodes
//! in front of a gigabyte of zeros, rows that point at one such stream,
//! files of that shape. Each must end with exit 2 and an error naming the
//! object, never an abort (a signal: no exit code).

use std::path::{Path, PathBuf};

use crate::common::handmade::{RawEntry, write_archive, z1_prefixed};
use crate::common::{fixture, path, run_capped, stderr, stdout};

const GIB: u64 = 1 << 30;
/// The address space the bombs run under: less than one inflated bomb.
const CAP_MIB: u64 = 600;

/// An MCOL header: counts, grid bytes (nx = ny = nz), the rest zero.
fn mcol_header(vertices: u16, triangles: u16, grid: u8) -> Vec<u8> {
    let mut h = vec![0u8; 0x80];
    h[..4].copy_from_slice(b"MCOL");
    h[0x50..0x52].copy_from_slice(&vertices.to_be_bytes());
    h[0x52..0x54].copy_from_slice(&triangles.to_be_bytes());
    h[0x70..0x74].copy_from_slice(&[grid, grid, grid, 1]);
    h
}

/// One CollisionSet record (a triangle), big-endian: a library's start.
fn library_record() -> Vec<u8> {
    let mut r = Vec::new();
    let name = *b"rou_bomb_cmesh\0\0";
    r.extend((16u32 + 8 + 36 + 12).to_be_bytes()); // size
    r.extend(16u32.to_be_bytes()); // name_len
    r.extend(name);
    r.extend(3u32.to_be_bytes());
    r.extend(1u32.to_be_bytes());
    r.extend([0u8; 36]);
    r.extend([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2]);
    r
}

/// A Z1 entry inflating to `head` then zeros, `size` bytes in all.
fn bomb(head: &[u8], size: u64) -> Vec<u8> {
    z1_prefixed(head, size as u32, size - head.len() as u64)
}

/// `Bomb.pak`: `$00000030` the box map; `$00000040` an MCOL header of no
/// vertex, triangle or cell before 1 GiB of zeros (the issue's bomb);
/// `$00000041` an MCOL header at the u16 limits with a 255^3 grid (its
/// bound is terabytes) before 1 GiB; `$00000042` a library's first
/// record before 1 GiB.
fn bomb_archive(dir: &Path) -> PathBuf {
    let entries = [
        (0x30, std::fs::read(fixture("box.mcol")).unwrap()),
        (0x40, bomb(&mcol_header(0, 0, 0), GIB)),
        (0x41, bomb(&mcol_header(u16::MAX, u16::MAX, 255), GIB)),
        (0x42, bomb(&library_record(), GIB)),
    ];
    let raw: Vec<RawEntry> = (0u8..)
        .zip(entries)
        .map(|(part, (hash, bytes))| RawEntry::new(hash, part, 0, bytes))
        .collect();
    write_archive(dir, "Bomb", &raw)
}

const TOO_LARGE: [(&str, &str); 3] = [
    (
        "$00000040.MCOL",
        "MCOL of 1073741824 bytes is too large to read: an MCOL of 0 vertices, 0 triangles and a 0 x 0 x 0 grid takes at most",
    ),
    (
        "$00000041.MCOL",
        "MCOL of 1073741824 bytes is too large to read: sylcol holds at most 67108864 bytes (64 MiB) of one object",
    ),
    (
        "$00000042",
        "CollisionSet of 1073741824 bytes is too large to read: sylcol holds at most 67108864 bytes (64 MiB) of one object",
    ),
];

/// Asserts a capped run ended with exit 2 (not a signal) and an error
/// naming each bomb of `names` and why.
fn refused(o: &std::process::Output, what: &str, bombs: &[(&str, &str)]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    for (entry, why) in bombs {
        let said = err
            .lines()
            .any(|l| l.contains(&format!("+{entry}: ")) && l.contains(why));
        assert!(said, "{what}: no error names {entry} ({why}): {err}");
    }
}

#[cfg(unix)]
#[test]
fn bombs_in_an_archive_are_refused_before_they_are_inflated() {
    let dir = tempfile::tempdir().unwrap();
    let pak = bomb_archive(dir.path());
    let pak = path(&pak);
    let out = dir.path().join("out");
    let html = dir.path().join("view.html");
    for args in [
        vec!["info", pak],
        vec!["verify", pak],
        vec!["export", pak, "-o", path(&out)],
        vec!["pairs", pak],
    ] {
        let o = run_capped(CAP_MIB, &args);
        let bombs = if args[0] == "pairs" {
            &TOO_LARGE[..2]
        } else {
            &TOO_LARGE[..]
        };
        refused(&o, args[0], bombs);
    }
    // The box beside them is read as ever.
    let o = run_capped(CAP_MIB, &["info", pak, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["objects"].as_array().unwrap().len(), 1, "{v}");
    let kinds: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["too_large"; 3]);
    // The viewer shows the box and names what it skipped.
    let o = run_capped(CAP_MIB, &["view", pak, "-o", path(&html)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("$00000040.MCOL: skipped, MCOL of 1073741824 bytes is too large"));
    // Named one at a time, by every command that reads one object.
    for (entry, why) in TOO_LARGE {
        let one = format!("{pak}+{entry}");
        let cut = dir.path().join("cut.bin");
        for args in [
            vec!["info", &one],
            vec!["verify", &one],
            vec!["export", &one, "-o", path(&out)],
            vec!["rewrite", &one, "-o", path(&cut)],
            vec!["query", &one, "inside", "--point", "0,0,0"],
        ] {
            let o = run_capped(CAP_MIB, &args);
            refused(&o, &args.join(" "), &[(entry, why)]);
        }
        let o = run_capped(CAP_MIB, &["probe", &one]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("an object of 1073741824 bytes is too large to read"));
    }
}

#[cfg(unix)]
#[test]
fn rows_that_point_at_one_bomb_are_refused_each_without_inflating_it() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = bomb(&mcol_header(0, 0, 0), GIB);
    let rows: Vec<RawEntry> = [0x40, 0x50, 0x60]
        .into_iter()
        .map(|hash| RawEntry::new(hash, 0, 0, bytes.clone()))
        .collect();
    let pak = write_archive(dir.path(), "Rows", &rows);
    let pak = path(&pak);
    let html = dir.path().join("view.html");
    let o = run_capped(CAP_MIB, &["view", pak, "-o", path(&html)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing to show"), "{}", stderr(&o));
    for hash in ["40", "50", "60"] {
        let line = format!("+$000000{hash}.MCOL: skipped, MCOL of 1073741824 bytes is too large");
        assert!(stderr(&o).contains(&line), "{line}: {}", stderr(&o));
    }
    let o = run_capped(CAP_MIB, &["verify", pak]);
    refused(&o, "verify", &[TOO_LARGE[0]]);
    assert_eq!(stderr(&o).matches("too large to read").count(), 3);
}

#[cfg(unix)]
#[test]
fn a_plain_file_bomb_is_refused_from_its_head() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.mcol");
    std::fs::write(&file, mcol_header(0, 0, 0)).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.set_len(GIB).unwrap(); // sparse: no disk space
    for cmd in ["info", "verify", "query"] {
        let args = match cmd {
            "query" => vec![cmd, path(&file), "inside", "--point", "0,0,0"],
            _ => vec![cmd, path(&file)],
        };
        let o = run_capped(CAP_MIB, &args);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("big.mcol: MCOL of 1073741824 bytes is too large to read"),
            "{cmd}: {}",
            stderr(&o)
        );
    }
}

/// An object within the budget whose memory cannot be had (a library's
/// first record before 60 MiB of zeros, under 100 MiB of address space):
/// the reservation fails, and that is an error naming the entry, where
/// the allocation once aborted the process.
#[cfg(unix)]
#[test]
fn memory_that_cannot_be_had_is_an_error_naming_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let raw = [RawEntry::new(0x42, 0, 0, bomb(&library_record(), 60 << 20))];
    let pak = write_archive(dir.path(), "Oom", &raw);
    let pak = path(&pak);
    for args in [vec!["info", pak, "--json"], vec!["verify", pak, "--json"]] {
        let o = run_capped(100, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("entry $00000042 (Oom.p00): cannot hold its 62914560 bytes in memory"),
            "{err}"
        );
        assert!(err.contains(r#""kind":"out_of_memory""#), "{err}");
    }
    // With room, the same entry is read and refused by its decoder.
    let o = crate::common::sylcol()
        .args(["info", pak])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("invalid CollisionSet"),
        "{}",
        stdout(&o)
    );
}

/// A valid 60.7 MiB library (38 copies of the sample's records, within
/// the 64 MiB budget) under 600 MiB of address space: `info` has room
/// for it (its work takes about twice the object); `view`, whose page
/// takes about 17 times the object, finds it cannot have that much and
/// says so, where it once aborted half-way through building the page.
#[cfg(unix)]
#[test]
fn each_command_reserves_what_its_work_on_an_object_takes() {
    let dir = tempfile::tempdir().unwrap();
    let samples = crate::common::samples();
    let to = path(dir.path());
    crate::common::run(&["pak", "extract", &samples, "-o", to, "CollisionSet_S01.bin"]);
    let one = std::fs::read(dir.path().join("CollisionSet_S01.bin")).unwrap();
    let big = dir.path().join("big.bin");
    std::fs::write(&big, one.repeat(38)).unwrap();
    let o = run_capped(CAP_MIB, &["info", path(&big)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("6004"), "{}", stdout(&o));
    let html = dir.path().join("view.html");
    let o = run_capped(CAP_MIB, &["view", path(&big), "-o", path(&html)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("big.bin: cannot read: cannot hold its 63655624 bytes in memory and"),
        "{err}"
    );
    assert!(err.contains("nothing to show"), "{err}");
}
