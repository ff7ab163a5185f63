//! pgbench's coercions between its value types, and how it prints a double with "%f".

use super::value::Value;

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) => "int",
        Value::Double(_) => "double",
        // Only typed values reach here; a string would have been read first.
        Value::Text(_) => "none",
    }
}

/// coerceToBool: only booleans.
pub fn to_bool(v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(format!("cannot coerce {} to boolean", type_name(other))),
    }
}

/// valueTruth, for \if and CASE: non-zero numbers are true, NULL false.
pub fn truth(v: &Value) -> bool {
    match v {
        Value::Null | Value::Text(_) => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Double(d) => *d != 0.0,
    }
}

/// C's "%f".
pub fn c_f(d: f64) -> String {
    if d.is_nan() {
        return if d.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if d.is_infinite() {
        return if d < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    format!("{d:.6}")
}

/// coerceToInt: doubles round half to even (rint) and must fit.
pub fn to_int(v: &Value) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Double(d) => {
            let r = d.round_ties_even();
            // FLOAT8_FITS_IN_INT64
            let lim = (1u64 << 63) as f64;
            if r.is_nan() || !(-lim..lim).contains(&r) {
                return Err(format!("double to int overflow for {}", c_f(r)));
            }
            Ok(r as i64)
        }
        other => Err(format!("cannot coerce {} to int", type_name(other))),
    }
}

/// coerceToDouble.
pub fn to_double(v: &Value) -> Result<f64, String> {
    match v {
        Value::Int(i) => Ok(*i as f64),
        Value::Double(d) => Ok(*d),
        other => Err(format!("cannot coerce {} to double", type_name(other))),
    }
}
