//! Data is loaded once per (server binary, dataset) and kept as a cleanly shut-down datadir;
//! every variant run starts from a fresh copy of it (docs/study-file.md#dataset). A version's data is
//! prepared by that version, never shared across versions.

use crate::engines;
use crate::probes::AdminConn;
use crate::results::study::Dataset;
use crate::server::{Home, SandboxSpec};
use crate::workloads::pgbench::{pgbench_workload, PgbenchOptions};
use crate::workloads::sysbench::{sysbench_workload, OltpOptions};
use anyhow::{Context, Result};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// The data is the same for every study that asks for the same size: a fixed seed.
pub const DATA_SEED: u64 = 20_201_024;

/// The database the sysbench tables live in.
pub const DATABASE: &str = "sbtest";

/// A server binary's prepared data.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The cleanly shut-down datadir every sandbox of that binary copies.
    pub dir: PathBuf,
    /// Data and indexes of the sysbench tables (information_schema, after loading).
    pub bytes: u64,
    /// The server that loaded it (`MariaDB 10.11.19`).
    pub server: String,
    /// Seconds this call spent loading (0 when it came from the cache).
    pub load_s: f64,
}

/// Where a prepared dataset keeps its measured size beside the datadir.
const SIZE_FILE: &str = "bytes";

/// A prepared datadir for `basedir`'s server holding the sysbench tables `opts` describe
/// (and on PostgreSQL pgbench's at `pgbench_scale`, when given), from the cache under `home`
/// or loaded now (printing what it does to `log`).
pub fn prepared(
    home: &Home,
    basedir: Option<&Path>,
    opts: &OltpOptions,
    pgbench_scale: Option<u32>,
    own: &Dataset,
    log: &mut dyn std::io::Write,
) -> Result<Prepared> {
    // The user's own data makes sysbench's tables only where it sizes them.
    let sysbench_tables = !own.is_own() || own.tables.is_some();
    let bin = engines::locate(basedir)?;
    let label = engines::label(&bin);
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
    pgbench_scale.hash(&mut h);
    format!("{:?}", opts.rand_type).hash(&mut h);
    // The user's files by content, not by name.
    (
        sysbench_tables,
        &own.sha256,
        own.load.as_ref().map(|l| (l.events, l.threads)),
    )
        .hash(&mut h);
    let key = format!("{:016x}", h.finish());
    let dest = home.root().join("datasets").join(format!(
        "{}-{}x{}-{key}",
        label.replace(' ', "-"),
        opts.tables,
        opts.table_size
    ));
    let data = dest.join("data");
    let size_of = |dest: &Path| -> u64 {
        std::fs::read_to_string(dest.join(SIZE_FILE))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0)
    };
    // The size file is written before the directory gets its final name: a complete load.
    let done = |dest: &Path| data.is_dir() && dest.join(SIZE_FILE).is_file();
    let cached = |dest: &Path| Prepared {
        dir: data.clone(),
        bytes: size_of(dest),
        server: label.clone(),
        load_s: 0.0,
    };
    if done(&dest) {
        return Ok(cached(&dest));
    }
    // Another study on this home may be loading the same data: wait for it, then take it.
    let what = format!("the dataset {}", dest.display());
    let _lock = crate::server::lock::exclusive(&dest.with_extension("lock"), &what, log)?;
    if done(&dest) {
        return Ok(cached(&dest));
    }
    let started = std::time::Instant::now();
    if sysbench_tables {
        writeln!(
            log,
            "preparing {} table(s) x {} rows with {} (once; later runs copy it)",
            opts.tables, opts.table_size, label
        )?;
    } else {
        writeln!(
            log,
            "preparing the dataset's own data with {label} (once; later runs copy it)"
        )?;
    }
    let name = format!("prep-{key}");
    let mut spec = SandboxSpec::new(&name, home.clone());
    spec.basedir = basedir.map(Path::to_path_buf);
    spec.fresh = true;
    let mut sb = engines::start(spec).context("starting a sandbox to load the dataset")?;
    let ep = sb.admin_endpoint().with_database(Some(DATABASE));
    if sysbench_tables {
        let workload = sysbench_workload("oltp_read_write", opts)?;
        workload
            .prepare(&ep, 2, DATA_SEED)
            .context("loading the sysbench tables")?;
    } else {
        sb.admin_endpoint().create_database_if_missing(DATABASE)?;
    }
    // Given for PostgreSQL studies only (engines::study_checks).
    if let Some(scale) = pgbench_scale {
        let opts = PgbenchOptions {
            scale,
            ..PgbenchOptions::default()
        };
        pgbench_workload("pgbench_tpcb_like", &opts)?
            .prepare(&ep, 1, DATA_SEED)
            .context("loading pgbench's tables")?;
    }
    super::dataset_own::run_sql(&sb, own, DATABASE, log)?;
    super::dataset_own::run_load(&sb, own, DATABASE, DATA_SEED, log)?;
    let bytes = AdminConn::open(&ep)?.tables_bytes(DATABASE)?;
    let tmp = dest.with_extension("tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    std::fs::write(tmp.join(SIZE_FILE), bytes.to_string())?;
    sb.snapshot(&tmp.join("data"))?;
    drop(sb);
    let _ = std::fs::remove_dir_all(home.sandbox_dir(&name));
    if std::fs::rename(&tmp, &dest).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(Prepared {
        dir: data,
        bytes,
        server: label,
        load_s: started.elapsed().as_secs_f64(),
    })
}
/// The data of each of `variants`' binaries that `datadirs` lacks, prepared and recorded.
pub(super) fn add_datadirs(
    home: &Home,
    study: &crate::results::study::Study,
    variants: &[&crate::results::study::Variant],
    res: &mut crate::results::StudyResults,
    datadirs: &mut std::collections::BTreeMap<Option<PathBuf>, Prepared>,
) -> Result<()> {
    let need = study.data_needs()?;
    let data_opts = need.oltp.unwrap_or_default();
    let pgbench_scale = need.pgbench_scale;
    for v in variants {
        if !datadirs.contains_key(&v.basedir) {
            let d = prepared(
                home,
                v.basedir.as_deref(),
                &data_opts,
                pgbench_scale,
                &study.dataset,
                &mut std::io::stderr(),
            )?;
            record_dataset(res, &d, data_opts.tables, data_opts.table_size);
            let note =
                crate::study::regime::size_note(study, v.basedir.as_deref(), &d.server, d.bytes);
            if let Some(n) = note.filter(|n| !res.notes.contains(n)) {
                res.notes.push(n);
            }
            datadirs.insert(v.basedir.clone(), d);
        }
    }
    Ok(())
}

/// The data a binary's variants start from, once per server (a resumed study keeps the
/// first run's loading time and adds this one's).
fn record_dataset(res: &mut crate::results::StudyResults, d: &Prepared, tables: u32, rows: u32) {
    match res.datasets.iter_mut().find(|r| r.server == d.server) {
        Some(r) => r.load_s += d.load_s,
        None => res.datasets.push(crate::results::DatasetRecord {
            server: d.server.clone(),
            tables,
            rows_per_table: rows,
            bytes: d.bytes,
            load_s: d.load_s,
            warm_s: 0.0,
        }),
    }
}
