//! Rows decoded to text, for the few statements whose values a workload keeps (a script's
//! `\gset` and `\aset`): column definitions, text-protocol rows and binary-protocol rows.
//! Everything else is counted and skipped (session.rs).

use super::error::WireError;
use super::packets::lenenc;

/// What psbench keeps of a column definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    kind: u8,
    unsigned: bool,
}

const UNSIGNED_FLAG: u16 = 0x20;

/// A length-encoded string at `p[*at..]`; `None` for SQL NULL (0xFB).
fn lenenc_bytes<'p>(p: &'p [u8], at: &mut usize) -> Result<Option<&'p [u8]>, WireError> {
    if p.get(*at) == Some(&0xFB) {
        *at += 1;
        return Ok(None);
    }
    let len = lenenc(p, at).ok_or_else(|| WireError::protocol("truncated row"))? as usize;
    let bytes = p
        .get(*at..*at + len)
        .ok_or_else(|| WireError::protocol("truncated row"))?;
    *at += len;
    Ok(Some(bytes))
}

/// A ColumnDefinition41 packet: six strings (catalog, schema, table, original table, name,
/// original name), then the fixed fields of which the type and flags matter here.
pub fn column(p: &[u8]) -> Result<Column, WireError> {
    let mut at = 0;
    let mut strings = Vec::with_capacity(6);
    for _ in 0..6 {
        strings.push(lenenc_bytes(p, &mut at)?.unwrap_or_default());
    }
    lenenc(p, &mut at).ok_or_else(|| WireError::protocol("truncated column definition"))?;
    // charset 2, length 4, type 1, flags 2.
    let fixed = p
        .get(at..at + 9)
        .ok_or_else(|| WireError::protocol("truncated column definition"))?;
    Ok(Column {
        name: String::from_utf8_lossy(strings[4]).into_owned(),
        kind: fixed[6],
        unsigned: u16::from_le_bytes([fixed[7], fixed[8]]) & UNSIGNED_FLAG != 0,
    })
}

/// A text-protocol row: every value a length-encoded string or NULL.
pub fn text_row(p: &[u8], columns: usize) -> Result<Vec<Option<String>>, WireError> {
    let mut at = 0;
    (0..columns)
        .map(|_| Ok(lenenc_bytes(p, &mut at)?.map(|b| String::from_utf8_lossy(b).into_owned())))
        .collect()
}

/// A binary-protocol row (0x00, a NULL bitmap offset by 2 bits, then the values by type),
/// each value written as the text protocol would send it.
pub fn binary_row(p: &[u8], columns: &[Column]) -> Result<Vec<Option<String>>, WireError> {
    let bitmap_len = (columns.len() + 7 + 2) / 8;
    let bitmap = p
        .get(1..1 + bitmap_len)
        .ok_or_else(|| WireError::protocol("truncated row"))?;
    let mut at = 1 + bitmap_len;
    let mut out = Vec::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        let bit = i + 2;
        if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
            out.push(None);
            continue;
        }
        out.push(Some(binary_value(p, &mut at, c)?));
    }
    Ok(out)
}

fn fixed<'p>(p: &'p [u8], at: &mut usize, n: usize) -> Result<&'p [u8], WireError> {
    let b = p
        .get(*at..*at + n)
        .ok_or_else(|| WireError::protocol("truncated row"))?;
    *at += n;
    Ok(b)
}

fn binary_value(p: &[u8], at: &mut usize, c: &Column) -> Result<String, WireError> {
    Ok(match c.kind {
        // TINY
        1 => {
            let b = fixed(p, at, 1)?[0];
            if c.unsigned {
                b.to_string()
            } else {
                (b as i8).to_string()
            }
        }
        // SHORT, YEAR
        2 | 13 => {
            let b = fixed(p, at, 2)?;
            let u = u16::from_le_bytes([b[0], b[1]]);
            if c.unsigned || c.kind == 13 {
                u.to_string()
            } else {
                (u as i16).to_string()
            }
        }
        // LONG, INT24
        3 | 9 => {
            let b: [u8; 4] = fixed(p, at, 4)?.try_into().expect("4 bytes");
            if c.unsigned {
                u32::from_le_bytes(b).to_string()
            } else {
                i32::from_le_bytes(b).to_string()
            }
        }
        // LONGLONG
        8 => {
            let b: [u8; 8] = fixed(p, at, 8)?.try_into().expect("8 bytes");
            if c.unsigned {
                u64::from_le_bytes(b).to_string()
            } else {
                i64::from_le_bytes(b).to_string()
            }
        }
        // FLOAT, DOUBLE
        4 => f32::from_le_bytes(fixed(p, at, 4)?.try_into().expect("4 bytes")).to_string(),
        5 => f64::from_le_bytes(fixed(p, at, 8)?.try_into().expect("8 bytes")).to_string(),
        // DATE, DATETIME, TIMESTAMP
        10 | 12 | 7 => {
            let n = fixed(p, at, 1)?[0] as usize;
            let b = fixed(p, at, n)?;
            date_time(b, c.kind == 10)
        }
        // TIME
        11 => {
            let n = fixed(p, at, 1)?[0] as usize;
            time(fixed(p, at, n)?)
        }
        // Strings, decimals, bits, JSON, blobs: length-encoded as in the text protocol.
        _ => lenenc_bytes(p, at)?
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default(),
    })
}

