//! The 158 record names of the synthetic CollisionSet.
//!
//! Shaped after the seed: 78 `rou_`, 30 `mob_`, 4 `rob_` (the seed's own
//! four), 46 stage asteroids, with every example name the seed gives.
//! Stored names carry the `_cmesh` suffix (see docs/formats/collisionset.md:
//! the file's byte budget needs it); with the name field the name plus at
//! least one NUL rounded up to 8, the 158 fields add up to exactly 3 696
//! bytes — 56 of 16 bytes (the bare resource ids), 58 of 24, 44 of 32 —
//! which is what 1 675 148 bytes leaves for names.

/// A game resource and the parts it has collision meshes for; an empty part
/// list means one mesh for the whole resource (the bare id).
type Resource = (&'static str, &'static [&'static str]);

const BARE: &[&str] = &[];

/// The resources of the `rou_`, `mob_` and `rob_` families, in file order.
pub const RESOURCES: &[Resource] = &[
    ("rou_e010", BARE),
    ("rou_e011", BARE),
    ("rou_e012", BARE),
    ("rou_e020", BARE),
    ("rou_e021", BARE),
    ("rou_e030", BARE),
    ("rou_e031", BARE),
    ("rou_e040", BARE),
    ("rou_e050", BARE),
    ("rou_e060", BARE),
    (
        "rou_e101",
        &[
            "bdy", "brg_01", "brg_02", "eng_01", "eng_02", "wep_01", "wep_02", "sld_01",
        ],
    ),
    ("rou_e102", BARE),
    ("rou_e103", BARE),
    ("rou_e104", BARE),
    ("rou_e105", BARE),
    ("rou_e106", &["bdy", "brg", "eng", "wep", "sld"]),
    ("rou_e107", &["bdy", "brg", "eng_01", "eng_02", "wep"]),
    ("rou_e201", BARE),
    ("rou_e202", BARE),
    ("rou_e203", BARE),
    ("rou_e204", BARE),
    ("rou_e301", BARE),
    ("rou_e302", BARE),
    ("rou_e303", &["bdy", "wep"]),
    (
        "rou_e901",
        &[
            "bdy",
            "wing_01_L",
            "wing_01_R",
            "wing_02_L",
            "wing_02_R",
            "eng",
        ],
    ),
    ("rou_f010", BARE),
    ("rou_f011", BARE),
    ("rou_f020", BARE),
    ("rou_f021", BARE),
    ("rou_f030", BARE),
    ("rou_f040", BARE),
    ("rou_f101", BARE),
    ("rou_f102", BARE),
    ("rou_f103", BARE),
    ("rou_f104", &["bdy", "brg", "eng", "sld_01", "sld_02"]),
    ("rou_f105", &["bdy", "brg", "eng", "wep", "sld"]),
    ("rou_f201", BARE),
    ("rou_f202", BARE),
    ("rou_f203", BARE),
    ("rou_f301", &["body"]),
    ("rou_f302", BARE),
    ("rou_f303", &["body"]),
    ("rou_f304", &["bdy", "eng", "wep", "sld"]),
    ("rou_f401", BARE),
    ("rou_f402", BARE),
    ("rou_f501", BARE),
    ("mob_n010", BARE),
    ("mob_n011", BARE),
    ("mob_n020", BARE),
    ("mob_n030", BARE),
    ("mob_n040", BARE),
    ("mob_n041", BARE),
    ("mob_n050", BARE),
    ("mob_n060", BARE),
    ("mob_n070", BARE),
    ("mob_n080", BARE),
    ("mob_n090", BARE),
    ("mob_n100", BARE),
    ("mob_n110", &["bdy", "turret_01", "turret_02", "eng"]),
    ("mob_n120", BARE),
    ("mob_n130", BARE),
    ("mob_n200", BARE),
    ("mob_n210", BARE),
    ("mob_n300", BARE),
    ("mob_n310", BARE),
    ("mob_n400", &["bdy", "sld", "wep"]),
    ("mob_n500", &["bdy"]),
    ("mob_n900", &["bdy", "gear", "gear_01_L", "gear_01_R"]),
    ("rob_e001", BARE),
    ("rob_e005", &["bdy"]),
    ("rob_f001", &["bdy"]),
    ("rob_f002", BARE),
];

/// Stage prefixes with asteroid meshes and how many each has.
pub const ASTEROID_STAGES: &[(&str, &[&str])] = &[
    ("S01", &["01a", "01b", "02", "03", "04"]),
    ("S04", &["01", "02", "03", "04", "05"]),
    (
        "S14_p1",
        &["01", "02", "03", "04", "05", "06", "07", "08", "09"],
    ),
    (
        "S14_p2",
        &["01", "02", "03", "04", "05", "06", "07", "08", "09"],
    ),
    (
        "S15_p1",
        &["01", "02", "03", "04", "05", "06", "07", "08", "09"],
    ),
    (
        "S16_p1",
        &["01", "02", "03", "04", "05", "06", "07", "08", "09"],
    ),
];

/// One record to generate: its stored name and what it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedMesh {
    /// The stored name, `_cmesh` included.
    pub name: String,
    /// The resource id (`rou_e101`) or stage (`S14_p1`).
    pub owner: &'static str,
    /// The part word(s) (`brg_01`), empty for a whole resource; the asteroid
    /// number for asteroids.
    pub part: &'static str,
    /// Whether this is a stage asteroid.
    pub asteroid: bool,
}

/// Every record name, in file order: resources first, then asteroids.
pub fn all() -> Vec<NamedMesh> {
    let mut out = Vec::new();
    for &(id, parts) in RESOURCES {
        if parts.is_empty() {
            out.push(named(format!("{id}_cmesh"), id, "", false));
        }
        for &part in parts {
            out.push(named(format!("{id}_{part}_cmesh"), id, part, false));
        }
    }
    for &(stage, rocks) in ASTEROID_STAGES {
        for &rock in rocks {
            out.push(named(
                format!("{stage}_Asteroid_cmesh_{rock}"),
                stage,
                rock,
                true,
            ));
        }
    }
    out
}

fn named(name: String, owner: &'static str, part: &'static str, asteroid: bool) -> NamedMesh {
    NamedMesh {
        name,
        owner,
        part,
        asteroid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sylcol_format::collisionset::{Family, NameReading, padded_name_len};

    #[test]
    fn names_match_the_seed_families_and_byte_budget() {
        let names = all();
        assert_eq!(names.len(), 158);
        let mut counts = sylcol_format::collisionset::FamilyCounts::default();
        for n in &names {
            counts.add(NameReading::parse(&n.name).family);
        }
        assert_eq!(
            (counts.rou, counts.mob, counts.rob, counts.asteroid),
            (78, 30, 4, 46)
        );
        let budget: usize = names.iter().map(|n| padded_name_len(n.name.len())).sum();
        assert_eq!(budget, 3696);
        let mut seen = std::collections::HashSet::new();
        assert!(names.iter().all(|n| seen.insert(n.name.clone())));
        for example in [
            "rou_e101_bdy_cmesh",
            "rou_e101_brg_01_cmesh",
            "rou_e106_eng_cmesh",
            "rou_f104_sld_02_cmesh",
            "mob_n040_cmesh",
            "mob_n110_bdy_cmesh",
            "mob_n900_gear_cmesh",
            "rob_e001_cmesh",
            "rob_e005_bdy_cmesh",
            "rob_f001_bdy_cmesh",
            "rob_f002_cmesh",
            "S01_Asteroid_cmesh_01a",
            "S14_p1_Asteroid_cmesh_05",
            "rou_e901_wing_01_L_cmesh",
            "rou_e303_wep_cmesh",
            "rou_f301_body_cmesh",
        ] {
            assert!(seen.contains(example), "{example}");
        }
        assert_eq!(NameReading::parse("rou_e303_wep_cmesh").family, Family::Rou);
    }
}
