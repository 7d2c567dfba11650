//! sylcol's command-line tests: the real binary, run on files the tests
//! make, one module per area, in one test binary (ripgrep's layout: one
//! link instead of one per file), all through [`common`].

#![forbid(unsafe_code)]

#[macro_use]
mod common;

mod bombs;
mod cli_build;
mod cli_build_collisionset;
mod cli_io;
mod cli_mcol;
mod cli_query;
mod cli_samples;
mod cli_verify;
mod cli_viewer;
mod collisionset_cli;
mod costly;
mod doc_links;
mod hostile;
mod journals;
mod json_output;
mod limits;
mod mod_workflow;
mod names;
mod names_follow;
mod nonmanifold_parts;
mod outputs;
mod pairs;
mod pak;
mod pak_layout;
mod readable;
mod readable_export;
mod readme;
mod regn_idxd;
mod samples_names;
mod serve_limits;
mod wrong_file;
