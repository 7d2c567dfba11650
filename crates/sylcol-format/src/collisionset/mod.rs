//! CollisionSet — the per-part collision-mesh library (spec: `docs/formats/collisionset.md`).
