//! Evaluating expressions as pgbench's evaluateExpr: lazy AND/OR/CASE, the rest with all
//! arguments first (NULL in, NULL out, except IS and debug).

use super::coerce::{to_bool, truth};
use super::context::Ctx;
use super::expr::{Expr, Func};
use super::functions::standard;
use super::value::{from_text, Value};

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
