//! `cargo xtask cycles [CRATE...]`: the import cycles among a crate's
//! modules.
//!
//! Each module (a file under `src/`, or an inline `mod name { ... }` such
//! as a file's tests) is a node; each path a module names that starts
//! with `crate::`, `super::`, `self::` or the name of one of its child
//! modules (in a `use`, grouped or not, or in the code) is an edge to the
//! deepest module it names. A path through
//! a re-export counts as an edge to the module that re-exports, so an
//! import through the crate root's `pub use` ties a module to the root.
//! Declaring a child (`mod x;`) is not an import. The cycles are the
//! strongly connected components of more than one module.
//!
//! A module that calls a method defined in another file's `impl` block
//! imports nothing: such a dependency is not seen (keep a type's `impl`
//! blocks with the type, or below the modules that use them).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// A crate's modules and the modules each imports.
#[derive(Debug, Default)]
pub struct Graph {
    /// Module path (`""` for the crate root) -> the modules it imports.
    pub edges: BTreeMap<String, BTreeSet<String>>,
}

/// Prints the cycles of each crate folder given (default: sylcol and
/// the query engine) and fails when one has any; with `--report`, prints them and
/// succeeds.
pub fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    let report = args.iter().any(|a| a == "--report");
    let mut crates: Vec<PathBuf> = args
        .iter()
        .filter(|a| *a != "--report")
        .map(PathBuf::from)
        .collect();
    if crates.is_empty() {
        crates = vec![root.join("crates/sylcol"), root.join("crates/sylcol-query")];
    }
    let mut found = 0;
    for dir in &crates {
        let cycles = cycles(&graph(dir)?);
        println!("{}: {} import cycle(s)", dir.display(), cycles.len());
        for c in &cycles {
            println!("  {}", c.join(" <-> "));
        }
        found += cycles.len();
    }
    if found > 0 && !report {
        bail!("{found} import cycle(s) among the modules");
    }
    Ok(())
}

/// The import graph of the crate in folder `dir` (its `src/lib.rs` or
/// `src/main.rs` and the modules below).
pub fn graph(dir: &Path) -> anyhow::Result<Graph> {
    let src = dir.join("src");
    let mut files = Vec::new();
    collect(&src, &mut files)?;
    let mut modules: BTreeSet<String> = BTreeSet::new();
    let mut parsed = Vec::new();
    for file in files {
        let name = module_of(&src, &file);
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        for (module, paths) in scan(&name, &text) {
            modules.insert(module.clone());
            parsed.push((module, paths));
        }
    }
    let mut g = Graph::default();
    for (module, paths) in parsed {
        let entry = g.edges.entry(module.clone()).or_default();
        for path in paths {
            if let Some(target) = resolve(&module, &path, &modules)
                && target != module
            {
                entry.insert(target);
            }
        }
    }
    Ok(g)
}

/// Every `.rs` file below `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    Ok(())
}

/// The module a file under `src` holds: `lib.rs` / `main.rs` the root
/// (`""`), `a/mod.rs` and `a.rs` module `a`, `a/b.rs` module `a::b`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The paths each module of a file names: the file's own module and each
/// inline `mod name { ... }` in it, with the paths of its lines (comments
/// left out, a `use` group expanded).
fn scan(module: &str, text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    out.insert(module.to_string(), Vec::new());
    // Open inline modules: (path, brace depth inside it).
    let mut stack: Vec<(String, i64)> = Vec::new();
    let mut depth: i64 = 0;
    let mut statement = String::new();
    for raw in text.lines() {
        let line = code_of(raw);
        let current = stack.last().map_or(module.to_string(), |(m, _)| m.clone());
        if let Some(name) = inline_module(&line) {
            let path = join(&current, &name);
            out.entry(path.clone()).or_default();
            depth += braces(&line);
            stack.push((path, depth));
            continue;
        }
        let t = line.trim();
        let opens_use = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .any(|u| t.starts_with(u));
        if !statement.is_empty() || (opens_use && !t.ends_with(';')) {
            // A `use` over several lines: read once whole.
            statement.push_str(&line);
            statement.push(' ');
            if t.ends_with(';') {
                out.entry(current.clone())
                    .or_default()
                    .extend(paths_in(&statement));
                statement.clear();
            }
        } else {
            out.entry(current.clone())
                .or_default()
                .extend(paths_in(&line));
        }
        depth += braces(&line);
        while stack.last().is_some_and(|(_, d)| depth < *d) {
            stack.pop();
        }
    }
    out.into_iter().collect()
}

