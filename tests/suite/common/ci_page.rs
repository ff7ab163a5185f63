//! The CI page's jobs as data: its fenced blocks by their first line, and the YAML they are
//! written in, parsed strictly (block maps and lists, `|` scalars, plain or quoted scalars and
//! `#` comments; anything else fails the parse rather than being dropped).

/// The YAML the page's jobs are written in: block maps and lists, `|` scalars, plain or
/// quoted scalars and `#` comments. Anything else fails the parse rather than being dropped.
#[derive(Debug)]
pub enum Y {
    S(String),
    M(Vec<(String, Y)>),
    L(Vec<Y>),
}

impl Y {
    pub fn get(&self, key: &str) -> Option<&Y> {
        self.map().iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn at(&self, key: &str) -> &Y {
        self.get(key)
            .unwrap_or_else(|| panic!("no `{key}` in {self:?}"))
    }
    pub fn str(&self) -> &str {
        let Y::S(s) = self else {
            panic!("not a scalar: {self:?}")
        };
        s
    }
    pub fn list(&self) -> &[Y] {
        let Y::L(l) = self else {
            panic!("not a list: {self:?}")
        };
        l
    }
    pub fn map(&self) -> &[(String, Y)] {
        let Y::M(m) = self else {
            panic!("not a map: {self:?}")
        };
        m
    }
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

fn scalar(v: &str) -> String {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(s) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return s.to_string();
        }
    }
    v.split(" #").next().unwrap().trim().to_string()
}

struct Parser {
    lines: Vec<String>,
    i: usize,
}

impl Parser {
    /// The next line that is not blank or a comment: its indentation and text.
    fn peek(&mut self) -> Option<(usize, String)> {
        while let Some(l) = self.lines.get(self.i) {
            let t = l.trim();
            if !t.is_empty() && !t.starts_with('#') {
                return Some((indent(l), t.to_string()));
            }
            self.i += 1;
        }
        None
    }

    fn node(&mut self, ind: usize) -> Y {
        match self.peek() {
            Some((_, t)) if t.starts_with("- ") => self.list(ind),
            _ => self.map(ind),
        }
    }

    fn map(&mut self, ind: usize) -> Y {
        let mut m = Vec::new();
        while let Some((i, t)) = self.peek() {
            if i < ind || (i == ind && t.starts_with("- ")) {
                break;
            }
            assert_eq!(i, ind, "unexpected indentation at: {t}");
            let (k, v) = t
                .split_once(": ")
                .or_else(|| t.strip_suffix(':').map(|k| (k, "")))
                .unwrap_or_else(|| panic!("not a key: {t}"));
            self.i += 1;
            let v = self.value(v.trim(), ind);
            m.push((k.to_string(), v));
        }
        Y::M(m)
    }

    fn list(&mut self, ind: usize) -> Y {
        let mut l = Vec::new();
        while let Some((i, t)) = self.peek() {
            if i != ind || !t.starts_with("- ") {
                break;
            }
            let rest = t[2..].trim_start().to_string();
            let quoted = rest.starts_with(['"', '\'']);
            if !quoted && (rest.contains(": ") || rest.ends_with(':')) {
                // A map item: its first key moved to where its other keys are.
                self.lines[self.i] = format!("{}{rest}", " ".repeat(ind + 2));
                l.push(self.map(ind + 2));
            } else {
                self.i += 1;
                l.push(self.value(&rest, ind));
            }
        }
        Y::L(l)
    }

    fn value(&mut self, v: &str, ind: usize) -> Y {
        if v == "|" {
            return Y::S(self.block(ind));
        }
        if !v.is_empty() {
            return Y::S(scalar(v));
        }
        match self.peek() {
            Some((i, t)) if i > ind || (i == ind && t.starts_with("- ")) => self.node(i),
            _ => Y::S(String::new()),
        }
    }

    /// A `|` scalar: the lines indented deeper than its key, blank ones included.
    fn block(&mut self, ind: usize) -> String {
        let start = self.i;
        while let Some(l) = self.lines.get(self.i) {
            if !l.trim().is_empty() && indent(l) <= ind {
                break;
            }
            self.i += 1;
        }
        while self.i > start && self.lines[self.i - 1].trim().is_empty() {
            self.i -= 1;
        }
        let body = &self.lines[start..self.i];
        let cut = body
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| indent(l))
            .min()
            .unwrap_or(0);
        let lines: Vec<&str> = body.iter().map(|l| l.get(cut..).unwrap_or("")).collect();
        lines.join("\n") + "\n"
    }
}

pub fn parse(text: &str) -> Y {
    let mut p = Parser {
        lines: text.lines().map(String::from).collect(),
        i: 0,
    };
    let y = p.node(0);
    assert!(p.peek().is_none(), "the parse stopped at line {}", p.i + 1);
    y
}

/// `page`'s fenced block in `lang` whose first line is `# NAME`.
pub fn block_of(page: &str, lang: &str, name: &str) -> String {
    let head = format!("# {name}");
    page.split(&format!("```{lang}\n"))
        .skip(1)
        .map(|b| b.split("\n```").next().unwrap())
        .find(|b| b.lines().next() == Some(head.as_str()))
        .unwrap_or_else(|| panic!("the page has no ```{lang} block starting `{head}`"))
        .to_string()
        + "\n"
}
