//! Parameters of a prepared statement in the binary protocol (COM_STMT_EXECUTE).

use super::packets::put_lenenc;

/// A value bound to a `?`. Borrowed, so that binding allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    Null,
    Int(i64),
    Bytes(&'a [u8]),
    /// A DATETIME to the second.
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
    },
}

const MYSQL_TYPE_NULL: u8 = 0x06;
const MYSQL_TYPE_LONGLONG: u8 = 0x08;
const MYSQL_TYPE_DATETIME: u8 = 0x0C;
const MYSQL_TYPE_STRING: u8 = 0xFE;

impl Value<'_> {
    /// The type and flag bytes announced for this value.
    fn type_bytes(&self) -> [u8; 2] {
        let t = match self {
            Value::Null => MYSQL_TYPE_NULL,
            Value::Int(_) => MYSQL_TYPE_LONGLONG,
            Value::Bytes(_) => MYSQL_TYPE_STRING,
            Value::DateTime { .. } => MYSQL_TYPE_DATETIME,
        };
        [t, 0]
    }

    fn put(&self, out: &mut Vec<u8>) {
        match *self {
            Value::Null => {}
            Value::Int(i) => out.extend_from_slice(&i.to_le_bytes()),
            Value::Bytes(b) => {
                put_lenenc(out, b.len() as u64);
                out.extend_from_slice(b);
            }
            Value::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
            } => {
                out.push(7);
                out.extend_from_slice(&year.to_le_bytes());
                out.extend_from_slice(&[month, day, hour, minute, second]);
            }
        }
    }
}

/// Append the parameter block of COM_STMT_EXECUTE to `out`: NULL bitmap, then the types
/// when they differ from `bound` (the types the server already has for this statement,
/// which it keeps between executions, as libmariadb relies on), then the values.
/// `bound` is updated to what the server has afterwards; true when the types were sent.
pub fn put_params(out: &mut Vec<u8>, params: &[Value<'_>], bound: &mut Vec<u8>) -> bool {
    if params.is_empty() {
        return false;
    }
    let bitmap_at = out.len();
    out.resize(bitmap_at + params.len().div_ceil(8), 0);
    for (i, p) in params.iter().enumerate() {
        if *p == Value::Null {
            out[bitmap_at + i / 8] |= 1 << (i % 8);
        }
    }
    let same = bound.len() == 2 * params.len()
        && params
            .iter()
            .zip(bound.chunks_exact(2))
            .all(|(p, b)| p.type_bytes() == b);
    if same {
        out.push(0);
    } else {
        out.push(1);
        bound.clear();
        for p in params {
            bound.extend_from_slice(&p.type_bytes());
        }
        out.extend_from_slice(bound);
    }
    for p in params {
        p.put(out);
    }
    !same
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes as libmariadb sends them for sysbench's point select (`id=?`, id 501), first
    /// and second execution (captured with strace from sysbench 1.0.20).
    #[test]
    fn types_are_sent_once_as_libmariadb_does() {
        let mut bound = vec![];
        let mut out = vec![];
        assert!(put_params(&mut out, &[Value::Int(501)], &mut bound));
        assert_eq!(out, [0x00, 0x01, 0x08, 0x00, 0xf5, 0x01, 0, 0, 0, 0, 0, 0]);
        out.clear();
        assert!(!put_params(&mut out, &[Value::Int(500)], &mut bound));
        assert_eq!(out, [0x00, 0x00, 0xf4, 0x01, 0, 0, 0, 0, 0, 0]);
        // A different type is announced again.
        out.clear();
        put_params(&mut out, &[Value::Bytes(b"ab")], &mut bound);
        assert_eq!(out, [0x00, 0x01, 0xfe, 0x00, 2, b'a', b'b']);
    }

    #[test]
    fn nulls_and_datetimes() {
        let mut bound = vec![];
        let mut out = vec![];
        let when = Value::DateTime {
            year: 2026,
            month: 11,
            day: 23,
            hour: 18,
            minute: 5,
            second: 9,
        };
        put_params(&mut out, &[Value::Null, when], &mut bound);
        assert_eq!(
            out,
            [0b01, 1, 0x06, 0, 0x0C, 0, 7, 0xEA, 0x07, 11, 23, 18, 5, 9]
        );
    }
}
