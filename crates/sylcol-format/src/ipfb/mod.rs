//! IPFB archives: `.pak` index, `.pNN` parts, Z1 compression and entry names (spec: `docs/formats/ipfb.md`).
