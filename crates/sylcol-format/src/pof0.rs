//! POF0 relocation tables (spec: `docs/formats/pof0.md`). In progress.
