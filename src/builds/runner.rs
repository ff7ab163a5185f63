//! Running a recipe: found in the cache, or built in a private partial directory with every
//! line of output in a log, progress on the terminal, and the finished tree moved into the
//! cache in one rename. A failed or interrupted build leaves its log and nothing else.

use super::builder::Builder;
use super::cache::{self, BuildRecord};
use super::progress::{self, Tally};
use super::recipe::{Layout, Recipe, Step};
use super::source::Source;
use super::toolchain;
use anyhow::{anyhow, bail, Context, Result};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// What the build's working directories hold besides the tree, kept for the read-back of its
/// configuration: cmake's cache, configure's log.
/// Kept from the build directory, each under its own name: what cmake and configure recorded,
/// and the configuration header MySQL and MariaDB compile every file with.
const KEPT_FROM_BUILD: [&str; 3] = ["CMakeCache.txt", "config.log", "include/my_config.h"];

/// The build of `source` by the recipe `make` writes for a layout: from the cache when it is
/// there, else built now. Returns the build's directory, its record, and whether this call
/// built it (false for a cache hit). `label` names the
/// partial directory: Debian's PostgreSQL sources install their libraries under
/// /usr/lib/postgresql unless the prefix names postgres.
pub fn build(
    label: &str,
    source: &Source,
    make: &dyn Fn(&Layout) -> Result<Recipe>,
    builder: &Builder,
    out: &mut dyn Write,
) -> Result<(PathBuf, BuildRecord, bool)> {
    let dir = cache::builds_dir();
    builder.own(&dir)?;
    let compiler = toolchain::compilers()?;
    let partial = dir.join(format!(".partial-{label}-{}", std::process::id()));
    let layout = Layout {
        source: source.dir.clone(),
        build: partial.join("build"),
        prefix: partial.join("tree"),
        jobs: toolchain::jobs(),
        ccache: toolchain::ccache(),
    };
    let recipe = make(&layout)?;
    let target = recipe.native.then(toolchain::target_cpu);
    let key = cache::key(&recipe, source, &compiler, target.as_deref());
    if let Some((hit, record)) = cache::find(&dir, &key) {
        return Ok((hit, record, false));
    }
    let lock = crate::server::lock::exclusive(
        &dir.join(format!(".lock-{}", &key[..16])),
        &format!(
            "the build {}, which another psbench process is making",
            &key[..16]
        ),
        out,
    )?;
    if let Some((hit, record)) = cache::find(&dir, &key) {
        return Ok((hit, record, false));
    }
    let free = toolchain::free_bytes(&dir)?;
    if free < recipe.disk_bytes {
        bail!(
            "building needs about {:.1} GB free in {}, and it has {:.1} GB",
            recipe.disk_bytes as f64 / 1e9,
            dir.display(),
            free as f64 / 1e9
        );
    }
    let name = cache::entry_name(&recipe, &key);
    let logs = dir.join("logs");
    builder.own(&logs)?;
    let log_path = logs.join(format!("{name}.log"));
    let _ = std::fs::remove_dir_all(&partial);
    builder.own(&layout.build)?;
    builder.own(&layout.prefix)?;
    let started = Instant::now();
    let last = last_step_times(&dir, source, recipe.steps.len());
    let ran = run_steps(&recipe, builder, &layout.build, &log_path, &last, out);
    let finished = ran.and_then(|step_seconds| {
        finish(
            &recipe,
            source,
            &layout,
            &FinishArgs {
                name: &name,
                key: &key,
                compiler: &compiler,
                target: target.as_deref(),
                seconds: started.elapsed().as_secs_f64(),
                step_seconds,
                log: &log_path,
            },
        )
    });
    let record = match finished {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(e);
        }
    };
    let dest = dir.join(&name);
    std::fs::rename(&partial, &dest)
        .with_context(|| format!("moving {} to {}", partial.display(), dest.display()))?;
    drop(lock);
    Ok((dest, record, true))
}

/// Only the first step of the recipe (its configure step), into `configured/NAME/` of the
/// build cache, replacing an earlier one: a flag set's configuration checked without the
/// build. Returns the build directory (cmake's cache, configure's log).
pub fn configure_only(
    source: &Source,
    make: &dyn Fn(&Layout) -> Result<Recipe>,
    builder: &Builder,
    out: &mut dyn Write,
) -> Result<PathBuf> {
    let dir = cache::builds_dir();
    builder.own(&dir)?;
    let compiler = toolchain::compilers()?;
    let probe = make(&Layout {
        source: source.dir.clone(),
        build: dir.join("configured"),
        prefix: dir.join("configured"),
        jobs: toolchain::jobs(),
        ccache: toolchain::ccache(),
    })?;
    let key = cache::key(&probe, source, &compiler, None);
    let root = dir.join("configured").join(cache::entry_name(&probe, &key));
    let _ = std::fs::remove_dir_all(&root);
    let layout = Layout {
        source: source.dir.clone(),
        build: root.join("build"),
        prefix: root.join("tree"),
        jobs: toolchain::jobs(),
        ccache: toolchain::ccache(),
    };
    let mut recipe = make(&layout)?;
    recipe.steps.truncate(1);
    builder.own(&layout.build)?;
    run_steps(
        &recipe,
        builder,
        &layout.build,
        &root.join("configure.log"),
        &[],
        out,
    )?;
    Ok(layout.build)
}

/// One builder at a time per key: a second request waits for the first and then finds its
/// build.
/// Each step's seconds in the newest build of the same source with as many steps (any flag
/// set: they compile the same files), for the ETA; empty when the cache has none.
fn last_step_times(dir: &Path, source: &Source, steps: usize) -> Vec<f64> {
    cache::list(dir)
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| r.source_sha256 == source.sha256 && r.step_seconds.len() == steps)
        .max_by_key(|r| r.built_unix)
        .map(|r| r.step_seconds)
        .unwrap_or_default()
}

