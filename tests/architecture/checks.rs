//! The rules applied to a scanned tree: each returns one line per breach, empty when the tree
//! keeps the rule.

use crate::graph::stage_edges;
use crate::source::SourceFile;
use crate::tokens::find_words;
use crate::{
    StageList, APART, ASKING_STAGES, ENGINE_QUESTIONS, KIND_ASKING_STAGES, KIND_QUESTIONS, LIMITS,
    MAX_LINES, SHARED,
};
use std::collections::BTreeSet;

const ADD_RULE: &str = "is not a stage in the rule list; add it to RULES in tests/architecture.rs";

fn listed<'a>(lists: &'a [StageList], stage: &str) -> Option<&'a [&'static str]> {
    lists
        .iter()
        .find(|(s, _)| *s == stage)
        .map(|(_, list)| *list)
}

/// Whether some stated limit forbids stage `from` to import stage `to`.
pub fn forbidden(from: &str, to: &str) -> bool {
    LIMITS.iter().any(|limit| limit.forbids(from, to))
}

/// One line per reference that breaks a stated limit or names a stage without a list, and
/// per file of a stage without a list.
pub fn stage_breaches(files: &[SourceFile], lists: &[StageList]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for file in files {
        let Some(from) = file.stage() else { continue };
        if listed(lists, from).is_none() {
            out.insert(format!("{}: {from} {ADD_RULE}", file.rel));
        }
        for (to, r) in file.stage_refs() {
            let breach = if listed(lists, to).is_none() {
                format!("{to} {ADD_RULE}")
            } else if forbidden(from, to) {
                format!("{from} must not import {to}")
            } else {
                continue;
            };
            out.insert(format!("{}: {breach} ({})", file.rel, r.text));
        }
    }
    out.into_iter().collect()
}

/// Per stage whose imports differ from its list: each stage imported but not listed (with
/// the first reference), each stage listed but not imported, then the list the code has, in
/// RULES' own form. A stage listed with no module under src/ is one line.
pub fn list_breaches(files: &[SourceFile], lists: &[StageList]) -> Vec<String> {
    let edges = stage_edges(files);
    let present: BTreeSet<&str> = files.iter().filter_map(SourceFile::stage).collect();
    let mut stages = present.clone();
    stages.extend(lists.iter().map(|(stage, _)| *stage));
    let mut out = Vec::new();
    for stage in stages {
        let actual: Vec<&str> = edges
            .keys()
            .filter(|(from, to)| *from == stage && *to != SHARED)
            .map(|(_, to)| *to)
            .collect();
        let names: Vec<String> = actual.iter().map(|to| format!("\"{to}\"")).collect();
        let paste = format!(
            "stage {stage} imports exactly, paste into RULES: (\"{stage}\", &[{}]),",
            names.join(", ")
        );
        let Some(list) = listed(lists, stage) else {
            out.extend([format!("stage {stage} has no list in RULES"), paste]);
            continue;
        };
        if !present.contains(stage) {
            out.push(format!(
                "stage {stage} is in RULES but has no module under src/"
            ));
            continue;
        }
        let mut wrong = Vec::new();
        for to in actual.iter().filter(|to| !list.contains(to)) {
            let witness = &edges[&(stage, *to)];
            wrong.push(format!(
                "stage {stage} imports {to} but does not list it ({witness})"
            ));
        }
        for to in list.iter().filter(|to| !actual.contains(to)) {
            wrong.push(format!("stage {stage} lists {to} but does not import it"));
        }
        if !wrong.is_empty() {
            out.extend(wrong);
            out.push(paste);
        }
    }
    out
}

/// Whether `module` is the folder `dir` ("engines/mysql") or lies under it.
fn under(module: &[String], dir: &str) -> bool {
    let dir: Vec<&str> = dir.split('/').collect();
    module.len() >= dir.len() && module.iter().zip(&dir).all(|(m, d)| m == d)
}

/// One line per reference from one of a pair of APART folders into the other.
pub fn apart_breaches(files: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    for file in files {
        let Some(module) = file.module() else {
            continue;
        };
        for &(a, b) in APART {
            for (from, to) in [(a, b), (b, a)] {
                if !under(&module, from) {
                    continue;
                }
                for r in file.refs.iter().filter(|r| under(&r.module, to)) {
                    let rel = &file.rel;
                    out.push(format!("{rel}: {from} must not import {to} ({})", r.text));
                }
            }
        }
    }
    out
}

/// `file:line: asks which engine (TOKEN)` for each use of an ENGINE_QUESTIONS token outside
/// the ASKING_STAGES (the crate roots included).
pub fn engine_questions(files: &[SourceFile]) -> Vec<String> {
    questions(files, ASKING_STAGES, ENGINE_QUESTIONS, "asks which engine")
}

pub fn kind_questions(files: &[SourceFile]) -> Vec<String> {
    questions(
        files,
        KIND_ASKING_STAGES,
        KIND_QUESTIONS,
        "asks which kind of workload",
    )
}

/// Each use of one of `patterns` outside `stages`, a line each, saying it `asks`.
fn questions(files: &[SourceFile], stages: &[&str], patterns: &[&str], asks: &str) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        if file.stage().is_some_and(|s| stages.contains(&s)) {
            continue;
        }
        for pattern in patterns {
            for (i, token) in find_words(&file.toks, pattern) {
                found.push((file.rel.as_str(), file.tok_lines[i], token));
            }
        }
    }
    found.sort();
    let line = |(rel, n, token)| format!("{rel}:{n}: {asks} ({token})");
    found.into_iter().map(line).collect()
}

pub fn long_files(counts: &[(String, usize)]) -> Vec<String> {
    let over = counts.iter().filter(|(_, lines)| *lines > MAX_LINES);
    let line = |(rel, lines): &(String, usize)| {
        format!("{rel}: {lines} lines, over the {MAX_LINES}-line limit")
    };
    over.map(line).collect()
}
