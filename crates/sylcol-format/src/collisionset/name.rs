//! Reading a record name as a game resource id.
//!
//! The seed reads a ship / mob / robot entry as `<GameResourceID>[_<part>]_cmesh`
//! (e.g. `rou_e101_brg_01_cmesh`: resource `rou_e101`, part `brg_01`, a
//! bridge) and the asteroid entries as stage meshes
//! (`S14_p1_Asteroid_cmesh_05`: stage `S14_p1`, asteroid `05`). The part
//! words `bdy`, `brg`, `eng`, `wep`, `sld` are the XBG7 render models'
//! sub-part vocabulary; other words (`wing`, `gear`, `body`) occur and are
//! kept as text.

/// The four name families of the seed, and everything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// `rou_...` (the seed's 78).
    Rou,
    /// `mob_...` (30).
    Mob,
    /// `rob_...` (4).
    Rob,
    /// Stage asteroids, `Snn[_pN]_Asteroid_cmesh_...` (46).
    Asteroid,
    /// A name in none of the seed's families.
    Other,
}

impl Family {
    /// The label used in reports: `rou_`, `mob_`, `rob_`, `asteroid`, `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Rou => "rou_",
            Family::Mob => "mob_",
            Family::Rob => "rob_",
            Family::Asteroid => "asteroid",
            Family::Other => "other",
        }
    }
}

/// How many names fall in each family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FamilyCounts {
    /// `rou_` names.
    pub rou: usize,
    /// `mob_` names.
    pub mob: usize,
    /// `rob_` names.
    pub rob: usize,
    /// Stage asteroid names.
    pub asteroid: usize,
    /// Names in no family.
    pub other: usize,
}

impl FamilyCounts {
    /// Counts one name of `family`.
    pub fn add(&mut self, family: Family) {
        match family {
            Family::Rou => self.rou += 1,
            Family::Mob => self.mob += 1,
            Family::Rob => self.rob += 1,
            Family::Asteroid => self.asteroid += 1,
            Family::Other => self.other += 1,
        }
    }
}

/// The seed's sub-part vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartKind {
    /// `bdy`: body.
    Body,
    /// `brg`: bridge.
    Bridge,
    /// `eng`: engine.
    Engine,
    /// `wep`: weapon.
    Weapon,
    /// `sld`: shield.
    Shield,
}

impl PartKind {
    /// The part for a name word (`bdy`, `brg`, `eng`, `wep`, `sld`).
    pub fn from_code(code: &str) -> Option<PartKind> {
        Some(match code {
            "bdy" => PartKind::Body,
            "brg" => PartKind::Bridge,
            "eng" => PartKind::Engine,
            "wep" => PartKind::Weapon,
            "sld" => PartKind::Shield,
            _ => return None,
        })
    }

    /// The name word for this part.
    pub fn code(self) -> &'static str {
        match self {
            PartKind::Body => "bdy",
            PartKind::Bridge => "brg",
            PartKind::Engine => "eng",
            PartKind::Weapon => "wep",
            PartKind::Shield => "sld",
        }
    }

    /// What the word stands for: body, bridge, engine, weapon, shield.
    pub fn meaning(self) -> &'static str {
        match self {
            PartKind::Body => "body",
            PartKind::Bridge => "bridge",
            PartKind::Engine => "engine",
            PartKind::Weapon => "weapon",
            PartKind::Shield => "shield",
        }
    }
}

/// The suffix the seed's reading puts after a resource entry's stem.
pub const CMESH_SUFFIX: &str = "_cmesh";

/// A name read the seed's way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameReading {
    /// The family of the name.
    pub family: Family,
    /// The name without a trailing `_cmesh`.
    pub stem: String,
    /// Whether the name ends in `_cmesh`.
    pub cmesh_suffix: bool,
    /// For `rou_` / `mob_` / `rob_`: the GameResourceID (`rou_e101`).
    pub resource_id: Option<String>,
    /// For resources: what follows the id in the stem (`brg_01`, `wing_01_L`).
    pub part: Option<String>,
    /// The part's first word in the seed's vocabulary, when it is one.
    pub part_kind: Option<PartKind>,
    /// For asteroids: the stage prefix (`S01`, `S14_p1`).
    pub stage: Option<String>,
    /// For asteroids: what follows `_cmesh_` (`01a`, `05`).
    pub asteroid: Option<String>,
}

impl NameReading {
    /// Reads `name`. Never fails: a name in no family reads as
    /// [`Family::Other`] with only the stem filled in.
    pub fn parse(name: &str) -> NameReading {
        let (stem, cmesh_suffix) = match name.strip_suffix(CMESH_SUFFIX) {
            Some(s) if !s.is_empty() => (s, true),
            _ => (name, false),
        };
        let mut reading = NameReading {
            family: Family::Other,
            stem: stem.to_string(),
            cmesh_suffix,
            resource_id: None,
            part: None,
            part_kind: None,
            stage: None,
            asteroid: None,
        };
        if let Some((stage, rest)) = split_asteroid(name) {
            reading.family = Family::Asteroid;
            reading.stage = Some(stage.to_string());
            reading.asteroid = Some(rest.to_string());
            return reading;
        }
        let family = match stem.get(..4) {
            Some("rou_") => Family::Rou,
            Some("mob_") => Family::Mob,
            Some("rob_") => Family::Rob,
            _ => return reading,
        };
        let mut words = stem.splitn(3, '_');
        let (prefix, id) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        if id.is_empty() {
            return reading;
        }
        reading.family = family;
        reading.resource_id = Some(format!("{prefix}_{id}"));
        if let Some(part) = words.next().filter(|p| !p.is_empty()) {
            reading.part_kind = part.split('_').next().and_then(PartKind::from_code);
            reading.part = Some(part.to_string());
        }
        reading
    }
}

/// `Snn[_pN]_Asteroid_cmesh_X` -> (`Snn[_pN]`, `X`); `Asteroid` matched
/// without regard to case.
fn split_asteroid(name: &str) -> Option<(&str, &str)> {
    let lower = name.to_ascii_lowercase();
    let at = lower.find("_asteroid_cmesh")?;
    let stage = &name[..at];
    let rest = name[at + "_asteroid_cmesh".len()..].trim_start_matches('_');
    let b = stage.as_bytes();
    let stage_ok =
        b.len() >= 3 && (b[0] == b'S' || b[0] == b's') && b[1..3].iter().all(u8::is_ascii_digit);
    stage_ok.then_some((stage, rest))
}

/// The name field length the encoder uses for a name of `len` bytes: the
/// name plus at least one NUL, rounded up to a multiple of 8. Whether the
/// original serialiser always leaves a NUL is open (no seen name can tell).
pub const fn padded_name_len(len: usize) -> usize {
    (len + 1).div_ceil(8) * 8
}
