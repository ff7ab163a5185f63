//! Architecture test: which stage (top-level module under src/) may import which, no import
//! cycles between stages or between files, and no file over 600 lines.
//!
//! A text scan, not a Rust parser: comments and string literals are blanked out, then every
//! `crate::`, `psbench::` and `super::` path is read. The checker itself is tested on the
//! fixture tree under tests/data/architecture/, which breaks every rule on purpose.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::Path;

/// Longest a file under src/ may be, in lines.
const MAX_LINES: usize = 600;

/// A set of stages.
enum Stages {
    All,
    Only(&'static [&'static str]),
    AllBut(&'static [&'static str]),
}
use Stages::{All, AllBut, Only};

impl Stages {
    fn contains(&self, stage: &str) -> bool {
        match self {
            All => true,
            Only(list) => list.contains(&stage),
            AllBut(list) => !list.contains(&stage),
        }
    }
}

/// What a stage may import (besides `SHARED` and itself), and who may import it.
struct Rule {
    stage: &'static str,
    imports: Stages,
    imported_by: Stages,
}

/// Not a pipeline stage but a shared leaf: anyone may import it.
const SHARED: &str = "error";

/// THE stage rules, kept only here: the README's "Layout" section points to this list.
/// A new top-level module under src/ fails the test until it has a rule here.
#[rustfmt::skip]
const RULES: &[Rule] = &[
    // The top: parses arguments and may call into anything; nothing else imports it.
    Rule { stage: "cli", imports: All, imported_by: Only(&[]) },
    Rule { stage: "console", imports: All, imported_by: Only(&["cli"]) },
    Rule { stage: "connection", imports: Only(&[]), imported_by: All },
    Rule { stage: "driver", imports: All, imported_by: All },
    // The shared leaf imports no stage.
    Rule { stage: "error", imports: Only(&[]), imported_by: All },
    Rule { stage: "ibench", imports: All, imported_by: All },
    Rule { stage: "probes", imports: All, imported_by: All },
    Rule { stage: "profile", imports: All, imported_by: All },
    Rule { stage: "report", imports: Only(&["results", "stats"]), imported_by: All },
    Rule { stage: "results", imports: Only(&[]), imported_by: All },
    Rule { stage: "server", imported_by: All,
           imports: AllBut(&["workloads", "driver", "study", "cli", "console", "report"]) },
    Rule { stage: "stats", imports: Only(&[]), imported_by: All },
    Rule { stage: "study", imports: All, imported_by: All },
    Rule { stage: "workloads", imported_by: All,
           imports: AllBut(&["study", "report", "server", "driver", "cli", "console"]) },
];

fn rule(stage: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.stage == stage)
}

/// Whether stage `from` may import stage `to`; both have rules and differ.
fn may_import(from: &Rule, to: &Rule) -> bool {
    (to.stage == SHARED || from.imports.contains(to.stage)) && to.imported_by.contains(from.stage)
}

/// Node -> the nodes it imports.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// One path a file names, resolved to a module path under the crate root.
struct Ref {
    /// e.g. ["ibench", "result", "TARGET_SHARE"]
    module: Vec<String>,
    /// As written, groups expanded: "crate::ibench::result::TARGET_SHARE"
    text: String,
}

struct SourceFile {
    /// Relative to the scanned root, with '/': "src/report/background.rs"
    rel: String,
    lines: usize,
    refs: Vec<Ref>,
}

impl SourceFile {
    /// The first path component under src/; None for the crate roots lib.rs and main.rs.
    fn stage(&self) -> Option<&str> {
        let under = self.rel.strip_prefix("src/")?;
        match under.split_once('/') {
            Some((dir, _)) => Some(dir),
            None if under == "lib.rs" || under == "main.rs" => None,
            None => under.strip_suffix(".rs"),
        }
    }

    /// The references to other stages, each with the stage it names.
    fn stage_refs(&self) -> impl Iterator<Item = (&str, &Ref)> {
        let own = self.stage();
        self.refs.iter().filter_map(move |r| {
            let to = r.module.first()?.as_str();
            (Some(to) != own).then_some((to, r))
        })
    }

    /// Folder of this file's child modules: a mod.rs's own folder, else src/a/b/ for src/a/b.rs.
    fn child_dir(&self) -> String {
        match self.rel.strip_suffix("mod.rs") {
            Some(dir) => dir.to_string(),
            None => format!("{}/", self.rel.trim_end_matches(".rs")),
        }
    }
}

