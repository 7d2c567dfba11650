//! sylcol's library tests on meshes and files they make (the ray
//! queries' watertightness in [`watertight`]): one module per area in
//! one test binary, linked once, all through [`common`].

mod common;

mod build_collisionset;
mod build_mcol;
mod build_then_verify;
mod far_points;
mod import;
mod json_schemas;
mod nonmanifold_parts;
mod rebuild_queries;
mod topology_props;
mod verify_ids;
mod verify_mcol;
mod watertight;
