//! Writing outputs safely: a temporary file beside the target, then rename,
//! so an interrupted run never leaves a half-written file in place of the
//! user's; and names joined under an output folder only when they stay in it.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, bail};

/// Writes `bytes` to `path` through a temporary file in the same folder.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], letting `fill` stream the contents.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .with_context(|| format!("{}: not a file path", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.sylcol-tmp-{}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> std::io::Result<()> {
        let f = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::new(f);
        fill(&mut w)?;
        w.flush()?;
        w.get_ref().sync_all()
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("{}: cannot write", path.display()));
    }
    std::fs::rename(&tmp, path)
        .with_context(|| format!("{}: cannot rename into place", path.display()))
}

/// Whether an output path means standard output (`-`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Writes `bytes` to standard output for `-`, else like [`write_atomic`].
pub fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if is_stdout(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        return Ok(out.flush()?);
    }
    write_atomic(path, bytes)
}

/// Joins a relative `name` (from an archive or a model) under `root`,
/// refusing names that would leave it: `..`, absolute paths, drive letters.
pub fn join_inside(root: &Path, name: &str) -> anyhow::Result<PathBuf> {
    let normalised = name.replace('\\', "/");
    if normalised.starts_with('/') || normalised.as_bytes().get(1) == Some(&b':') {
        bail!(
            "{name}: refused, an absolute path or drive letter would write outside {}",
            root.display()
        );
    }
    let mut out = root.to_path_buf();
    for part in Path::new(&normalised).components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => bail!(
                "{name}: refused, the name would write outside {}",
                root.display()
            ),
        }
    }
    if out == root {
        bail!("{name}: refused, an empty name");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_refuses_escapes() {
        let root = Path::new("/tmp/out");
        assert_eq!(
            join_inside(root, "a\\b.bin").unwrap(),
            Path::new("/tmp/out/a/b.bin")
        );
        for bad in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "\\x",
            "C:\\x",
            "c:x",
            "",
        ] {
            assert!(join_inside(root, bad).is_err(), "{bad}");
        }
    }
}