/// Reads every .rs file under `root`/src, sorted by path.
fn scan(root: &Path) -> Vec<SourceFile> {
    let (mut dirs, mut paths) = (vec![root.join("src")], Vec::new());
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths.iter().map(|path| read_source(root, path)).collect()
}

fn read_source(root: &Path, path: &Path) -> SourceFile {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rel = path.strip_prefix(root).unwrap().display().to_string();
    let (lines, module) = (text.lines().count(), module_of(&rel));
    let mut refs = Vec::new();
    for (written, inline) in find_paths(&tokenize(&text)) {
        if let Some(module) = resolve(&module, &written, inline) {
            let text = written.join("::");
            refs.push(Ref { module, text });
        }
    }
    SourceFile { rel, lines, refs }
}

/// The module path a file defines: src/a/b.rs and src/a/b/mod.rs -> [a, b].
/// (Never asked of the crate roots.)
fn module_of(rel: &str) -> Vec<String> {
    let under = rel.trim_start_matches("src/").trim_end_matches(".rs");
    let under = under.strip_suffix("/mod").unwrap_or(under);
    under.split('/').map(String::from).collect()
}

/// If a comment or literal starts at `i`, the index just past it.
fn skip_end(c: &[char], i: usize) -> Option<usize> {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let find_from = |k: usize, pat: &dyn Fn(usize) -> bool| (k..c.len()).find(|&j| pat(j));
    match (at(i), at(i + 1)) {
        ('/', '/') => Some(find_from(i, &|j| c[j] == '\n').unwrap_or(c.len())),
        ('/', '*') => {
            let (mut depth, mut j) = (0usize, i);
            while j < c.len() {
                match (at(j), at(j + 1)) {
                    ('/', '*') => (depth, j) = (depth + 1, j + 2),
                    ('*', '/') if depth == 1 => return Some(j + 2),
                    ('*', '/') => (depth, j) = (depth - 1, j + 2),
                    _ => j += 1,
                }
            }
            Some(c.len())
        }
        ('"', _) => {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            Some((j + 1).min(c.len()))
        }
        // A raw string r"..", r#".."#, br#".."#, not the tail of an identifier.
        ('r' | 'b', _) if i == 0 || !is_ident(c[i - 1]) => {
            let r = if at(i) == 'b' { i + 1 } else { i };
            let hashes = (r + 1..c.len()).take_while(|&j| c[j] == '#').count();
            if at(r) != 'r' || at(r + 1 + hashes) != '"' {
                return None;
            }
            let closes = |j: usize| c[j] == '"' && (1..=hashes).all(|h| at(j + h) == '#');
            let end = find_from(r + 2 + hashes, &closes).map_or(c.len(), |j| j + 1 + hashes);
            Some(end)
        }
        // A char literal ('x', '\n', '\''), not a lifetime ('a).
        ('\'', '\\') => find_from(i + 3, &|j| c[j] == '\'').map(|j| j + 1),
        ('\'', _) if at(i + 2) == '\'' => Some(i + 3),
        _ => None,
    }
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    /// `::`
    Sep,
    Punct(char),
}

/// Words, `::` and punctuation, without comments (line, nested block, doc) and string and
/// char literals, so that a path inside them is not read as code.
fn tokenize(code: &str) -> Vec<Tok> {
    let c: Vec<char> = code.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if let Some(end) = skip_end(&c, i) {
            i = end;
        } else if is_ident(c[i]) {
            let start = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            toks.push(Tok::Word(c[start..i].iter().collect()));
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            toks.push(Tok::Sep);
            i += 2;
        } else {
            if !c[i].is_whitespace() {
                toks.push(Tok::Punct(c[i]));
            }
            i += 1;
        }
    }
    toks
}

