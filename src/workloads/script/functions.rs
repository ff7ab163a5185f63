//! pgbench's evalStandardFunc: operators and functions over evaluated arguments, with its
//! overflow checks and messages.

use super::coerce::{c_f, to_bool, to_double, to_int};
use super::context::Ctx;
use super::expr::Func;
use super::hash::{fnv1a, murmur2, permute};
use super::random::{
    exponential, gaussian, getrand, zipfian, MAX_ZIPFIAN_PARAM, MIN_GAUSSIAN_PARAM,
    MIN_ZIPFIAN_PARAM,
};
use super::value::{format_g15, Value};

fn is_double(v: &Value) -> bool {
    matches!(v, Value::Double(_))
}

pub fn standard(ctx: &mut Ctx, f: Func, a: &[Value]) -> Result<Value, String> {
    use Func::*;
    match f {
        Add | Sub | Mul | Div | Mod | Eq | Ne | Le | Lt => arith(f, &a[0], &a[1]),
        BitAnd | BitOr | BitXor | Shl | Shr => {
            let (l, r) = (to_int(&a[0])?, to_int(&a[1])?);
            Ok(Value::Int(match f {
                BitAnd => l & r,
                BitOr => l | r,
                BitXor => l ^ r,
                // x86 masks the shift count to 6 bits, as pgbench's C does there.
                Shl => l.wrapping_shl(r as u32),
                _ => l.wrapping_shr(r as u32),
            }))
        }
        Not => Ok(Value::Bool(!to_bool(&a[0])?)),
        Pi => Ok(Value::Double(std::f64::consts::PI)),
        Abs => match &a[0] {
            Value::Int(i) => Ok(Value::Int(i.wrapping_abs())),
            other => Ok(Value::Double(to_double(other)?.abs())),
        },
        Debug => {
            let text = match &a[0] {
                Value::Null => "null".to_string(),
                Value::Bool(b) => format!("boolean {b}"),
                Value::Int(i) => format!("int {i}"),
                Value::Double(d) => format!("double {}", format_g15(*d)),
                Value::Text(s) => s.clone(),
            };
            // pgbench numbers the command from 1 here.
            let line = format!(
                "debug(script={},command={}): {text}\n",
                ctx.script,
                ctx.command + 1
            );
            ctx.debug
                .write_all(line.as_bytes())
                .map_err(|e| format!("could not write debug output: {e}"))?;
            Ok(a[0].clone())
        }
        Double | Sqrt | Ln | Exp => {
            let d = to_double(&a[0])?;
            Ok(Value::Double(match f {
                Sqrt => d.sqrt(),
                Ln => d.ln(),
                Exp => d.exp(),
                _ => d,
            }))
        }
        Int => Ok(Value::Int(to_int(&a[0])?)),
        Least | Greatest => extremum(f == Least, a),
        Random | RandomExponential | RandomGaussian | RandomZipfian => random(ctx, f, a),
        Pow => Ok(Value::Double(to_double(&a[0])?.powf(to_double(&a[1])?))),
        // Same type and same value (IS NULL, IS TRUE, IS FALSE).
        Is => Ok(Value::Bool(match (&a[0], &a[1]) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(x), Value::Bool(y)) => x == y,
            _ => false,
        })),
        HashMurmur2 | HashFnv1a => {
            let (v, seed) = (to_int(&a[0])?, to_int(&a[1])? as u64);
            Ok(Value::Int(if f == HashMurmur2 {
                murmur2(v, seed)
            } else {
                fnv1a(v, seed)
            }))
        }
        Permute => {
            let (v, size, seed) = (to_int(&a[0])?, to_int(&a[1])?, to_int(&a[2])?);
            if size <= 0 {
                return Err("permute size parameter must be greater than zero".to_string());
            }
            Ok(Value::Int(permute(v, size, seed)))
        }
        And | Or | Case => unreachable!("lazy functions are evaluated in eval"),
    }
}

