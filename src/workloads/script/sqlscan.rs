//! Splitting a script into SQL text and backslash commands, as psql's lexer (psqlscan.l)
//! does for pgbench: quotes, comments and parentheses hide `;` and `\`; `\;` and `\:`
//! put the character into the SQL; a backslash elsewhere starts a meta command.

/// How an SQL piece ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    Semicolon,
    /// At a backslash: a meta command follows at the cursor.
    Backslash,
    Eof,
}

pub struct Scanner<'a> {
    s: &'a [u8],
    pub pos: usize,
    /// 1-based line of `pos`.
    pub line: usize,
}

/// An SQL piece: its text (leading blanks and `--` comments dropped) and its first line.
pub struct Piece {
    pub text: String,
    pub line: usize,
    pub end: End,
}

fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// A meta command's words, continuations removed, and the command's text as written.
pub struct MetaLine {
    pub line: usize,
    pub words: Vec<String>,
    /// What follows the first `skip` words, for expressions: see [`MetaLine::rest`].
    joined: String,
    pub raw: String,
}

impl MetaLine {
    /// The text after the first `n` words (the expression of `\set v …` or `\if …`).
    pub fn rest(&self, n: usize) -> &str {
        let mut t = self.joined.as_str();
        for _ in 0..n {
            t = t.trim_start();
            let end = t.find(char::is_whitespace).unwrap_or(t.len());
            t = &t[end..];
        }
        t
    }
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str) -> Scanner<'a> {
        Scanner {
            s: text.as_bytes(),
            pos: 0,
            line: 1,
        }
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.s.get(i).copied()
    }

    fn text(&self, from: usize, to: usize) -> &'a str {
        // Every cut is at an ASCII byte, so the slices stay UTF-8.
        std::str::from_utf8(&self.s[from..to]).expect("cut at ASCII bytes")
    }

    /// Move to `to`, counting newlines.
    fn advance(&mut self, to: usize) {
        self.line += self.s[self.pos..to].iter().filter(|&&b| b == b'\n').count();
        self.pos = to;
    }

    /// The end of a quoted string starting at `i` (the quote), past the closing quote.
    fn quoted_end(&self, i: usize, quote: u8, backslash_escapes: bool) -> usize {
        let mut j = i + 1;
        while j < self.s.len() {
            let b = self.s[j];
            if backslash_escapes && b == b'\\' {
                j += 2;
            } else if b == quote {
                if self.at(j + 1) == Some(quote) {
                    j += 2;
                } else {
                    return j + 1;
                }
            } else {
                j += 1;
            }
        }
        self.s.len()
    }

    /// `$tag$` at `i`: the end of the whole dollar-quoted string.
    fn dollar_end(&self, i: usize) -> Option<usize> {
        let mut j = i + 1;
        if j < self.s.len() && (self.s[j].is_ascii_digit() || !ident_byte(self.s[j])) {
            // `$1` is a parameter; only `$$` or `$tag$` quote.
            if self.s[j] != b'$' {
                return None;
            }
        }
        while j < self.s.len() && ident_byte(self.s[j]) {
            j += 1;
        }
        if self.at(j) != Some(b'$') {
            return None;
        }
        let delim = &self.s[i..=j];
        let body = j + 1;
        let close = self.s[body..]
            .windows(delim.len())
            .position(|w| w == delim)
            .map_or(self.s.len(), |p| body + p + delim.len());
        Some(close)
    }

    /// A nested `/* */` comment at `i`: its end.
    fn comment_end(&self, i: usize) -> usize {
        let (mut depth, mut j) = (0usize, i);
        while j < self.s.len() {
            if self.s[j] == b'/' && self.at(j + 1) == Some(b'*') {
                depth += 1;
                j += 2;
            } else if self.s[j] == b'*' && self.at(j + 1) == Some(b'/') {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return j;
                }
            } else {
                j += 1;
            }
        }
        self.s.len()
    }

    /// Collect SQL up to a `;` at parenthesis depth 0, a backslash or the end.
    pub fn sql(&mut self) -> Piece {
        let mut text = String::new();
        let mut line = self.line;
        let mut depth = 0usize;
        loop {
            let i = self.pos;
            let Some(b) = self.at(i) else {
                return Piece {
                    text,
                    line,
                    end: End::Eof,
                };
            };
            if text.is_empty() {
                line = self.line;
            }
            // Blanks and `--` comments before anything else are dropped.
            let blank_end = if b.is_ascii_whitespace() {
                Some(i + 1)
            } else if b == b'-' && self.at(i + 1) == Some(b'-') {
                Some(
                    self.s[i..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(self.s.len(), |p| i + p),
                )
            } else {
                None
            };
            let end = match b {
                _ if blank_end.is_some() => {
                    let e = blank_end.expect("checked");
                    if !text.is_empty() {
                        text.push_str(self.text(i, e));
                    }
                    self.advance(e);
                    continue;
                }
                b'\\' => match self.at(i + 1) {
                    Some(c @ (b';' | b':')) => {
                        text.push(c as char);
                        self.advance(i + 2);
                        continue;
                    }
                    _ => {
                        self.advance(i + 1);
                        return Piece {
                            text,
                            line,
                            end: End::Backslash,
                        };
                    }
                },
                b';' if depth == 0 => {
                    text.push(';');
                    self.advance(i + 1);
                    return Piece {
                        text,
                        line,
                        end: End::Semicolon,
                    };
                }
                b'(' => {
                    depth += 1;
                    i + 1
                }
                b')' => {
                    depth = depth.saturating_sub(1);
                    i + 1
                }
                b'\'' => {
                    let escapes = i > 0
                        && matches!(self.s[i - 1], b'e' | b'E')
                        && (i < 2 || !ident_byte(self.s[i - 2]));
                    self.quoted_end(i, b'\'', escapes)
                }
                b'"' => self.quoted_end(i, b'"', false),
                b'/' if self.at(i + 1) == Some(b'*') => self.comment_end(i),
                b'$' if i == 0 || !(ident_byte(self.s[i - 1]) || self.s[i - 1] == b'$') => {
                    self.dollar_end(i).unwrap_or(i + 1)
                }
                _ => {
                    // Copy one whole character (non-ASCII ones are several bytes).
                    let len = self
                        .text(i, self.s.len())
                        .chars()
                        .next()
                        .map_or(1, char::len_utf8);
                    i + len
                }
            };
            text.push_str(self.text(i, end));
            self.advance(end);
        }
    }

    /// The meta command after a backslash: words to the end of the line, a backslash before
    /// the newline continuing it.
    pub fn meta(&mut self) -> MetaLine {
        let start = self.pos - 1;
        let line = self.line;
        let mut joined = String::new();
        let mut j = self.pos;
        while j < self.s.len() && self.s[j] != b'\n' {
            if self.s[j] == b'\\' && self.at(j + 1) == Some(b'\n') {
                joined.push(' ');
                j += 2;
            } else if self.s[j] == b'\\'
                && self.at(j + 1) == Some(b'\r')
                && self.at(j + 2) == Some(b'\n')
            {
                joined.push(' ');
                j += 3;
            } else {
                let len = self
                    .text(j, self.s.len())
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
                joined.push_str(self.text(j, j + len));
                j += len;
            }
        }
        let raw = self.text(start, j).trim_end_matches('\r').to_string();
        // The newline ends the command and is consumed with it.
        self.advance((j + 1).min(self.s.len()));
        let words = joined.split_whitespace().map(str::to_string).collect();
        MetaLine {
            line,
            words,
            joined,
            raw,
        }
    }
}
