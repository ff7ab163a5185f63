//! The scanned tree: every .rs file under src/ with the paths it names resolved to modules,
//! and the line counts of the files under src/ and tests/.

use crate::tokens::{find_paths, tokenize_with_lines, Tok};
use std::fs;
use std::path::{Path, PathBuf};

/// One path a file names, resolved to a module path under the crate root.
pub struct Ref {
    /// e.g. ["ibench", "result", "TARGET_SHARE"]
    pub module: Vec<String>,
    /// As written, groups expanded: "crate::ibench::result::TARGET_SHARE"
    pub text: String,
}

pub struct SourceFile {
    /// Relative to the scanned root, with '/': "src/report/background.rs"
    pub rel: String,
    pub refs: Vec<Ref>,
    /// The code without comments and literals, and the line each token starts on.
    pub toks: Vec<Tok>,
    pub tok_lines: Vec<usize>,
}

impl SourceFile {
    /// The first path component under src/; None for the crate roots lib.rs and main.rs.
    pub fn stage(&self) -> Option<&str> {
        let under = self.rel.strip_prefix("src/")?;
        match under.split_once('/') {
            Some((dir, _)) => Some(dir),
            None if under == "lib.rs" || under == "main.rs" => None,
            None => under.strip_suffix(".rs"),
        }
    }

    /// The module path this file defines; None for the crate roots.
    pub fn module(&self) -> Option<Vec<String>> {
        self.stage().map(|_| module_of(&self.rel))
    }

    /// The references to other stages, each with the stage it names.
    pub fn stage_refs(&self) -> impl Iterator<Item = (&str, &Ref)> {
        let own = self.stage();
        self.refs.iter().filter_map(move |r| {
            let to = r.module.first()?.as_str();
            (Some(to) != own).then_some((to, r))
        })
    }

    /// Folder of this file's child modules: a mod.rs's own folder, else src/a/b/ for src/a/b.rs.
    pub fn child_dir(&self) -> String {
        match self.rel.strip_suffix("mod.rs") {
            Some(dir) => dir.to_string(),
            None => format!("{}/", self.rel.trim_end_matches(".rs")),
        }
    }
}

/// Every .rs file under `dir` and its folders, except under `skip`, sorted by path.
fn rs_files(dir: &Path, skip: Option<&Path>) -> Vec<PathBuf> {
    let (mut dirs, mut paths) = (vec![dir.to_path_buf()], Vec::new());
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if Some(path.as_path()) == skip {
                continue;
            } else if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap().display().to_string()
}

/// Reads every .rs file under `root`/src, sorted by path.
pub fn scan(root: &Path) -> Vec<SourceFile> {
    let paths = rs_files(&root.join("src"), None);
    paths.iter().map(|path| read_source(root, path)).collect()
}

fn read_source(root: &Path, path: &Path) -> SourceFile {
    let rel = relative(root, path);
    let (toks, tok_lines) = tokenize_with_lines(&read(path));
    let module = module_of(&rel);
    let mut refs = Vec::new();
    for (written, inline) in find_paths(&toks) {
        if let Some(module) = resolve(&module, &written, inline) {
            let text = written.join("::");
            refs.push(Ref { module, text });
        }
    }
    SourceFile {
        rel,
        refs,
        toks,
        tok_lines,
    }
}

/// Each .rs file under `root`/src and `root`/tests with its number of lines; tests/data
/// holds fixtures, not the project's code, and is left out.
pub fn line_counts(root: &Path) -> Vec<(String, usize)> {
    let tests = root.join("tests");
    let mut paths = rs_files(&root.join("src"), None);
    if tests.is_dir() {
        paths.extend(rs_files(&tests, Some(&tests.join("data"))));
    }
    let count = |path: &PathBuf| (relative(root, path), read(path).lines().count());
    paths.iter().map(count).collect()
}

/// The module path a file defines: src/a/b.rs and src/a/b/mod.rs -> [a, b].
/// (Never asked of the crate roots.)
pub fn module_of(rel: &str) -> Vec<String> {
    let under = rel.trim_start_matches("src/").trim_end_matches(".rs");
    let under = under.strip_suffix("/mod").unwrap_or(under);
    under.split('/').map(String::from).collect()
}

/// The module path under the crate root a written path names, from a file defining `module`;
/// None when `super` stays inside this file (an inline module) or climbs above the crate.
pub fn resolve(module: &[String], written: &[String], inline_mods: usize) -> Option<Vec<String>> {
    if matches!(written.first()?.as_str(), "crate" | "psbench") {
        return Some(written[1..].to_vec());
    }
    let supers = written.iter().take_while(|w| *w == "super").count();
    let climb = supers.checked_sub(inline_mods).filter(|&c| c > 0)?;
    let keep = module.len().checked_sub(climb)?;
    let mut path = module[..keep].to_vec();
    path.extend_from_slice(&written[supers..]);
    Some(path)
}
