//! pgbench's expression language (exprscan.l, exprparse.y): tokens, then a precedence
//! climbing parser with the grammar's SQL precedences, into the same trees pgbench builds
//! (`a > b` is `b < a`, `-x` is `0 - x`, `~x` is `-1 # x`, hash seeds default to
//! `:default_seed`).

use super::value::{strtodouble, strtoint64, Value};

/// pgbench's PgBenchFunction: operators and functions alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Abs,
    Least,
    Greatest,
    Debug,
    Pi,
    Sqrt,
    Ln,
    Exp,
    Int,
    Double,
    Random,
    RandomGaussian,
    RandomExponential,
    RandomZipfian,
    Pow,
    And,
    Or,
    Not,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Le,
    Lt,
    Is,
    Case,
    HashMurmur2,
    HashFnv1a,
    Permute,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Const(Value),
    Var(String),
    Func(Func, Vec<Expr>),
}

#[derive(Clone, Copy)]
enum Nargs {
    Fixed(usize),
    AtLeastOne,
    Hash,
    Permute,
}

/// The names a script may call (exprparse.y's PGBENCH_FUNCTIONS, less the internal ones).
const FUNCTIONS: &[(&str, Nargs, Func)] = &[
    ("mod", Nargs::Fixed(2), Func::Mod),
    ("abs", Nargs::Fixed(1), Func::Abs),
    ("least", Nargs::AtLeastOne, Func::Least),
    ("greatest", Nargs::AtLeastOne, Func::Greatest),
    ("debug", Nargs::Fixed(1), Func::Debug),
    ("pi", Nargs::Fixed(0), Func::Pi),
    ("sqrt", Nargs::Fixed(1), Func::Sqrt),
    ("ln", Nargs::Fixed(1), Func::Ln),
    ("exp", Nargs::Fixed(1), Func::Exp),
    ("int", Nargs::Fixed(1), Func::Int),
    ("double", Nargs::Fixed(1), Func::Double),
    ("random", Nargs::Fixed(2), Func::Random),
    ("random_gaussian", Nargs::Fixed(3), Func::RandomGaussian),
    (
        "random_exponential",
        Nargs::Fixed(3),
        Func::RandomExponential,
    ),
    ("random_zipfian", Nargs::Fixed(3), Func::RandomZipfian),
    ("pow", Nargs::Fixed(2), Func::Pow),
    ("power", Nargs::Fixed(2), Func::Pow),
    ("hash", Nargs::Hash, Func::HashMurmur2),
    ("hash_murmur2", Nargs::Hash, Func::HashMurmur2),
    ("hash_fnv1a", Nargs::Hash, Func::HashFnv1a),
    ("permute", Nargs::Permute, Func::Permute),
];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Op(&'static str),
    And,
    Or,
    Not,
    Is,
    IsNull,
    NotNull,
    Case,
    When,
    Then,
    Else,
    End,
    Null,
    Bool(bool),
    Int(i64),
    MaxIntPlusOne,
    Double(f64),
    Var(String),
    Name(String),
}

/// pgbench's alpha/alnum classes: any non-ASCII character counts as a letter.
fn is_alpha(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}
fn is_alnum(c: char) -> bool {
    is_alpha(c) || c.is_ascii_digit()
}

const OPS: &[&str] = &[
    "<>", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "=", "<", ">", "|", "&", "#", "~",
    "(", ")", ",",
];

fn keyword(word: &str) -> Option<Tok> {
    Some(match word.to_ascii_lowercase().as_str() {
        "and" => Tok::And,
        "or" => Tok::Or,
        "not" => Tok::Not,
        "is" => Tok::Is,
        "isnull" => Tok::IsNull,
        "notnull" => Tok::NotNull,
        "case" => Tok::Case,
        "when" => Tok::When,
        "then" => Tok::Then,
        "else" => Tok::Else,
        "end" => Tok::End,
        "null" => Tok::Null,
        "true" => Tok::Bool(true),
        "false" => Tok::Bool(false),
        _ => return None,
    })
}

fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    let word = |from: usize, pred: fn(char) -> bool| {
        let mut j = from;
        while j < chars.len() && pred(chars[j]) {
            j += 1;
        }
        j
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
        if let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) {
            toks.push(Tok::Op(if *op == "!=" { "<>" } else { op }));
            i += op.len();
        } else if c == ':' && i + 1 < chars.len() && is_alnum(chars[i + 1]) {
            let j = word(i + 1, is_alnum);
            toks.push(Tok::Var(chars[i + 1..j].iter().collect()));
            i = j;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (tok, j) = lex_number(&chars, i)?;
            toks.push(tok);
            i = j;
        } else if is_alpha(c) {
            let j = word(i, is_alnum);
            let w: String = chars[i..j].iter().collect();
            toks.push(keyword(&w).unwrap_or(Tok::Name(w)));
            i = j;
        } else {
            return Err(format!("unexpected character ({c})"));
        }
    }
    Ok(toks)
}

