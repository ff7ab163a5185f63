//! Evaluating expressions as pgbench's evaluateExpr: lazy AND/OR/CASE, the rest with all
//! arguments first (NULL in, NULL out, except IS and debug).

use super::expr::{Expr, Func};
use super::functions::standard;
use super::prng::PgPrng;
use super::value::{from_text, Value};
use std::collections::HashMap;

/// What an expression may touch: the client's variables and generator, and where debug()
/// writes (with the script and command it names).
pub struct Ctx<'a> {
    pub vars: &'a HashMap<String, Value>,
    pub rs: &'a mut PgPrng,
    pub debug: &'a mut dyn std::io::Write,
    pub script: usize,
    pub command: usize,
}

/// A value for use in an expression; string-form values are read as makeVariableValue does.
pub fn typed(name: &str, v: &Value) -> Result<Value, String> {
    match v {
        Value::Text(s) => from_text(name, s),
        other => Ok(other.clone()),
    }
}

pub fn eval(ctx: &mut Ctx, e: &Expr) -> Result<Value, String> {
    match e {
        Expr::Const(v) => Ok(v.clone()),
        Expr::Var(name) => match ctx.vars.get(name) {
            None => Err(format!("undefined variable \"{name}\"")),
            Some(v) => typed(name, v),
        },
        Expr::Func(f @ (Func::And | Func::Or), args) => lazy_and_or(ctx, *f, args),
        Expr::Func(Func::Case, args) => lazy_case(ctx, args),
        Expr::Func(f, args) => {
            let vals = args
                .iter()
                .map(|a| eval(ctx, a))
                .collect::<Result<Vec<_>, _>>()?;
            if *f != Func::Is && *f != Func::Debug && vals.contains(&Value::Null) {
                return Ok(Value::Null);
            }
            standard(ctx, *f, &vals)
        }
    }
}

/// pgbench's AND/OR: a NULL first operand gives NULL (without looking at the second).
fn lazy_and_or(ctx: &mut Ctx, f: Func, args: &[Expr]) -> Result<Value, String> {
    let a = eval(ctx, &args[0])?;
    if a == Value::Null {
        return Ok(Value::Null);
    }
    let a = to_bool(&a)?;
    if a == (f == Func::Or) {
        return Ok(Value::Bool(a));
    }
    match eval(ctx, &args[1])? {
        Value::Null => Ok(Value::Null),
        b => Ok(Value::Bool(to_bool(&b)?)),
    }
}

fn lazy_case(ctx: &mut Ctx, args: &[Expr]) -> Result<Value, String> {
    let mut rest = args;
    while rest.len() > 1 {
        if truth(&eval(ctx, &rest[0])?) {
            return eval(ctx, &rest[1]);
        }
        rest = &rest[2..];
    }
    eval(ctx, &rest[0])
}

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
