//! CSV: one file per table for spreadsheets and scripts. Numbers at full precision; a spread
//! or a change becomes several columns (median, min, max; ratio, low, high, verdict in the
//! words of every format).

use crate::report::grid::{Kind, Table, Value};

/// RFC 4180 quoting: only where a field needs it.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn number(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        String::new()
    }
}

fn header(name: &str, kind: Kind) -> Vec<String> {
    match kind {
        Kind::Spread => vec![
            format!("{name} median"),
            format!("{name} min"),
            format!("{name} max"),
        ],
        Kind::Change => vec![
            name.to_string(),
            format!("{name} low"),
            format!("{name} high"),
            format!("{name} verdict"),
        ],
        Kind::Label | Kind::Number | Kind::Ratio => vec![name.to_string()],
    }
}

fn fields(v: &Value, kind: Kind) -> Vec<String> {
    let width = header("", kind).len();
    match v {
        // A summary in a column of changes (the glance's "3 of 9 resolved: …") keeps the
        // row's columns in place.
        Value::Text(s) => {
            let mut f = vec![s.clone()];
            f.resize(width, String::new());
            f
        }
        Value::List { .. } => vec![v.text()],
        Value::Number(x) | Value::Ratio(x) => vec![number(*x)],
        Value::Spread { median, min, max } => vec![number(*median), number(*min), number(*max)],
        Value::Change(c) => {
            // The verdict in the words of every other format: said of the new variant,
            // whichever way the ratio is shown.
            let (r, lo, hi) = c.shown();
            vec![number(r), number(lo), number(hi), c.word().into()]
        }
        // Validity is in validity.csv; here the number only.
        Value::Flagged(inner) => fields(inner, kind),
        // Missing values leave the columns empty; a label column says why.
        Value::Missing(why) if kind == Kind::Label => vec![why.clone()],
        Value::Missing(_) => vec![String::new(); width],
    }
}

pub fn table(t: &Table) -> String {
    let mut out = String::new();
    let head: Vec<String> = t
        .columns
        .iter()
        .flat_map(|c| header(&c.name, c.kind))
        .map(|h| field(&h))
        .collect();
    out.push_str(&head.join(","));
    out.push('\n');
    for row in &t.rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&t.columns)
            .flat_map(|(v, c)| fields(v, c.kind))
            .map(|f| field(&f))
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::grid::{Change, Column};
    use crate::stats::{Comparison, Verdict};

    #[test]
    fn spreads_and_changes_split_into_columns_and_text_is_quoted() {
        let t = Table {
            id: "t".into(),
            title: "t".into(),
            note: String::new(),
            columns: vec![
                Column {
                    name: "step".into(),
                    kind: Kind::Label,
                },
                Column {
                    name: "a".into(),
                    kind: Kind::Spread,
                },
                Column {
                    name: "b / a".into(),
                    kind: Kind::Change,
                },
            ],
            rows: vec![
                vec![
                    Value::Text("x, \"y\"".into()),
                    Value::Spread {
                        median: 2.0,
                        min: 1.0,
                        max: 3.5,
                    },
                    Value::Change(Change::throughput(Comparison {
                        ratio: 0.5,
                        low: 0.4,
                        high: 0.625,
                        verdict: Verdict::Below,
                        rounds: 3,
                        spread: 0.1,
                    })),
                ],
                vec![
                    Value::Text("z".into()),
                    Value::Missing("failed".into()),
                    Value::Missing("—".into()),
                ],
            ],
            legend: Vec::new(),
            when_empty: String::new(),
        };
        assert_eq!(
            table(&t),
            "step,a median,a min,a max,b / a,b / a low,b / a high,b / a verdict\n\
             \"x, \"\"y\"\"\",2,1,3.5,0.5,0.4,0.625,slower\n\
             z,,,,,,,\n"
        );
    }
}