/// Every path starting with `crate::`, `psbench::` or `super::`, groups expanded into one path
/// per name, each with how many inline `mod x { .. }` blocks it sits in.
fn find_paths(toks: &[Tok]) -> Vec<(Vec<String>, usize)> {
    let anchor = |w: &str| matches!(w, "crate" | "psbench" | "super");
    let mut found = Vec::new();
    // Brace depth, and the depths at which the enclosing inline modules opened.
    let (mut depth, mut inline_mods) = (0usize, Vec::new());
    let mut i = 0;
    while i < toks.len() {
        match &toks[i..] {
            [Tok::Word(w), Tok::Sep, ..] if anchor(w) => {
                let (paths, next) = parse_tree(toks, i, Vec::new());
                found.extend(paths.into_iter().map(|p| (p, inline_mods.len())));
                i = next;
                continue;
            }
            [Tok::Word(m), Tok::Word(_), Tok::Punct('{'), ..] if m == "mod" => {
                inline_mods.push(depth + 1)
            }
            [Tok::Punct('{'), ..] => depth += 1,
            [Tok::Punct('}'), ..] => {
                if inline_mods.last() == Some(&depth) {
                    inline_mods.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// Reads `a::b::{c, d::{e, self}, *}` from `i`; returns the full paths and the index after.
fn parse_tree(toks: &[Tok], mut i: usize, mut path: Vec<String>) -> (Vec<Vec<String>>, usize) {
    loop {
        match toks.get(i) {
            // `self` in a group names the group's prefix.
            Some(Tok::Word(w)) if w == "self" && !path.is_empty() => i += 1,
            Some(Tok::Word(w)) => {
                path.push(w.clone());
                i += 1;
            }
            Some(Tok::Punct('*')) => return (vec![path], i + 1),
            Some(Tok::Punct('{')) => return parse_group(toks, i + 1, &path),
            _ => return (vec![path], i),
        }
        if toks.get(i) != Some(&Tok::Sep) {
            return (vec![path], i);
        }
        i += 1;
    }
}

fn parse_group(toks: &[Tok], mut i: usize, prefix: &[String]) -> (Vec<Vec<String>>, usize) {
    let mut paths = Vec::new();
    while i < toks.len() && toks[i] != Tok::Punct('}') {
        let (more, next) = parse_tree(toks, i, prefix.to_vec());
        paths.extend(more);
        // On past `as alias` and the comma.
        let end = (next.max(i + 1)..toks.len()).find(|&j| matches!(toks[j], Tok::Punct(',' | '}')));
        i = end.unwrap_or(toks.len());
        i += usize::from(toks.get(i) == Some(&Tok::Punct(',')));
    }
    (paths, i + 1)
}

/// The module path under the crate root a written path names, from a file defining `module`;
/// None when `super` stays inside this file (an inline module) or climbs above the crate.
fn resolve(module: &[String], written: &[String], inline_mods: usize) -> Option<Vec<String>> {
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

const ADD_RULE: &str = "is not a stage in the rule list; add it to RULES in tests/architecture.rs";

/// One line per reference that breaks a rule, and per stage without a rule.
fn stage_breaches(files: &[SourceFile]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for file in files {
        let Some(from) = file.stage() else { continue };
        let from_rule = rule(from);
        if from_rule.is_none() {
            out.insert(format!("{}: {from} {ADD_RULE}", file.rel));
        }
        for (to, r) in file.stage_refs() {
            let breach = match (from_rule, rule(to)) {
                (_, None) => format!("{to} {ADD_RULE}"),
                (Some(f), Some(t)) if !may_import(f, t) => format!("{from} must not import {to}"),
                _ => continue,
            };
            out.insert(format!("{}: {breach} ({})", file.rel, r.text));
        }
    }
    out.into_iter().collect()
}

/// Each (stage, stage it imports), with the first reference that shows it: "file: path".
fn stage_edges(files: &[SourceFile]) -> BTreeMap<(&str, &str), String> {
    let mut edges = BTreeMap::new();
    for file in files {
        let Some(from) = file.stage() else { continue };
        for (to, r) in file.stage_refs() {
            let witness = || format!("{}: {}", file.rel, r.text);
            edges.entry((from, to)).or_insert_with(witness);
        }
    }
    edges
}

fn stage_cycles(files: &[SourceFile]) -> Vec<String> {
    let edges = stage_edges(files);
    let mut graph = Graph::new();
    for (from, to) in edges.keys() {
        let (from, to) = (from.to_string(), to.to_string());
        graph.entry(from).or_default().insert(to);
    }
    let line = |cycle: Vec<String>| {
        let witness = |w: &[String]| edges[&(w[0].as_str(), w[1].as_str())].clone();
        let via: Vec<String> = cycle.windows(2).map(witness).collect();
        let (path, via) = (cycle.join(" -> "), via.join("; "));
        format!("stage cycle: {path} (via {via})")
    };
    cycles(&graph).into_iter().map(line).collect()
}

/// File -> files it imports. A mod.rs naming its own children (`mod x;`, `pub use x::Y`)
/// is not an import, so those edges are dropped; a child naming its parent is kept.
fn file_graph(files: &[SourceFile]) -> Graph {
    let known: BTreeSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let mut graph = Graph::new();
    for file in files.iter().filter(|f| f.stage().is_some()) {
        let children = file.child_dir();
        for target in file.refs.iter().filter_map(|r| file_of(&r.module, &known)) {
            if target != file.rel && !target.starts_with(&children) {
                graph.entry(file.rel.clone()).or_default().insert(target);
            }
        }
    }
    graph
}

/// The file defining the longest prefix of `module`: src/a/b/c.rs, src/a/b/c/mod.rs,
/// src/a/b.rs, src/a/b/mod.rs, ...
fn file_of(module: &[String], known: &BTreeSet<&str>) -> Option<String> {
    (1..=module.len()).rev().find_map(|k| {
        let base = format!("src/{}", module[..k].join("/"));
        let candidates = [format!("{base}.rs"), format!("{base}/mod.rs")];
        candidates.into_iter().find(|f| known.contains(f.as_str()))
    })
}

fn file_cycles(files: &[SourceFile]) -> Vec<String> {
    let line = |cycle: Vec<String>| format!("file cycle: {}", cycle.join(" -> "));
    cycles(&file_graph(files)).into_iter().map(line).collect()
}

/// For every edge that lies on a cycle, the shortest cycle through it, each cycle once,
/// starting at its smallest node: ["a", "b", "a"].
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let mut found = BTreeSet::new();
    for (from, tos) in graph {
        for back in tos.iter().filter_map(|to| shortest_path(graph, to, from)) {
            let mut cycle: Vec<String> = std::iter::once(from.clone()).chain(back).collect();
            cycle.pop();
            let smallest = (0..cycle.len()).min_by_key(|&k| &cycle[k]).unwrap();
            cycle.rotate_left(smallest);
            cycle.push(cycle[0].clone());
            found.insert(cycle);
        }
    }
    found.into_iter().collect()
}

/// Breadth-first: the nodes from `start` to `goal`, both included.
fn shortest_path(graph: &Graph, start: &str, goal: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::from([start]);
    let mut queue = VecDeque::from([vec![start.to_string()]]);
    while let Some(path) = queue.pop_front() {
        let last = &path[path.len() - 1];
        if last == goal {
            return Some(path);
        }
        for next in graph.get(last).into_iter().flatten() {
            if seen.insert(next) {
                queue.push_back([&path[..], std::slice::from_ref(next)].concat());
            }
        }
    }
    None
}

fn long_files(files: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    for SourceFile { rel, lines, .. } in files.iter().filter(|f| f.lines > MAX_LINES) {
        out.push(format!(
            "{rel}: {lines} lines, over the {MAX_LINES}-line limit"
        ));
    }
    out
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture() -> Vec<SourceFile> {
    scan(&manifest_dir().join("tests/data/architecture"))
}

fn assert_none(what: &str, breaches: Vec<String>) {
    let (n, list) = (breaches.len(), breaches.join("\n"));
    assert!(breaches.is_empty(), "{n} {what}:\n{list}\n");
}

// ---- The rules over the real src/ ----

#[test]
fn src_stages_import_only_what_the_rules_allow() {
    assert_none("stage rule breaches", stage_breaches(&scan(manifest_dir())));
}

#[test]
fn src_has_no_import_cycles_between_stages() {
    assert_none("stage cycles", stage_cycles(&scan(manifest_dir())));
}

#[test]
fn src_has_no_import_cycles_between_files() {
    assert_none("file cycles", file_cycles(&scan(manifest_dir())));
}

#[test]
fn src_files_are_at_most_600_lines() {
    assert_none("files too long", long_files(&scan(manifest_dir())));
}

// ---- The checker itself, so that it fails for the reasons it exists ----

/// Compares found breaches with the expected ones, written one per line.
fn assert_lines(found: Vec<String>, expected: &str) {
    assert_eq!(found.join("\n"), expected.trim());
}

#[test]
fn rule_list_has_each_stage_once_and_names_only_stages() {
    let stages: BTreeSet<&str> = RULES.iter().map(|r| r.stage).collect();
    assert_eq!(stages.len(), RULES.len(), "a stage has two rules");
    for r in RULES {
        for set in [&r.imports, &r.imported_by] {
            if let Only(list) | AllBut(list) = set {
                let unknown: Vec<_> = list.iter().filter(|n| rule(n).is_none()).collect();
                assert!(unknown.is_empty(), "rule for {} names {unknown:?}", r.stage);
            }
        }
    }
}

#[test]
fn comments_and_literals_are_skipped_but_code_and_lifetimes_kept() {
    let code = r##"a /* x /* y */ z */ b // c
fn f<'a>(s: &'a str) { '"'; '\''; r#"q"#; b"p"; "s\"t"; d }"##;
    let kept = "a b fn f<'a>(s: &'a str) { ; ; ; b ; ; d }";
    assert_eq!(tokenize(code), tokenize(kept));
}

#[test]
fn grouped_and_nested_paths_give_one_path_per_name() {
    let code = "use crate::{a::X, b::{self, c::{Y as Z, *}}}; let v = super::super::d::e(1);";
    let paths = find_paths(&tokenize(code));
    let paths: Vec<String> = paths.into_iter().map(|(p, _)| p.join("::")).collect();
    let expected = "crate::a::X, crate::b, crate::b::c::Y, crate::b::c, super::super::d::e";
    assert_eq!(paths.join(", "), expected);
}

#[test]
fn super_climbs_from_the_module_a_file_defines() {
    let split = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    // Modules w::s (src/w/s/mod.rs) and w::s::o (src/w/s/o.rs).
    let cases = [
        // From a mod.rs, super is w and super::super the crate root.
        ("w::s", "super::super::x::E", 0, Some("x::E")),
        // From o.rs, super is w::s: it takes a third super to leave w.
        ("w::s::o", "super::super::r::Z", 0, Some("w::r::Z")),
        ("w::s::o", "super::super::super::x::R", 0, Some("x::R")),
        // Inside one inline `mod tests { .. }`, the first super is the file itself.
        ("w::s::o", "super::f", 1, None),
        ("w::s::o", "super::super::Opt", 1, Some("w::s::Opt")),
    ];
    for (module, written, inline, want) in cases {
        let got = resolve(&split(module), &split(written), inline).map(|p| p.join("::"));
        assert_eq!(got.as_deref(), want, "{written} from {module}");
    }
}

#[test]
fn fixture_stage_breaches_are_exactly_these() {
    // Not found: the paths in comments and strings of src/results/mod.rs, the crate roots,
    // cli's imports, report's imports of results and stats, and `use super::*` in server.
    let expected = "
src/connection/mod.rs: connection must not import server (crate::server::Endpoint)
src/driver/mod.rs: telemetry is not a stage in the rule list; add it to RULES in tests/architecture.rs (crate::telemetry::Span)
src/error.rs: error must not import ibench (crate::ibench::Step)
src/probes/mod.rs: probes must not import console (crate::console::Term)
src/profile/mod.rs: profile must not import cli (crate::cli::Args)
src/report/b.rs: report must not import ibench (crate::ibench::buckets::Bucket)
src/report/b.rs: report must not import ibench (crate::ibench::buckets::Span)
src/report/x.rs: report must not import driver (crate::driver::B)
src/results/mod.rs: results must not import ibench (crate::ibench::TARGET_SHARE)
src/results/mod.rs: results must not import stats (crate::stats::median)
src/results/mod.rs: results must not import study (crate::study::Study)
src/server/mod.rs: server must not import study (super::super::study::Study::default)
src/stats/mod.rs: stats must not import probes (psbench::probes::Cpu)
src/telemetry/mod.rs: telemetry is not a stage in the rule list; add it to RULES in tests/architecture.rs
src/workloads/sysbench/mod.rs: workloads must not import server (super::super::server::Endpoint)
src/workloads/sysbench/oltp.rs: workloads must not import driver (super::super::super::driver::Run)
";
    assert_lines(stage_breaches(&fixture()), expected);
}

#[test]
fn fixture_stage_cycles_are_exactly_these() {
    let expected = "
stage cycle: driver -> study -> driver (via src/driver/mod.rs: crate::study::Study; src/study/mod.rs: crate::driver::Run)
stage cycle: results -> study -> results (via src/results/mod.rs: crate::study::Study; src/study/mod.rs: crate::results::Document)
";
    assert_lines(stage_cycles(&fixture()), expected);
}

#[test]
fn fixture_file_cycles_are_exactly_these() {
    // Not found: report/mod.rs re-exports report/x.rs, which uses super::Shared back.
    let expected = "
file cycle: src/driver/mod.rs -> src/study/mod.rs -> src/driver/mod.rs
file cycle: src/report/a.rs -> src/report/b.rs -> src/report/a.rs
file cycle: src/results/mod.rs -> src/study/mod.rs -> src/results/mod.rs
";
    assert_lines(file_cycles(&fixture()), expected);
}

#[test]
fn fixture_long_files_are_exactly_these() {
    // Not found: src/stats/exact.rs, at exactly 600 lines.
    let expected = "src/stats/long.rs: 601 lines, over the 600-line limit";
    assert_lines(long_files(&fixture()), expected);
}
