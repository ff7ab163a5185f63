//! Row values (docs/insert-benchmark.md#tables-and-rows): uniform integers in the original's domains, the statement's
//! wall-clock time, and a `data` column that is `a`s followed by random base64 characters.
//! Unlike the original, every draw comes from a seeded generator, so runs are repeatable.

use super::options::IbenchOptions;
use crate::connection::wire::Value;
use crate::workloads::random::Rng;
use std::time::{SystemTime, UNIX_EPOCH};

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Draws rows for one table's inserter.
pub struct RowMaker {
    rng: Rng,
    cashregisters: u32,
    products: u32,
    customers: u32,
    max_price: u32,
    data_min: u32,
    data_max: u32,
    random_pct: u32,
}

impl RowMaker {
    pub fn new(o: &IbenchOptions, rng: Rng) -> Self {
        RowMaker {
            rng,
            cashregisters: o.cashregisters,
            products: o.products,
            customers: o.customers,
            max_price: o.max_price,
            data_min: o.data_length_min,
            data_max: o.data_length_max,
            random_pct: o.data_random_pct,
        }
    }

    /// Uniform in [0, n).
    fn below(&mut self, n: u32) -> i64 {
        i64::from(self.rng.uniform(0, n - 1))
    }

    /// The data column: length uniform in [min, max]; the last floor(L × 0.75 × pct/100)
    /// characters random base64, the rest `a`.
    pub fn data(&mut self) -> Vec<u8> {
        let len = self.rng.uniform(self.data_min, self.data_max) as usize;
        let random = (len as f64 * 0.75 * self.random_pct as f64 / 100.0) as usize;
        let mut s = vec![b'a'; len - random];
        for _ in 0..random {
            s.push(BASE64[(self.rng.next_u64() >> 58) as usize]);
        }
        s
    }

    /// The rows of one multi-row INSERT, all sharing `now`.
    pub fn fill(&mut self, rows: usize, batch: &mut Batch) {
        batch.now = datetime_now();
        batch.ints.clear();
        batch.data.clear();
        for _ in 0..rows {
            batch.ints.push([
                self.below(self.cashregisters),
                self.below(self.customers),
                self.below(self.products),
                self.below(self.max_price),
            ]);
            let data = self.data();
            batch.data.push(data);
        }
    }
}

/// The values of one multi-row INSERT, kept between statements.
pub struct Batch {
    now: Value<'static>,
    ints: Vec<[i64; 4]>,
    data: Vec<Vec<u8>>,
}

impl Default for Batch {
    fn default() -> Self {
        Batch {
            now: Value::Null,
            ints: Vec::new(),
            data: Vec::new(),
        }
    }
}

impl Batch {
    /// The statement's parameters: 6 per row, in the INSERT's column order.
    pub fn values(&self) -> Vec<Value<'_>> {
        let mut v = Vec::with_capacity(self.ints.len() * 6);
        for (ints, data) in self.ints.iter().zip(&self.data) {
            v.push(self.now);
            v.extend(ints.iter().map(|&i| Value::Int(i)));
            v.push(Value::Bytes(data));
        }
        v
    }
}

/// Wall-clock time (UTC), second precision, as a DATETIME value.
fn datetime_now() -> Value<'static> {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    Value::DateTime {
        year: y as u16,
        month: m,
        day: d,
        hour: (rem / 3600) as u8,
        minute: (rem / 60 % 60) as u8,
        second: (rem % 60) as u8,
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u8, u8) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `INSERT INTO t (...) VALUES (?,?,?,?,?,?),...` for `rows` rows; transactionid is the server's.
pub fn insert_sql(table: &str, rows: usize) -> String {
    let tuple = "(?,?,?,?,?,?)";
    let values = vec![tuple; rows].join(",");
    format!(
        "INSERT INTO {table} (dateandtime, cashregisterid, customerid, productid, price, data) VALUES {values}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_is_as_then_base64_with_the_specs_lengths() {
        let mut m = RowMaker::new(&IbenchOptions::default(), Rng::seeded(3));
        let (mut random_chars, mut total) = (0usize, 0usize);
        for _ in 0..20_000 {
            let d = m.data();
            assert!((10..=20).contains(&d.len()));
            let random = (d.len() as f64 * 0.375) as usize;
            assert!(d[..d.len() - random].iter().all(|&c| c == b'a'));
            assert!(d.iter().all(|c| BASE64.contains(c)));
            random_chars += random;
            total += d.len();
        }
        let share = random_chars as f64 / total as f64;
        assert!((0.33..0.375).contains(&share), "{share}");
    }

    #[test]
    fn values_stay_in_their_domains() {
        let o = IbenchOptions::default();
        let mut m = RowMaker::new(&o, Rng::seeded(9));
        let mut batch = Batch::default();
        m.fill(1000, &mut batch);
        let p = batch.values();
        assert_eq!(p.len(), 6000);
        let ints = |col: usize| {
            p.chunks(6).map(move |r| match r[col] {
                Value::Int(v) => v,
                _ => panic!("not an int"),
            })
        };
        for (col, n) in [(1, 1000), (2, 100_000), (3, 10_000), (4, 500)] {
            assert!(ints(col).all(|v| (0..n).contains(&v)), "column {col}");
            assert!(
                ints(col).max().unwrap() > n * 9 / 10,
                "column {col} never near its top"
            );
        }
        assert!(
            p.chunks(6).all(|r| r[0] == p[0]),
            "one timestamp per statement"
        );
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn insert_has_six_placeholders_per_row() {
        let s = insert_sql("pi1", 5);
        assert_eq!(s.matches('?').count(), 30);
        assert!(!s.contains("transactionid"));
    }
}
