//! The results history on disk: one SQLite database (docs/history.md). Documents, series,
//! their points and the regressions someone accepted, each in a table; a document is added
//! once however often it is imported.

use super::series::{self, Metric, Point, SeriesKey};
use crate::error::usage;
use crate::results::StudyResults;
use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;

/// The layout of the tables below, kept in SQLite's `user_version`: a history of another
/// layout is refused, never rewritten.
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    identity TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL,
    study TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    added_unix INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS series (
    id INTEGER PRIMARY KEY,
    engine TEXT NOT NULL,
    channel TEXT NOT NULL,
    step TEXT NOT NULL,
    workload TEXT NOT NULL,
    settings TEXT NOT NULL,
    threads INTEGER NOT NULL,
    metric TEXT NOT NULL,
    host_class TEXT NOT NULL,
    UNIQUE (engine, channel, step, workload, settings, threads, metric, host_class)
);
CREATE TABLE IF NOT EXISTS points (
    id INTEGER PRIMARY KEY,
    series INTEGER NOT NULL REFERENCES series(id),
    document INTEGER NOT NULL REFERENCES documents(id),
    variant TEXT NOT NULL,
    release TEXT NOT NULL,
    binary_sha256 TEXT NOT NULL,
    source TEXT,
    commit_id TEXT,
    date_unix INTEGER NOT NULL,
    value REAL NOT NULL,
    low REAL,
    high REAL,
    rounds INTEGER NOT NULL,
    UNIQUE (series, document, variant)
);
CREATE INDEX IF NOT EXISTS points_of_series ON points(series);
CREATE TABLE IF NOT EXISTS acceptances (
    point INTEGER PRIMARY KEY REFERENCES points(id),
    who TEXT NOT NULL,
    why TEXT NOT NULL,
    at_unix INTEGER NOT NULL
);
";

/// An open history.
pub struct History {
    db: Connection,
}

/// A series as stored, with its number.
#[derive(Clone, Debug)]
pub struct Series {
    pub id: i64,
    pub key: SeriesKey,
}

/// A point as stored: its number, what it measured, where it came from, whether accepted.
#[derive(Clone, Debug)]
pub struct StoredPoint {
    pub id: i64,
    pub point: Point,
    pub document: String,
    pub tool_version: String,
    /// Who accepted it as the new level, and why.
    pub accepted: Option<(String, String)>,
}

/// What adding a document did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Added {
    pub points: usize,
    pub new_series: usize,
    /// The document was already in the history: nothing was added.
    pub already: bool,
}

impl History {
    /// Open the history at `path` to read it: a missing file is a mistyped path, not an empty
    /// history, so that `history check` cannot pass on a history it never read.
    pub fn existing(path: &Path) -> Result<History> {
        if !path.is_file() {
            return Err(usage(format!(
                "{}: no results history there (a finished study or `psbench history import` makes one; --history names another)",
                path.display()
            )));
        }
        Self::open(path)
    }

