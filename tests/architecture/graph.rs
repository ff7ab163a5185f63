//! Who imports whom, between stages and between files, and the cycles in it.

use crate::source::SourceFile;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Node -> the nodes it imports.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// Each (stage, stage it imports), with the first reference that shows it: "file: path".
pub fn stage_edges(files: &[SourceFile]) -> BTreeMap<(&str, &str), String> {
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

pub fn stage_cycles(files: &[SourceFile]) -> Vec<String> {
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

pub fn file_cycles(files: &[SourceFile]) -> Vec<String> {
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
