//! `cargo xtask`: repository chores. `cargo xtask samples` regenerates the
//! synthetic sample corpus in `samples/`.

mod library;
mod maps;
mod names;
mod shapes;

fn main() -> anyhow::Result<()> {
    Ok(())
}