/// A line without its `//` comment and without the contents of its
/// string and character literals.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => {
                    in_str = false;
                    out.push('"');
                }
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push('"');
            }
            '/' if chars.peek() == Some(&'/') => break,
            '\'' => {
                // A character literal ('x', '\n', '{'), or a lifetime.
                let rest: String = chars.clone().take(3).collect();
                if rest.chars().nth(1) == Some('\'') {
                    chars.nth(1);
                } else if rest.starts_with('\\') {
                    for d in chars.by_ref() {
                        if d == '\'' {
                            break;
                        }
                    }
                } else {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The name of an inline module the line opens (`mod tests {`).
fn inline_module(line: &str) -> Option<String> {
    let t = line.trim_start();
    let t = ["pub(crate) ", "pub(super) ", "pub "]
        .iter()
        .find_map(|v| t.strip_prefix(v))
        .unwrap_or(t);
    let rest = t.strip_prefix("mod ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (name, after) = rest.split_at(end);
    (!name.is_empty() && after.trim_start().starts_with('{')).then(|| name.to_string())
}

/// Opening minus closing braces.
fn braces(line: &str) -> i64 {
    line.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}::{b}")
    }
}

/// The paths of a statement (`a::b`, `crate::c`, ...), a `use` group
/// `p::{a, b::c}` expanded into `p::a`, `p::b::c`.
fn paths_in(statement: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes: Vec<char> = statement.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        let rest: String = bytes[i..].iter().collect();
        // `crate::`, `super::`, `self::` or any `name::` (a child module
        // when `resolve` finds one of that name).
        let word = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let is_path = word > 0
            && rest[word..].starts_with("::")
            && !rest.starts_with(|c: char| c.is_ascii_digit());
        if !(starts_word && is_path) || (i > 0 && matches!(bytes[i - 1], '$' | ':')) {
            i += 1;
            continue;
        }
        let (path, used) = path_at(&rest);
        out.extend(path);
        i += used.max(1);
    }
    out
}

/// The path(s) at the start of `s` and how many characters they take.
fn path_at(s: &str) -> (Vec<String>, usize) {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut prefix = String::new();
    loop {
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        prefix.extend(&chars[start..i]);
        if s[byte(&chars, i)..].starts_with("::{") {
            // A group: split its top-level items.
            let open = i + 3;
            let mut level = 1;
            let mut j = open;
            while j < chars.len() && level > 0 {
                match chars[j] {
                    '{' => level += 1,
                    '}' => level -= 1,
                    _ => {}
                }
                j += 1;
            }
            let inner: String = chars[open..j.saturating_sub(1)].iter().collect();
            let mut out = Vec::new();
            for item in split_top(&inner) {
                let item = item.trim();
                if item.is_empty() || item == "self" || item == "*" {
                    out.push(prefix.clone());
                    continue;
                }
                let (sub, _) = path_at(item);
                out.extend(sub.into_iter().map(|p| format!("{prefix}::{p}")));
            }
            return (out, j);
        }
        if s[byte(&chars, i)..].starts_with("::")
            && chars
                .get(i + 2)
                .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            prefix.push_str("::");
            i += 2;
            continue;
        }
        return (vec![prefix], i);
    }
}

/// The byte offset of character `i`.
fn byte(chars: &[char], i: usize) -> usize {
    chars[..i.min(chars.len())]
        .iter()
        .map(|c| c.len_utf8())
        .sum()
}

/// Splits a `use` group's items at its top-level commas.
fn split_top(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut level = 0;
    for c in s.chars() {
        match c {
            '{' => level += 1,
            '}' => level -= 1,
            ',' if level == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

/// The deepest module of `modules` a path named in module `from` reaches.
fn resolve(from: &str, path: &str, modules: &BTreeSet<String>) -> Option<String> {
    let mut parts = path.split("::").map(str::trim).filter(|p| !p.is_empty());
    let mut at: Vec<String> = match parts.next()? {
        "crate" => Vec::new(),
        "self" => split(from),
        "super" => {
            let mut m = split(from);
            m.pop()?;
            m
        }
        // A path relative to the module: its child of that name.
        child if modules.contains(&join(from, child)) => {
            let mut m = split(from);
            m.push(child.to_string());
            m
        }
        _ => return None,
    };
    for part in parts {
        if part == "super" {
            at.pop()?;
            continue;
        }
        let next = if at.is_empty() {
            part.to_string()
        } else {
            format!("{}::{part}", at.join("::"))
        };
        if !modules.contains(&next) {
            break;
        }
        at.push(part.to_string());
    }
    Some(at.join("::"))
}

fn split(module: &str) -> Vec<String> {
    if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").map(String::from).collect()
    }
}

/// The strongly connected components of more than one module, each
/// sorted, in order (Tarjan's algorithm).
pub fn cycles(g: &Graph) -> Vec<Vec<String>> {
    let names: Vec<&String> = g.edges.keys().collect();
    let index: BTreeMap<&String, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = names
        .iter()
        .map(|n| {
            g.edges[*n]
                .iter()
                .filter_map(|t| index.get(t).copied())
                .collect()
        })
        .collect();
    let mut t = Tarjan {
        adj: &adj,
        index: vec![None; adj.len()],
        low: vec![0; adj.len()],
        on_stack: vec![false; adj.len()],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..adj.len() {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    let mut out: Vec<Vec<String>> = t
        .out
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut names: Vec<String> = c.into_iter().map(|v| display(names[v])).collect();
            names.sort();
            names
        })
        .collect();
    out.sort();
    out
}

fn display(module: &str) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.to_string()
    }
}

