//! The text scan: Rust source as words, `::` and punctuation, with comments and string and
//! char literals blanked out, and the `crate::`, `psbench::` and `super::` paths read from it.

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
pub enum Tok {
    Word(String),
    /// `::`
    Sep,
    Punct(char),
}

/// Words, `::` and punctuation, without comments (line, nested block, doc) and string and
/// char literals, so that a path inside them is not read as code.
pub fn tokenize(code: &str) -> Vec<Tok> {
    tokenize_with_lines(code).0
}

/// The tokens of [`tokenize`] and, for each, the 1-based line it starts on.
pub fn tokenize_with_lines(code: &str) -> (Vec<Tok>, Vec<usize>) {
    let c: Vec<char> = code.chars().collect();
    let (mut toks, mut lines) = (Vec::new(), Vec::new());
    // The line at `i`, counted forward as `i` only grows.
    let (mut line, mut counted) = (1, 0);
    let mut line_at = |i: usize| {
        line += c[counted..i].iter().filter(|&&ch| ch == '\n').count();
        counted = i;
        line
    };
    let mut i = 0;
    while i < c.len() {
        if let Some(end) = skip_end(&c, i) {
            i = end;
            continue;
        }
        let start = i;
        let tok = if is_ident(c[i]) {
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            Tok::Word(c[start..i].iter().collect())
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            i += 2;
            Tok::Sep
        } else {
            i += 1;
            if c[start].is_whitespace() {
                continue;
            }
            Tok::Punct(c[start])
        };
        toks.push(tok);
        lines.push(line_at(start));
    }
    (toks, lines)
}

/// Every path starting with `crate::`, `psbench::` or `super::`, groups expanded into one path
/// per name, each with how many inline `mod x { .. }` blocks it sits in.
pub fn find_paths(toks: &[Tok]) -> Vec<(Vec<String>, usize)> {
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

/// Where `pattern` ("Name::Variant", "Name::" for any item of Name, or a bare word) occurs in
/// `toks`: each match's first token index and the text matched ("Flavour::Postgres").
pub fn find_words(toks: &[Tok], pattern: &str) -> Vec<(usize, String)> {
    let parts: Vec<&str> = pattern.split("::").collect();
    let word = |k: usize| match toks.get(k) {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let mut found = Vec::new();
    'start: for i in 0..toks.len() {
        let mut text = String::new();
        for (n, part) in parts.iter().enumerate() {
            let at = i + 2 * n;
            if n > 0 {
                if toks.get(at - 1) != Some(&Tok::Sep) {
                    continue 'start;
                }
                text.push_str("::");
            }
            match word(at) {
                Some(w) if part.is_empty() || w == *part => text.push_str(w),
                // "Name::" also matches `Name::{..}` and `Name::*`.
                _ if part.is_empty() => {}
                _ => continue 'start,
            }
        }
        found.push((i, text));
    }
    found
}