/// Run the recipe's steps; each step's seconds. `last` holds the steps' times in the last
/// build of this source, for the ETA.
fn run_steps(
    recipe: &Recipe,
    builder: &Builder,
    home: &Path,
    log_path: &Path,
    last: &[f64],
    out: &mut dyn Write,
) -> Result<Vec<f64>> {
    let mut log = std::fs::File::create(log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;
    let started = Instant::now();
    let mut times = Vec::new();
    for (i, step) in recipe.steps.iter().enumerate() {
        let step_started = Instant::now();
        writeln!(
            log,
            "== step {}/{}: {}\n$ {}",
            i + 1,
            recipe.steps.len(),
            step.label,
            step.argv.join(" ")
        )?;
        let ok = run_step(step, builder, home, &mut log, &mut |tally| {
            let l = progress::line(
                i + 1,
                recipe.steps.len(),
                &step.label,
                progress::Stand {
                    fraction: tally.fraction(),
                    build_elapsed: started.elapsed(),
                    step_elapsed: step_started.elapsed(),
                    last_time: last.get(i).copied(),
                },
            );
            let _ = writeln!(out, "{l}");
        })?;
        if !ok || crate::server::registry::stopping() {
            return Err(anyhow!(
                "the build failed at step {}/{} ({}): see {}",
                i + 1,
                recipe.steps.len(),
                step.label,
                log_path.display()
            ));
        }
        times.push(step_started.elapsed().as_secs_f64());
    }
    Ok(times)
}

/// Run one step, every line to the log and progress to `report` every 10 s or so.
fn run_step(
    step: &Step,
    builder: &Builder,
    home: &Path,
    log: &mut std::fs::File,
    report: &mut dyn FnMut(&Tally),
) -> Result<bool> {
    let mut cmd = builder.command(&step.argv[0], &step.dir, home);
    if let Some(dir) = ccache_dir(builder) {
        cmd.env("CCACHE_DIR", dir);
    }
    cmd.args(&step.argv[1..])
        .envs(step.env.iter().cloned())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting {} ({})", step.argv[0], step.label))?;
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|r| {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(r).lines().map_while(|l| l.ok()) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        })
    })
    .collect();
    drop(tx);
    let mut tally = Tally::new(step.units);
    let mut last = Instant::now();
    report(&tally);
    for line in rx {
        writeln!(log, "{line}")?;
        tally.see(&line);
        if last.elapsed() >= Duration::from_secs(10) {
            report(&tally);
            last = Instant::now();
        }
    }
    for r in readers {
        let _ = r.join();
    }
    let status = child.wait().context("waiting for the build step")?;
    writeln!(log, "== {}: {status}", step.label)?;
    Ok(status.success())
}

/// ccache's objects, kept with psbench's cache (not with the builds, which a test or a user
/// may keep elsewhere) and owned by the builder, every file of them: a CI cache restores
/// them as whichever owner its archive names.
fn ccache_dir(builder: &Builder) -> Option<PathBuf> {
    toolchain::ccache()?;
    let dir = crate::server::fetch::cache_dir().join("ccache");
    builder.own(&dir).ok()?;
    Some(dir)
}

struct FinishArgs<'a> {
    name: &'a str,
    key: &'a str,
    compiler: &'a str,
    target: Option<&'a str>,
    seconds: f64,
    step_seconds: Vec<f64>,
    log: &'a Path,
}

/// Check the server landed, keep the configuration files and the log, drop the build
/// directory, and write the record.
fn finish(
    recipe: &Recipe,
    source: &Source,
    layout: &Layout,
    a: &FinishArgs,
) -> Result<BuildRecord> {
    let server = layout.prefix.join(&recipe.server);
    if !server.is_file() {
        bail!(
            "the build finished but installed no {}: see {}",
            recipe.server.display(),
            a.log.display()
        );
    }
    let partial = layout.prefix.parent().context("the tree's parent")?;
    for f in KEPT_FROM_BUILD {
        let from = layout.build.join(f);
        if from.is_file() {
            let name = Path::new(f).file_name().unwrap_or(f.as_ref());
            std::fs::copy(&from, partial.join(name))
                .with_context(|| format!("keeping {}", from.display()))?;
        }
    }
    std::fs::copy(a.log, partial.join("build.log")).context("keeping the build log")?;
    std::fs::remove_dir_all(&layout.build)
        .with_context(|| format!("removing {}", layout.build.display()))?;
    let record = BuildRecord {
        name: a.name.to_string(),
        key: a.key.to_string(),
        engine: recipe.engine.clone(),
        release: recipe.release.clone(),
        flags: recipe.flags.clone(),
        options: recipe.options.clone(),
        extra: recipe.extra.clone(),
        source: source.spec.clone(),
        source_version: source.version.clone(),
        source_sha256: source.sha256.clone(),
        compiler: a.compiler.to_string(),
        target_cpu: a.target.map(str::to_string),
        recipe_version: recipe.recipe_version,
        host: std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_default(),
        built_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        build_seconds: a.seconds,
        step_seconds: a.step_seconds.clone(),
        size_bytes: cache::size_of(&layout.prefix),
        server: recipe.server.display().to_string(),
        binary_sha256: crate::server::fetch::sha256(&server)?,
    };
    let json = serde_json::to_string_pretty(&record)?;
    std::fs::write(partial.join("build.json"), json + "\n").context("writing build.json")?;
    Ok(record)
}
