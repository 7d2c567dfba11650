//! Limits, run through the real binary: memory under an address-space cap
//! (entries and files larger than the cap), Ctrl-C / SIGTERM during a
//! write, and what an interrupted run leaves for the next one.

use std::path::{Path, PathBuf};

use crate::common::handmade::{RawEntry, write_archive, z1_zeros};
use crate::common::{
    files_under, fixture, named_archive, run_capped, run_os as run, stderr, stdout,
};

/// An archive with a 256 MiB raw entry (a sparse part file) and a 128 MiB
/// Z1 entry of zeros (0.85 MB stored) beside a small MCOL: big entries of
/// formats sylcol does not decode.
fn big_entries_archive(dir: &Path) -> PathBuf {
    let mcol = std::fs::read(fixture("box.mcol")).unwrap();
    let pak = write_archive(
        dir,
        "Big",
        &[
            RawEntry {
                hash: 0x10,
                part: 0,
                offset: 0,
                size: 256 << 20,
                bytes: b"DATA".to_vec(),
            },
            RawEntry::new(0x20, 1, 0, z1_zeros(128 << 20, 128 << 20)),
            RawEntry::new(0x30, 2, 0, mcol),
        ],
    );
    let part = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("Big.p00"))
        .unwrap();
    part.set_len(256 << 20).unwrap();
    pak
}

#[cfg(unix)]
#[test]
fn info_and_verify_never_hold_an_entry_they_do_not_decode() {
    let dir = tempfile::tempdir().unwrap();
    let pak = big_entries_archive(dir.path());
    let pak = pak.to_str().unwrap();
    // 100 MiB of address space: less than either big entry.
    let o = run_capped(100, &["info", pak, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["objects"].as_array().unwrap().len(), 1, "the MCOL");
    let other: Vec<&str> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["path"].as_str().unwrap().rsplit('+').next().unwrap())
        .collect();
    assert_eq!(other, ["$00000010.DATA", "$00000020"]);
    let o = run_capped(100, &["verify", pak]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("skipped 2 entries"), "{}", stdout(&o));
    // One named entry, or a plain file, of another format: refused from
    // its head. (The part itself, named as `Big.p00` beside its index, is
    // refused as a part: `wrong_file.rs`; here it is a plain file.)
    let plain = dir.path().join("Big.bin");
    std::fs::hard_link(dir.path().join("Big.p00"), &plain).unwrap();
    for one in [format!("{pak}+$00000020"), plain.display().to_string()] {
        for cmd in ["info", "export", "verify"] {
            let o = run_capped(
                100,
                &[cmd, &one, "-o", "unused"][..if cmd == "export" { 4 } else { 2 }],
            );
            assert_eq!(o.status.code(), Some(2), "{cmd} {one}: {}", stderr(&o));
            assert!(stderr(&o).contains("not a format sylcol"), "{}", stderr(&o));
        }
    }
}

/// A stream that never ends (standard input, a device) is read up to
/// 64 MiB (the budget of one object) and refused: `info /dev/zero` once
/// read until the allocator aborted. Under a 600 MiB cap it ends with exit 2 and a message.
#[cfg(target_os = "linux")]
#[test]
fn an_endless_stream_is_refused_past_its_limit() {
    for args in [&["info", "/dev/zero"][..], &["verify", "/dev/zero"]] {
        let o = run_capped(600, args);
        assert_eq!(o.status.code(), Some(2), "{args:?} {}", stderr(&o));
        assert!(
            stderr(&o).contains("more than 64 MiB from a stream"),
            "{}",
            stderr(&o)
        );
    }
}

/// Names of sylcol's temporary files under `dir`.
fn temps_under(dir: &Path) -> Vec<String> {
    files_under(dir)
        .into_iter()
        .filter(|f| f.contains(".sylcol-tmp-"))
        .collect()
}

#[cfg(unix)]
#[test]
fn a_signal_during_extraction_leaves_no_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pak = write_archive(
        d,
        "Slow",
        &[RawEntry::new(0x42, 0, 0, z1_zeros(256 << 20, 256 << 20))],
    );
    use rustix::process::{Pid, Signal, kill_process};
    for signal in [Signal::TERM, Signal::INT] {
        let out = d.join(format!("out{}", signal.as_raw()));
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sylcol"))
            .args(["pak", "extract"])
            .arg(&pak)
            .arg("-o")
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while !out.exists() || temps_under(&out).is_empty() {
            assert!(
                child.try_wait().unwrap().is_none(),
                "finished before a temporary file was seen"
            );
            assert!(
                started.elapsed().as_secs() < 60,
                "no temporary file appeared"
            );
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        kill_process(Pid::from_child(&child), signal).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(signal.as_raw()), "dies of the signal");
        assert_eq!(temps_under(&out), Vec::<String>::new());
        assert_eq!(files_under(&out), Vec::<String>::new());
    }
}

/// Unix only: elsewhere sylcol cannot tell a dead PID and keeps the file.
#[cfg(unix)]
#[test]
fn a_later_run_removes_stale_temporary_files_of_dead_runs_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (pak, names) = named_archive(d, &[("sub\\x.bin", b"x"), ("y.bin", b"y")]);
    let out = d.join("out");
    std::fs::create_dir_all(out.join("sub")).unwrap();
    // PIDs above the kernel's limit (2^22) are never alive.
    let dead = [
        ".y.bin.sylcol-tmp-2147483000",
        "sub/.x.bin.sylcol-tmp-2147483001",
    ];
    let alive = format!(".z.bin.sylcol-tmp-{}", std::process::id());
    let unrelated = ".y.bin.tmp-2147483000";
    for f in dead.iter().chain([&alive.as_str(), &unrelated]) {
        std::fs::write(out.join(f), b"stale").unwrap();
    }
    let o = run(args!["pak", "extract", &pak, "-o", &out, "--names", &names]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("y.bin: removed the unfinished copy an interrupted sylcol (pid 2147483000)"),
        "{err}"
    );
    assert!(
        !err.contains(".sylcol-tmp"),
        "never names a temp file: {err}"
    );
    let mut expected = [
        alive.as_str(),
        unrelated,
        "sub/x.bin",
        "y.bin",
        ".sylcol-pak.json",
    ];
    expected.sort();
    assert_eq!(files_under(&out), expected);
}

#[cfg(unix)]
#[test]
fn pak_build_streams_a_big_file() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let big = std::fs::File::create(src.join("big.bin")).unwrap();
    big.set_len(128 << 20).unwrap();
    std::fs::write(src.join("small.bin"), b"small").unwrap();
    let pak = dir.path().join("Big.pak");
    let (src, pak) = (src.to_str().unwrap(), pak.to_str().unwrap());
    // 80 MiB of address space: less than the file.
    let o = run_capped(80, &["pak", "build", src, "-o", pak, "--store", "big.bin"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(args!["pak", "list", pak, "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sizes: Vec<u64> = rows["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bytes"].as_u64().unwrap())
        .collect();
    assert!(
        sizes.contains(&(128 << 20)) && sizes.contains(&5),
        "{sizes:?}"
    );
}
