//! Every relative link of the repository's Markdown resolves: the file (or
//! folder) it names exists, and a `#fragment` names a heading of the page
//! it points into, by GitHub's rule for heading anchors. Links with a
//! scheme (`https:`, `mailto:`) are not followed; code blocks and code
//! spans are not read.
//!
//! `cargo test -p sylcol-cli --test cli doc_links`

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Folders never searched for Markdown: build output, installed packages,
/// fuzzing data.
const SKIPPED_DIRS: &[&str] = &["target", "node_modules", ".git", "fuzz"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every `.md` file under `dir`, skipping [`SKIPPED_DIRS`].
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let name = entry.file_name();
        if entry.file_type().unwrap().is_dir() {
            if !SKIPPED_DIRS.iter().any(|s| name == *s) {
                markdown_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The page's lines outside fenced code blocks, with code spans blanked.
fn prose_lines(text: &str) -> Vec<String> {
    let mut fence: Option<&str> = None;
    let mut lines = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => lines.push(without_code_spans(line)),
            _ => {}
        }
    }
    lines
}

/// `line` with every `` `code` `` span replaced by spaces.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else {
            out.push(if in_code { ' ' } else { c });
        }
    }
    out
}

/// The destinations of the inline links and images `[..](dest)` and the
/// reference definitions `[name]: dest` on one line.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some(end) = trimmed.find("]:")
        && let Some(dest) = trimmed[end + 2..].split_whitespace().next()
    {
        targets.push(dest.trim_matches(|c| c == '<' || c == '>').to_string());
    }
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = i;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let dest = after[..end].split_whitespace().next().unwrap_or("");
        targets.push(dest.trim_matches(|c| c == '<' || c == '>').to_string());
        rest = &after[end.min(after.len())..];
    }
    targets
}

/// GitHub's anchor for a heading's text: inline markup dropped, lower
/// case, letters, digits, `-` and `_` kept, spaces made `-`, everything
/// else dropped.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // A link's text stands for the link.
    while let Some(open) = rest.find('[') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(close), Some(paren)) if paren > close => {
                text.push_str(&after[..close]);
                rest = &after[paren + 1..];
            }
            _ => {
                text.push('[');
                rest = after;
            }
        }
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a page's headings, numbered `-1`, `-2`... when repeated.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(m) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            fence = match fence {
                None => Some(m),
                Some(open) if open == m => None,
                other => other,
            };
            continue;
        }
        if fence.is_some() {
            continue;
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&level) && line[level..].starts_with(' ') {
            let base = slug(line[level..].trim().trim_end_matches('#'));
            let n = seen.entry(base.clone()).or_insert(0);
            out.insert(if *n == 0 {
                base.clone()
            } else {
                format!("{base}-{n}")
            });
            *n += 1;
        }
    }
    out
}

/// Every broken relative link of the repository's Markdown, as
/// `page: target (why)`.
fn broken_links(root: &Path) -> Vec<String> {
    let mut pages = Vec::new();
    markdown_files(root, &mut pages);
    pages.sort();
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let shown = page.strip_prefix(root).unwrap().display().to_string();
        for line in prose_lines(&text) {
            for target in link_targets(&line) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, fragment) = match target.split_once('#') {
                    Some((p, f)) => (p, Some(f)),
                    None => (target.as_str(), None),
                };
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(path)
                };
                if !file.exists() {
                    broken.push(format!("{shown}: {target} (no such file)"));
                    continue;
                }
                let Some(fragment) = fragment else { continue };
                if file.extension().is_none_or(|e| e != "md") {
                    broken.push(format!(
                        "{shown}: {target} (an anchor into a non-Markdown file)"
                    ));
                } else if !anchors(&std::fs::read_to_string(&file).unwrap()).contains(fragment) {
                    broken.push(format!("{shown}: {target} (no such heading)"));
                }
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_markdown_resolves() {
    let root = root();
    let broken = broken_links(&root);
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_check_reads_the_pages_it_should() {
    let mut pages = Vec::new();
    markdown_files(&root(), &mut pages);
    let root = root();
    for page in [
        "README.md",
        "DEVELOPERS.md",
        "benches/README.md",
        "docs/queries.md",
    ] {
        assert!(pages.contains(&root.join(page)), "{page} not searched");
    }
    assert!(
        !pages
            .iter()
            .any(|p| p.components().any(|c| c.as_os_str() == "target"))
    );
}

#[test]
fn slugs_follow_githubs_rule() {
    assert_eq!(slug("`sylcol build mcol`"), "sylcol-build-mcol");
    assert_eq!(
        slug("Choosing a grid and an acceleration"),
        "choosing-a-grid-and-an-acceleration"
    );
    assert_eq!(slug("Blender, checked"), "blender-checked");
    assert_eq!(slug("The viewer's frame time"), "the-viewers-frame-time");
    assert_eq!(
        slug("Seeing the data: glTF layers, `sylcol serve`"),
        "seeing-the-data-gltf-layers-sylcol-serve"
    );
    assert_eq!(slug("IDXD / IXUD"), "idxd--ixud");
    assert_eq!(slug("MCOL — a map's hull"), "mcol--a-maps-hull");
    assert_eq!(slug("See [the page](x.md) here"), "see-the-page-here");
    let page = "# A\n## B\n```\n## not a heading\n```\n## B\n";
    let found = anchors(page);
    assert_eq!(found, ["a", "b", "b-1"].map(String::from).into());
}

#[test]
fn links_are_found_outside_code_only() {
    let page =
        "see [a](a.md#x) and `[b](b.md)`\n```\n[c](c.md)\n```\n![img](img/p.png)\n[ref]: r.md\n";
    let targets: Vec<String> = prose_lines(page)
        .iter()
        .flat_map(|l| link_targets(l))
        .collect();
    assert_eq!(targets, ["a.md#x", "img/p.png", "r.md"]);
    assert_eq!(link_targets("[x](f(1).md \"title\")"), ["f(1).md"]);
}
