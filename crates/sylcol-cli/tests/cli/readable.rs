//! Output a person can read (issue 35): `verify` says each distinct
//! object once, in a line; a whole archive exports to one glTF scene; a
//! map exports to PLY; `info` and `verify` print one JSON shape for an
//! object and for an archive; the help and manual pages are current.

use serde_json::Value;

use crate::common::*;

fn sample_tables() -> String {
    format!("{}/../../samples/Tables.pak", env!("CARGO_MANIFEST_DIR"))
}

mod verify_summary {
    use super::*;

    #[test]
    fn the_sample_archive_is_a_line_per_distinct_object() {
        let out = sylcol().args(["verify", &samples()]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let text = stdout(&out);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() < 40, "{} lines:\n{text}", lines.len());
        // The library is stored under 18 names: one line, and the names.
        let library: Vec<&&str> = lines
            .iter()
            .filter(|l| l.contains(": CollisionSet,"))
            .collect();
        assert_eq!(library.len(), 1, "{text}");
        let sharing = lines
            .iter()
            .find(|l| l.contains("18 entries share this content: "))
            .expect("the shared library named once");
        assert!(sharing.contains("CollisionSet_S01.bin"), "{sharing}");
        assert!(sharing.contains("CollisionSet_Tutorial.bin"), "{sharing}");
        // Every object line starts with its verdict.
        let objects: Vec<&&str> = lines
            .iter()
            .filter(|l| l.contains("MiscBin.pak+"))
            .collect();
        assert_eq!(objects.len(), 21, "a line per distinct content: {text}");
        for l in objects {
            let marker = l.split_whitespace().next().unwrap();
            assert!(["ok", "info", "FAILED"].contains(&marker), "{l}");
        }
        assert!(
            text.contains("40 object(s) verified: 40 ok, 0 failed, 0 unreadable"),
            "{text}"
        );
    }

    #[test]
    fn verbose_has_every_table_and_failures_only_what_failed() {
        let verbose = stdout(
            &sylcol()
                .args(["verify", "--verbose", &samples()])
                .output()
                .unwrap(),
        );
        assert!(verbose.contains("control ("), "{verbose}");
        assert!(verbose.contains("summary over "), "{verbose}");
        assert!(verbose.contains("  topology: "), "{verbose}");
        // Still once per content: one CollisionSet table, not 18.
        assert_eq!(verbose.matches("CollisionSet (big-endian)").count(), 1);
        let quiet = sylcol()
            .args(["verify", "--failures", &samples()])
            .output()
            .unwrap();
        assert_eq!(quiet.status.code(), Some(0));
        assert_eq!(stdout(&quiet), "", "nothing failed, nothing printed");
    }

    #[test]
    fn failures_show_the_failing_object_and_check_in_full() {
        use sylcol::format::mcol::encode;
        use sylcol::verify::testmaps::{drop_list_entry, sphere_map};
        let dir = tempfile::tempdir().unwrap();
        let mut m = sphere_map(2, 0.0);
        drop_list_entry(&mut m);
        let bad = dir.path().join("dropped.mcol");
        std::fs::write(&bad, encode(&m).unwrap()).unwrap();
        let good = fixture("box.mcol");
        for flag in [None, Some("--failures")] {
            let mut cmd = sylcol();
            cmd.arg("verify").args(flag).args([path(&bad), &good]);
            let out = cmd.output().unwrap();
            assert_eq!(out.status.code(), Some(1));
            let text = stdout(&out);
            let failed = text
                .lines()
                .find(|l| l.starts_with("FAILED  "))
                .unwrap_or_else(|| panic!("{text}"));
            assert!(failed.contains("dropped.mcol: MCOL, 1 of "), "{failed}");
            assert!(
                text.lines()
                    .any(|l| l.starts_with("  FAIL  mcol.broadphase.listed ")),
                "{text}"
            );
            assert_eq!(text.contains("box.mcol"), flag.is_none(), "{text}");
        }
    }

    #[test]
    fn json_keeps_every_copy_and_names_the_others() {
        let j = run_json(&["verify", "--json", &samples()]);
        let objects = j["objects"].as_array().unwrap();
        assert_eq!(objects.len(), 40);
        let libraries: Vec<&Value> = objects
            .iter()
            .filter(|o| o["format"] == "CollisionSet")
            .collect();
        assert_eq!(libraries.len(), 18);
        for l in &libraries {
            let others = l["shares_content_with"].as_array().unwrap();
            assert_eq!(others.len(), 17, "{}", l["path"]);
            assert!(!others.contains(&l["path"]));
            assert_eq!(l["checks"], libraries[0]["checks"]);
        }
        let map = objects
            .iter()
            .find(|o| o["path"].as_str().unwrap().ends_with("$2CF7EB47.MCOL"));
        assert_eq!(map.unwrap()["shares_content_with"], serde_json::json!([]));
    }

    #[test]
    fn help_says_what_verify_does() {
        for flag in ["-h", "--help"] {
            let help = stdout(&sylcol().args(["verify", flag]).output().unwrap());
            assert!(
                help.contains("Check every object against what is known about the format"),
                "{help}"
            );
            assert!(
                help.contains("--verbose") && help.contains("--failures"),
                "{help}"
            );
        }
        let top = stdout(&sylcol().arg("--help").output().unwrap());
        assert!(top.contains("Check every object against what is known about the format"));
    }
}

mod envelope {
    use super::*;

    /// The keys every `info` / `verify` document has, whatever its input.
    fn assert_envelope(j: &Value, objects: usize) {
        assert_eq!(j["objects"].as_array().map(Vec::len), Some(objects), "{j}");
        assert!(j["skipped"].is_array() && j["errors"].is_array(), "{j}");
        for o in j["objects"].as_array().unwrap() {
            assert!(o["format"].is_string() && o["path"].is_string(), "{o}");
            assert!(o["shares_content_with"].is_array(), "{o}");
        }
    }

    #[test]
    fn info_is_one_shape_for_an_object_and_an_archive() {
        let one = run_json(&["info", "--json", &fixture("box.mcol")]);
        assert_envelope(&one, 1);
        assert_eq!(one["format"], "MCOL");
        assert_eq!(one["objects"][0]["triangles"], 12);
        let entry = run_json(&["info", "--json", &format!("{}+$2CF7EB47.MCOL", samples())]);
        assert_envelope(&entry, 1);
        let all = run_json(&["info", "--json", &samples()]);
        assert_envelope(&all, 40);
        assert_eq!(all["format"], "IPFB");
        let libs = all["objects"].as_array().unwrap().iter();
        let lib = libs
            .clone()
            .find(|o| o["format"] == "CollisionSet")
            .unwrap();
        assert_eq!(lib["shares_content_with"].as_array().unwrap().len(), 17);
        let text = stdout(&sylcol().args(["info", &samples()]).output().unwrap());
        assert_eq!(
            text.matches("CollisionSet  158 records").count(),
            1,
            "{text}"
        );
        assert!(text.contains("18 entries share this content: "), "{text}");
    }

    #[test]
    fn verify_is_the_same_envelope() {
        let one = run_json(&["verify", "--json", &fixture("box.mcol")]);
        assert_envelope(&one, 1);
        let all = run_json(&["verify", "--json", &sample_tables()]);
        assert_envelope(&all, 2);
    }
}