fn micros(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn date_time(b: &[u8], date_only: bool) -> String {
    let get = |i: usize| b.get(i).copied().unwrap_or(0);
    let year = if b.len() >= 2 {
        u16::from_le_bytes([b[0], b[1]])
    } else {
        0
    };
    let date = format!("{year:04}-{:02}-{:02}", get(2), get(3));
    if date_only {
        return date;
    }
    let mut s = format!("{date} {:02}:{:02}:{:02}", get(4), get(5), get(6));
    if b.len() >= 11 {
        s.push_str(&format!(".{:06}", micros(&b[7..11])));
    }
    s
}

fn time(b: &[u8]) -> String {
    if b.len() < 8 {
        return "00:00:00".into();
    }
    let negative = b[0] == 1;
    let days = u32::from_le_bytes([b[1], b[2], b[3], b[4]]);
    let hours = days * 24 + u32::from(b[5]);
    let mut s = format!(
        "{}{hours:02}:{:02}:{:02}",
        if negative { "-" } else { "" },
        b[6],
        b[7]
    );
    if b.len() >= 12 {
        s.push_str(&format!(".{:06}", micros(&b[8..12])));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, kind: u8, flags: u16) -> Vec<u8> {
        let mut p = vec![];
        for s in ["def", "db", "t", "t", name, name] {
            p.push(s.len() as u8);
            p.extend_from_slice(s.as_bytes());
        }
        p.push(0x0c);
        p.extend_from_slice(&[0x3f, 0]);
        p.extend_from_slice(&[20, 0, 0, 0]);
        p.push(kind);
        p.extend_from_slice(&flags.to_le_bytes());
        p.extend_from_slice(&[0, 0, 0]);
        p
    }

    #[test]
    fn column_definitions_give_name_type_and_sign() {
        let c = column(&def("aid", 8, UNSIGNED_FLAG)).unwrap();
        assert_eq!(c.name, "aid");
        assert!(c.unsigned);
        assert!(column(&def("x", 8, 0)[..20]).is_err());
    }

    #[test]
    fn text_rows_keep_nulls() {
        let p = [1, b'7', 0xFB, 2, b'a', b'b'];
        assert_eq!(
            text_row(&p, 3).unwrap(),
            vec![Some("7".into()), None, Some("ab".into())]
        );
        assert!(text_row(&p[..4], 3).is_err());
    }

    /// A row as MySQL sends `SELECT -5, NULL, 'ab', 2.5e0, CAST('2026-12-05 10:11:12' AS
    /// DATETIME), CAST(4294967295 AS UNSIGNED)` over the binary protocol.
    #[test]
    fn binary_rows_read_as_the_text_protocol_writes_them() {
        let cols: Vec<Column> = [
            (8, 0),
            (6, 0),
            (253, 0),
            (5, 0),
            (12, 0),
            (8, UNSIGNED_FLAG),
        ]
        .iter()
        .map(|&(k, f)| column(&def("c", k, f)).unwrap())
        .collect();
        let mut p = vec![0x00];
        // NULL bitmap: column 1 (bit 3).
        p.extend_from_slice(&[0b0000_1000]);
        p.extend_from_slice(&(-5i64).to_le_bytes());
        p.extend_from_slice(&[2, b'a', b'b']);
        p.extend_from_slice(&2.5f64.to_le_bytes());
        p.extend_from_slice(&[7, 0xEA, 0x07, 12, 5, 10, 11, 12]);
        p.extend_from_slice(&4_294_967_295u64.to_le_bytes());
        let row = binary_row(&p, &cols).unwrap();
        assert_eq!(
            row,
            vec![
                Some("-5".into()),
                None,
                Some("ab".into()),
                Some("2.5".into()),
                Some("2026-12-05 10:11:12".into()),
                Some("4294967295".into())
            ]
        );
        assert!(binary_row(&p[..12], &cols).is_err());
    }

    #[test]
    fn times_count_days_as_hours() {
        assert_eq!(time(&[1, 1, 0, 0, 0, 2, 3, 4]), "-26:03:04");
        assert_eq!(
            time(&[0, 0, 0, 0, 0, 1, 2, 3, 5, 0, 0, 0]),
            "01:02:03.000005"
        );
    }
}
