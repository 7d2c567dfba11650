//! `cargo xtask`: repository chores. `cargo xtask samples` regenerates the
//! synthetic sample corpus in `samples/`.

mod maps;
mod shapes;

fn main() -> anyhow::Result<()> {
    Ok(())
}
