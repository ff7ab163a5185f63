//! oltp_insert (docs/sysbench-compat.md#the-ten-workloads): one text-protocol INSERT per event, never prepared.

use super::options::OltpOptions;
use super::sql;
use crate::connection::Session;
use crate::workloads::errors::classify_error;
use crate::workloads::random::{fill_template, RangeSampler, Rng, C_TEMPLATE, PAD_TEMPLATE};
use crate::workloads::{EventError, QueryCounters, Worker};
use std::fmt::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// sysbench's `unique()` (docs/sysbench-compat.md#draws): a shared counter through a 32-bit permutation of
/// quadratic residues modulo the prime 2^32 − 5 (Preshing's RandomSequence), so ids never
/// repeat within a run.
#[derive(Debug)]
pub struct UniqueIds {
    index: AtomicU32,
    offset: u32,
}

impl UniqueIds {
    pub fn new(seed: u64) -> UniqueIds {
        let (a, b) = (seed as u32, (seed >> 32) as u32);
        UniqueIds {
            index: AtomicU32::new(permute(permute(a).wrapping_add(0x682f_0161))),
            offset: permute(permute(b).wrapping_add(0x4679_0905)),
        }
    }

    pub fn next(&self) -> u32 {
        let i = self.index.fetch_add(1, Ordering::Relaxed);
        permute(permute(i).wrapping_add(self.offset) ^ 0x5bf0_3635)
    }
}

fn permute(x: u32) -> u32 {
    const PRIME: u32 = 4_294_967_291;
    if x >= PRIME {
        return x; // the 5 values above the prime map to themselves
    }
    let residue = (u64::from(x) * u64::from(x) % u64::from(PRIME)) as u32;
    if x <= PRIME / 2 {
        residue
    } else {
        PRIME - residue
    }
}

pub struct InsertWorker {
    tables: u32,
    auto_inc: bool,
    rng: Rng,
    ks: RangeSampler,
    unique: Arc<UniqueIds>,
    prefixes: Vec<String>,
    /// auto_inc where an id of 0 is stored as it is: sysbench leaves the id to the serial
    /// column.
    serial_prefixes: Vec<String>,
    c: Vec<u8>,
    pad: Vec<u8>,
    sql: String,
}

impl InsertWorker {
    pub fn new(opts: &OltpOptions, rng: Rng, unique: Arc<UniqueIds>) -> InsertWorker {
        InsertWorker {
            tables: opts.tables,
            auto_inc: opts.auto_inc,
            rng,
            ks: RangeSampler::new(opts.distribution(), 1, opts.table_size),
            unique,
            prefixes: (1..=opts.tables).map(sql::insert_values_prefix).collect(),
            serial_prefixes: (1..=opts.tables)
                .map(sql::insert_values_prefix_serial)
                .collect(),
            c: Vec::with_capacity(C_TEMPLATE.len()),
            pad: Vec::with_capacity(PAD_TEMPLATE.len()),
            sql: String::with_capacity(256),
        }
    }
}

impl Worker for InsertWorker {
    fn event(
        &mut self,
        conn: &mut Session,
        counters: &mut QueryCounters,
    ) -> Result<(), EventError> {
        let t = self.rng.uniform(1, self.tables) as usize;
        let k = self.ks.sample(&mut self.rng);
        fill_template(&mut self.rng, C_TEMPLATE, &mut self.c);
        fill_template(&mut self.rng, PAD_TEMPLATE, &mut self.pad);
        let (c, pad) = (
            std::str::from_utf8(&self.c).unwrap_or_default(),
            std::str::from_utf8(&self.pad).unwrap_or_default(),
        );
        self.sql.clear();
        if self.auto_inc && !conn.dialect().assigns_key_for_zero() {
            // An id of 0 would be stored: the serial column assigns it when left out.
            self.sql.push_str(&self.serial_prefixes[t - 1]);
            let _ = write!(self.sql, "({k}, '{c}', '{pad}')");
        } else {
            // 0 lets AUTO_INCREMENT assign the id; otherwise a unique id mapped to signed INT.
            let id: i64 = if self.auto_inc {
                0
            } else {
                i64::from(self.unique.next()) - 2_147_483_648
            };
            self.sql.push_str(&self.prefixes[t - 1]);
            let _ = write!(self.sql, "({id}, {k}, '{c}', '{pad}')");
        }
        let outcome = conn
            .query(self.sql.as_str())
            .map_err(|e| classify_error(e, &self.sql))?;
        if outcome.affected_rows > 0 {
            counters.writes += 1;
        } else {
            counters.other += 1;
        }
        Ok(())
    }

    fn reconnected(&mut self, _conn: &mut Session) -> anyhow::Result<()> {
        Ok(()) // nothing prepared
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn unique_ids_do_not_repeat() {
        let u = UniqueIds::new(12345);
        let ids: HashSet<u32> = (0..100_000).map(|_| u.next()).collect();
        assert_eq!(ids.len(), 100_000);
    }

    #[test]
    fn permutation_is_a_bijection_near_the_prime() {
        let xs: Vec<u32> = (4_294_967_000..=u32::MAX).collect();
        let ys: HashSet<u32> = xs.iter().map(|&x| permute(x)).collect();
        assert_eq!(ys.len(), xs.len());
    }
}
