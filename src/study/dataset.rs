//! Data is loaded once per (server binary, dataset) and kept as a cleanly shut-down datadir;
//! every variant run starts from a fresh copy of it (docs/study-file.md#dataset). A version's data is
//! prepared by that version, never shared across versions.

use crate::server::{Binaries, Home, Sandbox, SandboxSpec};
use crate::workloads::sysbench::{sysbench_workload, OltpOptions};
use anyhow::{Context, Result};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// The data is the same for every study that asks for the same size: a fixed seed.
pub const DATA_SEED: u64 = 20_201_024;

/// The database the sysbench tables live in.
pub const DATABASE: &str = "sbtest";

/// A prepared datadir for `basedir`'s server holding the sysbench tables `opts` describe,
/// from the cache under `home` or loaded now (printing what it does to `log`).
pub fn prepared(
    home: &Home,
    basedir: Option<&Path>,
    opts: &OltpOptions,
    log: &mut dyn std::io::Write,
) -> Result<PathBuf> {
    let bin = Binaries::locate(basedir)?;
    let mut h = DefaultHasher::new();
    bin.server.hash(&mut h);
    bin.version.hash(&mut h);
    DATA_SEED.hash(&mut h);
    // Only what shapes the data: table count and size, and the schema switches.
    (
        opts.tables,
        opts.table_size,
        opts.auto_inc,
        opts.secondary,
        opts.create_secondary,
    )
        .hash(&mut h);
    opts.mysql_storage_engine.hash(&mut h);
    format!("{:?}", opts.rand_type).hash(&mut h);
    let key = format!("{:016x}", h.finish());
    let dest = home.root().join("datasets").join(format!(
        "{}-{}x{}-{key}",
        bin.label().replace(' ', "-"),
        opts.tables,
        opts.table_size
    ));
    let data = dest.join("data");
    if data.join(DATABASE).is_dir() {
        return Ok(data);
    }
    writeln!(
        log,
        "preparing {} table(s) x {} rows with {} (once; later runs copy it)",
        opts.tables,
        opts.table_size,
        bin.label()
    )?;
    let name = format!("prep-{key}");
    let mut spec = SandboxSpec::new(&name, home.clone());
    spec.basedir = basedir.map(Path::to_path_buf);
    spec.fresh = true;
    let mut sb = Sandbox::start(spec).context("starting a sandbox to load the dataset")?;
    let ep = sb.admin_endpoint().with_database(Some(DATABASE));
    let workload = sysbench_workload("oltp_read_write", opts)?;
    workload
        .prepare(&ep, 2, DATA_SEED)
        .context("loading the sysbench tables")?;
    let tmp = dest.with_extension("tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    sb.snapshot(&tmp.join("data"))?;
    drop(sb);
    let _ = std::fs::remove_dir_all(home.sandbox_dir(&name));
    if std::fs::rename(&tmp, &dest).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(data)
}
