//! sysbench 1.0.20's OLTP workloads (docs/sysbench-compat.md): same schema,
//! data format, statements per event and draws. Events run on psbench's own client
//! (connection::wire); datasets load through the `mysql` crate.

pub mod insert;
pub mod oltp;
pub mod options;
pub mod random_selects;
pub mod schema;
pub mod sql;
pub mod statement;

pub use options::{OltpOptions, PsMode, RandType};

use crate::connection::Endpoint;
use crate::error::usage;
use crate::workloads::random::Rng;
use crate::workloads::{Worker, Workload};
use anyhow::Result;
use insert::{InsertWorker, UniqueIds};
use oltp::{OltpWorker, Plan};
use random_selects::{RandomSelectWorker, Shape};
use std::sync::{Arc, OnceLock};

pub const SYSBENCH_WORKLOADS: &[&str] = &[
    "oltp_point_select",
    "oltp_read_only",
    "oltp_read_write",
    "oltp_write_only",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_insert",
    "oltp_delete",
    "select_random_points",
    "select_random_ranges",
];

/// Worker streams are numbered apart from the per-table prepare streams.
const WORKER_STREAM_BASE: u64 = 1 << 40;

#[derive(Debug)]
enum Script {
    Oltp(Plan),
    /// Shared by the workers; seeded by the first worker's seed.
    Insert(OnceLock<Arc<UniqueIds>>),
    RandomSelect(Shape),
}

/// One sysbench script with its options.
#[derive(Debug)]
pub struct SysbenchWorkload {
    name: &'static str,
    opts: OltpOptions,
    script: Script,
}

/// The workload called `name`, or a usage error listing the valid names.
pub fn sysbench_workload(name: &str, opts: &OltpOptions) -> Result<Box<dyn Workload>> {
    Ok(Box::new(SysbenchWorkload::new(name, opts)?))
}

impl SysbenchWorkload {
    pub fn new(name: &str, opts: &OltpOptions) -> Result<SysbenchWorkload> {
        let Some(&name) = SYSBENCH_WORKLOADS.iter().find(|&&n| n == name) else {
            return Err(usage(format!(
                "unknown workload '{name}'; valid workloads: {}",
                SYSBENCH_WORKLOADS.join(", ")
            )));
        };
        opts.validate()?;
        let script = match name {
            "oltp_insert" => Script::Insert(OnceLock::new()),
            "select_random_points" | "select_random_ranges" => {
                if opts.tables != 1 {
                    return Err(usage(format!("{name} does not support --tables > 1")));
                }
                if name == "select_random_points" {
                    if opts.random_points == 0 {
                        return Err(usage("--random-points must be at least 1"));
                    }
                    Script::RandomSelect(Shape::Points {
                        points: opts.random_points,
                    })
                } else {
                    if opts.number_of_ranges == 0 {
                        return Err(usage("--number-of-ranges must be at least 1"));
                    }
                    Script::RandomSelect(Shape::Ranges {
                        ranges: opts.number_of_ranges,
                        delta: opts.delta,
                    })
                }
            }
            _ => Script::Oltp(
                Plan::for_script(name, opts).expect("every other name is an oltp_* plan"),
            ),
        };
        Ok(SysbenchWorkload {
            name,
            opts: opts.clone(),
            script,
        })
    }

    pub fn options(&self) -> &OltpOptions {
        &self.opts
    }

    /// Rows per table at prepare: oltp_insert with client ids starts from empty tables,
    /// so that its unique ids cannot collide with loaded ones.
    pub fn rows_to_load(&self) -> u32 {
        match self.script {
            Script::Insert(_) if !self.opts.auto_inc => 0,
            _ => self.opts.table_size,
        }
    }
}

impl Workload for SysbenchWorkload {
    fn name(&self) -> &str {
        self.name
    }

    fn prepare(&self, endpoint: &Endpoint, threads: usize, seed: u64) -> Result<()> {
        schema::prepare(endpoint, &self.opts, self.rows_to_load(), threads, seed)
    }

    fn cleanup(&self, endpoint: &Endpoint) -> Result<()> {
        schema::cleanup(endpoint, self.opts.tables)
    }

    fn worker(
        &self,
        thread: usize,
        threads: usize,
        seed: u64,
        conn: &mut crate::connection::Session,
    ) -> Result<Box<dyn Worker>> {
        let rng = Rng::for_stream(seed, WORKER_STREAM_BASE + thread as u64);
        Ok(match &self.script {
            Script::Oltp(plan) => Box::new(OltpWorker::new(conn, plan.clone(), &self.opts, rng)?),
            Script::Insert(unique) => {
                let unique = unique.get_or_init(|| Arc::new(UniqueIds::new(seed)));
                Box::new(InsertWorker::new(&self.opts, rng, unique.clone()))
            }
            Script::RandomSelect(shape) => Box::new(RandomSelectWorker::new(
                conn, *shape, &self.opts, rng, thread, threads,
            )?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let e = SysbenchWorkload::new("oltp_read_writ", &OltpOptions::default()).unwrap_err();
        assert!(crate::error::is_usage(&e));
        assert!(
            e.to_string().contains("oltp_read_write, oltp_write_only"),
            "{e}"
        );
        for name in SYSBENCH_WORKLOADS {
            assert_eq!(
                sysbench_workload(name, &OltpOptions::default())
                    .unwrap()
                    .name(),
                *name
            );
        }
    }

    #[test]
    fn random_selects_need_one_table() {
        let opts = OltpOptions {
            tables: 2,
            ..Default::default()
        };
        let e = SysbenchWorkload::new("select_random_points", &opts).unwrap_err();
        assert!(crate::error::is_usage(&e));
    }
}