/// + - * / % and comparisons: double if either side is (except %), else checked int64.
fn arith(f: Func, l: &Value, r: &Value) -> Result<Value, String> {
    use Func::*;
    if (is_double(l) || is_double(r)) && f != Mod {
        let (l, r) = (to_double(l)?, to_double(r)?);
        return Ok(match f {
            Add => Value::Double(l + r),
            Sub => Value::Double(l - r),
            Mul => Value::Double(l * r),
            Div => Value::Double(l / r),
            Eq => Value::Bool(l == r),
            Ne => Value::Bool(l != r),
            Le => Value::Bool(l <= r),
            _ => Value::Bool(l < r),
        });
    }
    let (l, r) = (to_int(l)?, to_int(r)?);
    let checked = |v: Option<i64>, what: &str| {
        v.map(Value::Int)
            .ok_or_else(|| format!("bigint {what} out of range"))
    };
    match f {
        Add => checked(l.checked_add(r), "add"),
        Sub => checked(l.checked_sub(r), "sub"),
        Mul => checked(l.checked_mul(r), "mul"),
        Eq => Ok(Value::Bool(l == r)),
        Ne => Ok(Value::Bool(l != r)),
        Le => Ok(Value::Bool(l <= r)),
        Lt => Ok(Value::Bool(l < r)),
        _ if r == 0 => Err("division by zero".to_string()),
        Div => checked(l.checked_div(r), "div"),
        // x % -1 is 0, even for the smallest bigint.
        _ => Ok(Value::Int(l.checked_rem(r).unwrap_or(0))),
    }
}

fn extremum(least: bool, a: &[Value]) -> Result<Value, String> {
    if a.iter().any(is_double) {
        let mut m = to_double(&a[0])?;
        for v in &a[1..] {
            let d = to_double(v)?;
            // pgbench's Min/Max macros: keep the first unless the new one is strictly better.
            if (least && d < m) || (!least && d > m) {
                m = d;
            }
        }
        return Ok(Value::Double(m));
    }
    let mut m = to_int(&a[0])?;
    for v in &a[1..] {
        let i = to_int(v)?;
        m = if least { m.min(i) } else { m.max(i) };
    }
    Ok(Value::Int(m))
}

fn random(ctx: &mut Ctx, f: Func, a: &[Value]) -> Result<Value, String> {
    let (min, max) = (to_int(&a[0])?, to_int(&a[1])?);
    if min > max {
        return Err("empty range given to random".to_string());
    }
    if max
        .checked_sub(min)
        .and_then(|d| d.checked_add(1))
        .is_none()
    {
        return Err("random range is too large".to_string());
    }
    if f == Func::Random {
        return Ok(Value::Int(getrand(ctx.rs, min, max)));
    }
    let p = to_double(&a[2])?;
    let v = match f {
        Func::RandomGaussian => {
            if p < MIN_GAUSSIAN_PARAM {
                return Err(format!(
                    "gaussian parameter must be at least {} (not {})",
                    c_f(MIN_GAUSSIAN_PARAM),
                    c_f(p)
                ));
            }
            gaussian(ctx.rs, min, max, p)
        }
        Func::RandomZipfian => {
            // As in C, a NaN parameter passes.
            if !p.is_nan() && !(MIN_ZIPFIAN_PARAM..=MAX_ZIPFIAN_PARAM).contains(&p) {
                return Err(format!(
                    "zipfian parameter must be in range [{MIN_ZIPFIAN_PARAM:.3}, {MAX_ZIPFIAN_PARAM:.0}] (not {})",
                    c_f(p)
                ));
            }
            zipfian(ctx.rs, min, max, p)
        }
        _ => {
            if p <= 0.0 {
                return Err(format!(
                    "exponential parameter must be greater than zero (not {})",
                    c_f(p)
                ));
            }
            exponential(ctx.rs, min, max, p)
        }
    };
    Ok(Value::Int(v))
}