/// `digits`, `digits.digits e±digits` or `.digits e±digits`: the longest match, as flex.
fn lex_number(chars: &[char], start: usize) -> Result<(Tok, usize), String> {
    let digits = |mut j: usize| {
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let mut j = digits(start);
    let mut is_double = false;
    if chars.get(j) == Some(&'.') {
        is_double = true;
        j = digits(j + 1);
    }
    if matches!(chars.get(j), Some('e' | 'E')) {
        let mut k = j + 1;
        if matches!(chars.get(k), Some('+' | '-')) {
            k += 1;
        }
        if chars.get(k).is_some_and(|d| d.is_ascii_digit()) {
            is_double = true;
            j = digits(k);
        }
    }
    let text: String = chars[start..j].iter().collect();
    if is_double {
        return strtodouble(&text)
            .map(|d| (Tok::Double(d), j))
            .ok_or_else(|| format!("double constant overflow ({text})"));
    }
    if text == "9223372036854775808" {
        return Ok((Tok::MaxIntPlusOne, j));
    }
    strtoint64(&text)
        .map(|v| (Tok::Int(v), j))
        .ok_or_else(|| format!("bigint constant overflow ({text})"))
}

/// Parse one expression (the rest of a `\set`, `\if` or `\elif` line). Err: pgbench's
/// message, without the "in command" tail.
pub fn parse_expr(text: &str) -> Result<Expr, String> {
    let toks = lex(text)?;
    let mut p = Parser { toks, pos: 0 };
    let e = p.binary(0)?;
    if p.pos != p.toks.len() {
        return Err(SYNTAX.to_string());
    }
    Ok(e)
}

const SYNTAX: &str = "syntax error";

// exprparse.y's precedence levels, lowest first.
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const IS: u8 = 4;
const CMP: u8 = 5;
const BIT: u8 = 6;
const ADD: u8 = 7;
const MUL: u8 = 8;
const UNARY: u8 = 9;

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

fn op(f: Func, l: Expr, r: Expr) -> Expr {
    Expr::Func(f, vec![l, r])
}

fn is_null(e: Expr) -> Expr {
    op(Func::Is, e, Expr::Const(Value::Null))
}

fn not(e: Expr) -> Expr {
    Expr::Func(Func::Not, vec![e])
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn expect(&mut self, want: &Tok) -> Result<(), String> {
        if self.next().as_ref() == Some(want) {
            Ok(())
        } else {
            Err(SYNTAX.to_string())
        }
    }

    /// The precedence of a binary or postfix operator token.
    fn infix_prec(t: &Tok) -> Option<u8> {
        Some(match t {
            Tok::Or => OR,
            Tok::And => AND,
            Tok::Is | Tok::IsNull | Tok::NotNull => IS,
            Tok::Op("<" | ">" | "=" | "<=" | ">=" | "<>") => CMP,
            Tok::Op("|" | "#" | "&" | "<<" | ">>") => BIT,
            Tok::Op("+" | "-") => ADD,
            Tok::Op("*" | "/" | "%") => MUL,
            _ => return None,
        })
    }

    fn binary(&mut self, min: u8) -> Result<Expr, String> {
        let mut left = self.prefix()?;
        while let Some(prec) = self.peek().and_then(Self::infix_prec) {
            if prec < min {
                break;
            }
            let t = self.next().expect("peeked");
            if prec == IS {
                left = self.postfix_is(t, left)?;
                continue;
            }
            let right = self.binary(prec + 1)?;
            left = match t {
                Tok::Or => op(Func::Or, left, right),
                Tok::And => op(Func::And, left, right),
                Tok::Op(o) => binary_op(o, left, right),
                _ => unreachable!("infix_prec lists only these"),
            };
            // Comparisons do not associate: `a < b < c` is a syntax error.
            if prec == CMP && self.peek().and_then(Self::infix_prec) == Some(CMP) {
                return Err(SYNTAX.to_string());
            }
        }
        Ok(left)
    }

    fn postfix_is(&mut self, t: Tok, left: Expr) -> Result<Expr, String> {
        match t {
            Tok::IsNull => Ok(is_null(left)),
            Tok::NotNull => Ok(not(is_null(left))),
            _ => {
                let negate = self.peek() == Some(&Tok::Not);
                if negate {
                    self.pos += 1;
                }
                let what = match self.next() {
                    Some(Tok::Null) => Value::Null,
                    Some(Tok::Bool(b)) => Value::Bool(b),
                    _ => return Err(SYNTAX.to_string()),
                };
                let e = op(Func::Is, left, Expr::Const(what));
                Ok(if negate { not(e) } else { e })
            }
        }
    }

    fn prefix(&mut self) -> Result<Expr, String> {
        match self.next() {
            Some(Tok::Op("(")) => {
                let e = self.binary(0)?;
                self.expect(&Tok::Op(")"))?;
                Ok(e)
            }
            Some(Tok::Op("+")) => self.binary(UNARY),
            Some(Tok::Op("-")) => {
                if self.peek() == Some(&Tok::MaxIntPlusOne) {
                    self.pos += 1;
                    return Ok(Expr::Const(Value::Int(i64::MIN)));
                }
                let e = self.binary(UNARY)?;
                Ok(op(Func::Sub, Expr::Const(Value::Int(0)), e))
            }
            // '~' takes the precedence of its token (the bitwise level), left associative.
            Some(Tok::Op("~")) => {
                let e = self.binary(BIT + 1)?;
                Ok(op(Func::BitXor, Expr::Const(Value::Int(-1)), e))
            }
            Some(Tok::Not) => Ok(not(self.binary(NOT)?)),
            Some(Tok::Null) => Ok(Expr::Const(Value::Null)),
            Some(Tok::Bool(b)) => Ok(Expr::Const(Value::Bool(b))),
            Some(Tok::Int(i)) => Ok(Expr::Const(Value::Int(i))),
            Some(Tok::Double(d)) => Ok(Expr::Const(Value::Double(d))),
            Some(Tok::Var(v)) => Ok(Expr::Var(v)),
            Some(Tok::Name(n)) => self.call(&n),
            Some(Tok::Case) => self.case(),
            _ => Err(SYNTAX.to_string()),
        }
    }

    fn call(&mut self, name: &str) -> Result<Expr, String> {
        let lower = name.to_ascii_lowercase();
        let Some(&(fname, nargs, func)) = FUNCTIONS.iter().find(|f| f.0 == lower) else {
            return Err(format!("unexpected function name ({name})"));
        };
        self.expect(&Tok::Op("("))?;
        let mut args = Vec::new();
        if self.peek() != Some(&Tok::Op(")")) {
            loop {
                args.push(self.binary(0)?);
                if self.peek() == Some(&Tok::Op(",")) {
                    self.pos += 1;
                } else {
                    break;
                }
            }
        }
        self.expect(&Tok::Op(")"))?;
        let count = format!("unexpected number of arguments ({fname})");
        let seed = || Expr::Var("default_seed".to_string());
        match nargs {
            Nargs::Fixed(n) if args.len() != n => return Err(count),
            Nargs::AtLeastOne if args.is_empty() => {
                return Err(format!("at least one argument expected ({fname})"))
            }
            Nargs::Hash if !(1..=2).contains(&args.len()) => return Err(count),
            Nargs::Hash if args.len() == 1 => args.push(seed()),
            Nargs::Permute if !(2..=3).contains(&args.len()) => return Err(count),
            Nargs::Permute if args.len() == 2 => args.push(seed()),
            _ => {}
        }
        Ok(Expr::Func(func, args))
    }

    /// CASE WHEN c THEN v ... [ELSE e] END: arguments c1, v1, c2, v2, ..., else (NULL if none).
    fn case(&mut self) -> Result<Expr, String> {
        let mut args = Vec::new();
        while self.peek() == Some(&Tok::When) {
            self.pos += 1;
            args.push(self.binary(0)?);
            self.expect(&Tok::Then)?;
            args.push(self.binary(0)?);
        }
        if args.is_empty() {
            return Err(SYNTAX.to_string());
        }
        let otherwise = if self.peek() == Some(&Tok::Else) {
            self.pos += 1;
            self.binary(0)?
        } else {
            Expr::Const(Value::Null)
        };
        self.expect(&Tok::End)?;
        args.push(otherwise);
        Ok(Expr::Func(Func::Case, args))
    }
}

fn binary_op(o: &str, l: Expr, r: Expr) -> Expr {
    match o {
        "+" => op(Func::Add, l, r),
        "-" => op(Func::Sub, l, r),
        "*" => op(Func::Mul, l, r),
        "/" => op(Func::Div, l, r),
        "%" => op(Func::Mod, l, r),
        "<" => op(Func::Lt, l, r),
        "<=" => op(Func::Le, l, r),
        ">" => op(Func::Lt, r, l),
        ">=" => op(Func::Le, r, l),
        "=" => op(Func::Eq, l, r),
        "<>" => op(Func::Ne, l, r),
        "&" => op(Func::BitAnd, l, r),
        "|" => op(Func::BitOr, l, r),
        "#" => op(Func::BitXor, l, r),
        "<<" => op(Func::Shl, l, r),
        ">>" => op(Func::Shr, l, r),
        _ => unreachable!("infix_prec lists only these"),
    }
}