    /// Open (creating when missing) the history at `path`: for what adds to it.
    pub fn open(path: &Path) -> Result<History> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let db = Connection::open(path)
            .with_context(|| format!("opening the results history {}", path.display()))?;
        // Two studies finishing at once: the second waits for the first's transaction.
        db.busy_timeout(std::time::Duration::from_secs(120))?;
        let refuse = |why: String| usage(format!("{}: {why}", path.display()));
        // A file that is not a database fails here, before anything is written to it.
        let read_version = |db: &Connection| -> Result<i64> {
            db.query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(|e| refuse(format!("not a psbench results history ({e})")))
        };
        let mut version = read_version(&db)?;
        // A new history is made inside one write transaction: another psbench opening it at
        // the same moment waits, then finds it made.
        let creating = version == 0;
        if creating {
            db.execute_batch("BEGIN IMMEDIATE").map_err(|e| {
                let e = anyhow::Error::from(e);
                match disk_full(&e) {
                    true => e.context(format!("{}: cannot be written", path.display())),
                    false => usage(format!("{}: cannot be written ({e})", path.display())),
                }
            })?;
            version = read_version(&db)?;
        }
        let tables: i64 = db.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )?;
        match version {
            // A history written before the index had none: added where it may be written.
            SCHEMA_VERSION => {
                let _ = db.execute_batch(
                    "CREATE INDEX IF NOT EXISTS points_of_series ON points(series)",
                );
            }
            0 if tables == 0 => {
                db.execute_batch(SCHEMA)?;
                db.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            }
            0 => {
                return Err(refuse(
                    "an SQLite database of something else, not a psbench results history".into(),
                ))
            }
            other => {
                return Err(refuse(format!(
                    "a results history of schema version {other}, which this psbench (version {SCHEMA_VERSION}) cannot read"
                )))
            }
        }
        if creating {
            db.execute_batch("COMMIT")?;
        }
        Ok(History { db })
    }

    /// Add every point of `doc`, read from `path`.
    pub fn add(&mut self, doc: &StudyResults, path: &str) -> Result<Added> {
        let identity = format!(
            "{} started {} on {} ({})",
            doc.study.name, doc.started_unix, doc.host.hostname, doc.sharding.definition_sha256
        );
        // Immediate: a deferred one reading first could not take the write lock another holds.
        let tx = self
            .db
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let known: Option<i64> = tx
            .query_row(
                "SELECT id FROM documents WHERE identity = ?1",
                [&identity],
                |r| r.get(0),
            )
            .optional()?;
        if known.is_some() {
            return Ok(Added {
                already: true,
                ..Added::default()
            });
        }
        tx.execute(
            "INSERT INTO documents (identity, path, study, tool_version, added_unix) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![identity, path, doc.study.name, doc.tool_version, now() as i64],
        )?;
        let document = tx.last_insert_rowid();
        let mut added = Added::default();
        for (key, p) in series::points(doc) {
            let (id, new) = series_id(&tx, &key)?;
            added.new_series += new as usize;
            added.points += tx.execute(
                "INSERT OR IGNORE INTO points (series, document, variant, release, binary_sha256, source, date_unix, value, low, high, rounds)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    id,
                    document,
                    p.variant,
                    p.release,
                    p.binary_sha256,
                    p.source,
                    p.date_unix as i64,
                    p.value,
                    p.interval.map(|i| i.0),
                    p.interval.map(|i| i.1),
                    p.rounds
                ],
            )?;
        }
        tx.commit()?;
        Ok(added)
    }

    /// Where its documents were read from, the last added first, at most `n`.
    pub fn document_paths(&self, n: usize) -> Result<Vec<String>> {
        let mut st = self
            .db
            .prepare("SELECT path FROM documents ORDER BY added_unix DESC, id DESC LIMIT ?1")?;
        let rows = st.query_map([n as i64], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Every series, by number.
    pub fn series(&self) -> Result<Vec<Series>> {
        let mut st = self.db.prepare(
            "SELECT id, engine, channel, step, workload, settings, threads, metric, host_class FROM series ORDER BY id",
        )?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(7)?,
                SeriesKey {
                    engine: r.get(1)?,
                    channel: r.get(2)?,
                    step: r.get(3)?,
                    workload: r.get(4)?,
                    settings: r.get(5)?,
                    threads: r.get(6)?,
                    metric: Metric::Throughput,
                    host_class: r.get(8)?,
                },
            ))
        })?;
        // A metric this psbench does not know (a newer one wrote it) is left out.
        Ok(rows
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .filter_map(|(id, metric, key)| {
                Metric::parse(&metric).map(|metric| Series {
                    id,
                    key: SeriesKey { metric, ..key },
                })
            })
            .collect())
    }

    /// Series `id`, if there is one.
    pub fn one(&self, id: i64) -> Result<Option<Series>> {
        Ok(self.series()?.into_iter().find(|s| s.id == id))
    }

    /// The points of series `id` in order: by date, then by release (a sweep's points share
    /// their date), then as added.
    pub fn points(&self, id: i64) -> Result<Vec<StoredPoint>> {
        Ok(self.points_where(Some(id))?.remove(&id).unwrap_or_default())
    }

    /// Every series' points in order, read at once (a page or a check of the whole history).
    pub fn all_points(&self) -> Result<std::collections::HashMap<i64, Vec<StoredPoint>>> {
        self.points_where(None)
    }

    fn points_where(
        &self,
        id: Option<i64>,
    ) -> Result<std::collections::HashMap<i64, Vec<StoredPoint>>> {
        let mut st = self.db.prepare(
            "SELECT p.id, p.variant, p.release, p.binary_sha256, p.source, p.date_unix, p.value, p.low, p.high, p.rounds,
                    d.path, d.tool_version, a.who, a.why, p.series
             FROM points p JOIN documents d ON d.id = p.document
             LEFT JOIN acceptances a ON a.point = p.id
             WHERE ?1 IS NULL OR p.series = ?1",
        )?;
        let rows = st.query_map([id], |r| {
            let low: Option<f64> = r.get(7)?;
            let high: Option<f64> = r.get(8)?;
            let who: Option<String> = r.get(12)?;
            let why: Option<String> = r.get(13)?;
            Ok((
                r.get::<_, i64>(14)?,
                StoredPoint {
                    id: r.get(0)?,
                    point: Point {
                        variant: r.get(1)?,
                        release: r.get(2)?,
                        binary_sha256: r.get(3)?,
                        source: r.get(4)?,
                        date_unix: r.get::<_, i64>(5)? as u64,
                        value: r.get(6)?,
                        interval: low.zip(high),
                        rounds: r.get(9)?,
                    },
                    document: r.get(10)?,
                    tool_version: r.get(11)?,
                    accepted: who.zip(why),
                },
            ))
        })?;
        let mut by_series: std::collections::HashMap<i64, Vec<StoredPoint>> = Default::default();
        for row in rows {
            let (series, point) = row?;
            by_series.entry(series).or_default().push(point);
        }
        // By release, then by date: a series of one release is in date order, and two runs of
        // a sweep interleave release by release instead of the second run's oldest release
        // following the first run's newest, which showed as a change.
        for points in by_series.values_mut() {
            points.sort_by(|a, b| {
                crate::results::release_order::order(&a.point.release, &b.point.release)
                    .then(a.point.date_unix.cmp(&b.point.date_unix))
                    .then(a.id.cmp(&b.id))
            });
        }
        Ok(by_series)
    }

    /// Mark point `point` of series `series` as accepted: from it on, the check compares
    /// with the level it starts.
    pub fn accept(&mut self, series: i64, point: i64, who: &str, why: &str) -> Result<bool> {
        let in_series: Option<i64> = self
            .db
            .query_row(
                "SELECT id FROM points WHERE id = ?1 AND series = ?2",
                [point, series],
                |r| r.get(0),
            )
            .optional()?;
        if in_series.is_none() {
            return Ok(false);
        }
        self.db.execute(
            "INSERT OR REPLACE INTO acceptances (point, who, why, at_unix) VALUES (?1, ?2, ?3, ?4)",
            params![point, who, why, now() as i64],
        )?;
        Ok(true)
    }
}

/// The number of the series `key`, added when new (and whether it was).
fn series_id(tx: &rusqlite::Transaction, key: &SeriesKey) -> Result<(i64, bool)> {
    let metric = key.metric.name();
    let values = params![
        key.engine,
        key.channel,
        key.step,
        key.workload,
        key.settings,
        key.threads,
        metric,
        key.host_class
    ];
    let found = tx
        .query_row(
            "SELECT id FROM series WHERE engine = ?1 AND channel = ?2 AND step = ?3 AND workload = ?4
               AND settings = ?5 AND threads = ?6 AND metric = ?7 AND host_class = ?8",
            values,
            |r| r.get(0),
        )
        .optional()?;
    if let Some(id) = found {
        return Ok((id, false));
    }
    tx.execute(
        "INSERT INTO series (engine, channel, step, workload, settings, threads, metric, host_class)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        values,
    )?;
    Ok((tx.last_insert_rowid(), true))
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Whether an error comes from a full disk (the machine's state: exit 1, not 2).
pub fn disk_full(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let sqlite = c
            .downcast_ref::<rusqlite::Error>()
            .is_some_and(|r| r.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull));
        let io = c
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::StorageFull);
        sqlite || io
    })
}