struct Tarjan<'a> {
    adj: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    out: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in &self.adj[v] {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.out.push(component);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace")
            .to_path_buf()
    }

    /// The query engine's modules import only downwards: no cycle.
    #[test]
    fn the_query_engine_has_no_import_cycle() {
        let g = graph(&workspace().join("crates/sylcol-query")).unwrap();
        assert!(g.edges.len() > 40, "{} modules", g.edges.len());
        assert_eq!(cycles(&g), Vec::<Vec<String>>::new());
    }

    /// The engine's floors import only downwards: geometry, kernels,
    /// the errors and query shapes, the indexes, the collider (tests and
    /// fixtures aside).
    #[test]
    fn the_query_engine_imports_only_downwards() {
        const FLOORS: [&[&str]; 5] = [
            &["geometry"],
            &["kernels"],
            &["error", "query"],
            &["index"],
            &["collider"],
        ];
        let floor = |m: &str| {
            let top = m.split("::").next().unwrap_or("");
            FLOORS.iter().position(|f| f.contains(&top))
        };
        let g = graph(&workspace().join("crates/sylcol-query")).unwrap();
        let mut checked = 0;
        for (from, targets) in &g.edges {
            if from
                .split("::")
                .any(|p| p == "tests" || p.ends_with("_tests"))
            {
                continue;
            }
            let Some(mine) = floor(from) else { continue };
            for to in targets {
                if let Some(theirs) = floor(to) {
                    assert!(
                        theirs <= mine,
                        "{from} (floor {mine}) imports {to} (floor {theirs})"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked} imports");
    }

    /// No module of sylcol imports one that imports it back (the shared
    /// types of `import`, `topology`, `source` and `report` live in leaf
    /// modules below both users).
    #[test]
    fn sylcol_has_no_import_cycle() {
        let g = graph(&workspace().join("crates/sylcol")).unwrap();
        assert_eq!(cycles(&g), Vec::<Vec<String>>::new());
    }

    /// Groups, `super`, inline modules and comments are read as they
    /// should be; a cycle is found, and the declaration of a child is no
    /// import.
    #[test]
    fn a_small_crate_is_read() {
        let dir = std::env::temp_dir().join(format!("xtask-cycles-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("a")).unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "mod a;\nmod b;\n// use crate::b::Z;\npub use a::X;\n",
        )
        .unwrap();
        std::fs::write(
            src.join("a/mod.rs"),
            "mod c;\npub struct X;\nuse crate::{b::{Y, self}, a::c};\n",
        )
        .unwrap();
        std::fs::write(src.join("a/c.rs"), "use super::super::b::Y;\n").unwrap();
        std::fs::write(
            src.join("b.rs"),
            "pub struct Y;\nfn f() { let _ = \"crate::a\"; }\n#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n",
        )
        .unwrap();
        let g = graph(&dir).unwrap();
        let edges = |m: &str| g.edges[m].iter().cloned().collect::<Vec<_>>();
        assert_eq!(edges(""), ["a"]);
        assert_eq!(edges("a"), ["a::c", "b"]);
        assert_eq!(edges("a::c"), ["b"]);
        assert_eq!(edges("b"), Vec::<String>::new());
        assert_eq!(edges("b::tests"), ["a"]);
        assert!(cycles(&g).is_empty());
        std::fs::write(src.join("b.rs"), "use crate::a::X;\n").unwrap();
        let g = graph(&dir).unwrap();
        assert_eq!(cycles(&g), [["a", "a::c", "b"]]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
