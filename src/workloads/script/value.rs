//! Values as pgbench holds them (PgBenchValue), written as pgbench writes them, and read
//! back from text as makeVariableValue does.

/// A variable's or an expression's value. `Text` is a value still in string form (a `-D`
/// option, a `\gset` column): it is read as a number or boolean when an expression uses it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Text(String),
}

impl Value {
    /// The text pgbench writes for this value into SQL or a parameter; None for NULL
    /// (pgbench itself writes the word `NULL` there, see [`Value::to_pgbench_text`]).
    pub fn to_sql_text(&self) -> Option<String> {
        match self {
            Value::Null => None,
            other => Some(other.to_pgbench_text()),
        }
    }

    /// pgbench's getVariable: ints in decimal, doubles as "%.15g", booleans as
    /// true/false, NULL as `NULL`, strings as they were given.
    pub fn to_pgbench_text(&self) -> String {
        match self {
            Value::Null => "NULL".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Double(d) => format_g15(*d),
            Value::Text(s) => s.clone(),
        }
    }
}

/// C's `printf("%.*g", DBL_DIG, d)` with DBL_DIG = 15, as glibc prints it.
pub fn format_g15(d: f64) -> String {
    const P: i32 = 15;
    if d.is_nan() {
        return if d.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if d.is_infinite() {
        return if d < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // The exponent after rounding to P significant digits decides the style.
    let sci = format!("{:.*e}", (P - 1) as usize, d);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is a number");
    if !(-4..P).contains(&exp) {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let fixed = format!("{:.*}", (P - 1 - exp) as usize, d);
        strip_zeros(&fixed).to_string()
    }
}

/// %g drops trailing zeros of the fraction, and the point if nothing is left after it.
fn strip_zeros(s: &str) -> &str {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.')
}

/// pgbench's is_an_int: `^\s*[-+]?[0-9]+$` (and a lone sign or blank passes, as in C).
fn is_an_int(s: &str) -> bool {
    let t = s.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    t.bytes().all(|b| b.is_ascii_digit())
}

/// pgbench's strtoint64: blanks around, a sign, digits, no overflow.
pub fn strtoint64(s: &str) -> Option<i64> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Accumulate negatively so that i64::MIN parses.
    let mut acc: i64 = 0;
    for b in digits.bytes() {
        acc = acc.checked_mul(10)?.checked_sub((b - b'0') as i64)?;
    }
    if neg {
        Some(acc)
    } else {
        acc.checked_neg()
    }
}

/// pgbench's strtodouble: all of the text must be a number, and not out of range.
pub fn strtodouble(s: &str) -> Option<f64> {
    let t = s.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b');
    let d: f64 = t.parse().ok()?;
    let named_inf = t
        .trim_start_matches(['+', '-'])
        .to_ascii_lowercase()
        .starts_with("inf");
    if d.is_infinite() && !named_inf {
        return None; // strtod's ERANGE
    }
    Some(d)
}

/// makeVariableValue: a string-form value as a typed one, or pgbench's complaint.
pub fn from_text(name: &str, text: &str) -> Result<Value, String> {
    let malformed = || format!("malformed variable \"{name}\" value: \"{text}\"");
    if text.is_empty() {
        return Err(malformed());
    }
    let lower = text.to_ascii_lowercase();
    // Prefixes of true/yes/false/no count, as in pgbench ("o" alone does not).
    let prefix_of = |word: &str| word.starts_with(lower.as_str());
    if lower == "null" {
        Ok(Value::Null)
    } else if prefix_of("true") || prefix_of("yes") || lower == "on" {
        Ok(Value::Bool(true))
    } else if prefix_of("false") || prefix_of("no") || lower == "off" || lower == "of" {
        Ok(Value::Bool(false))
    } else if is_an_int(text) {
        strtoint64(text).map(Value::Int).ok_or_else(malformed)
    } else {
        strtodouble(text).map(Value::Double).ok_or_else(malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_glibc_g15() {
        assert_eq!(format_g15(4.0 / 7.0), "0.571428571428571");
        assert_eq!(format_g15(1.0), "1");
        assert_eq!(format_g15(1e15), "1e+15");
        assert_eq!(format_g15(123456789012345.0), "123456789012345");
        assert_eq!(format_g15(0.0001), "0.0001");
        assert_eq!(format_g15(0.00001), "1e-05");
        assert_eq!(format_g15(-2.5e-300), "-2.5e-300");
        assert_eq!(format_g15(std::f64::consts::PI), "3.14159265358979");
        assert_eq!(format_g15(f64::INFINITY), "inf");
    }

    #[test]
    fn text_reads_as_pgbench_reads_it() {
        assert_eq!(from_text("v", "12"), Ok(Value::Int(12)));
        assert_eq!(from_text("v", " -7"), Ok(Value::Int(-7)));
        assert_eq!(from_text("v", "1.5"), Ok(Value::Double(1.5)));
        assert_eq!(from_text("v", "ye"), Ok(Value::Bool(true)));
        assert_eq!(from_text("v", "OFF"), Ok(Value::Bool(false)));
        assert_eq!(from_text("v", "NULL"), Ok(Value::Null));
        assert!(from_text("v", "99999999999999999999").is_err());
        assert_eq!(
            from_text("v", "abc"),
            Err("malformed variable \"v\" value: \"abc\"".to_string())
        );
        assert_eq!(strtoint64("-9223372036854775808"), Some(i64::MIN));
    }
}
