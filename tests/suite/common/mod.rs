//! Helpers shared by the integration tests (each test binary uses a subset).
#![allow(dead_code)]

pub mod capture;
pub mod ci_page;
pub mod pg;
pub mod require;
pub mod shards;
pub mod sysbench;

use std::path::Path;
use std::process::{Command, Output};

/// A temporary directory the servers' account can pass through (mode 0711): run as root,
/// psbench starts its servers as the unprivileged `mysql` account, which must reach the
/// sandboxes under it.
pub fn tempdir() -> std::io::Result<tempfile::TempDir> {
    tempdir_builder().tempdir()
}

pub fn tempdir_builder() -> tempfile::Builder<'static, 'static> {
    use std::os::unix::fs::PermissionsExt;
    let mut b = tempfile::Builder::new();
    b.permissions(std::fs::Permissions::from_mode(0o711));
    b
}

/// A sandbox of the system mariadbd, with the directory it lives in (removed when dropped).
pub fn sandbox(name: &str) -> (tempfile::TempDir, psbench::server::Sandbox) {
    use psbench::server::{Home, SandboxSpec};
    let tmp = tempdir().unwrap();
    let sb = psbench::engines::start(SandboxSpec::new(name, Home::new(tmp.path()))).unwrap();
    (tmp, sb)
}

/// The psbench binary with its own home.
pub fn psbench(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_psbench"));
    c.env("PSBENCH_HOME", home);
    c
}

/// Stdout then stderr, for assertion messages.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The results document a study wrote into `out`.
pub fn results(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

/// A live process (a zombie has exited).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// `psbench run DIR/s.toml --plan` of `body`, with its home in DIR/home.
pub fn plan_in(dir: &Path, body: &str) -> Output {
    std::fs::write(dir.join("s.toml"), body).unwrap();
    psbench(&dir.join("home"))
        .arg("run")
        .arg(dir.join("s.toml"))
        .arg("--plan")
        .output()
        .unwrap()
}

/// `psbench run DIR/study.toml --out DIR/out ARGS` of `body`, with its home in DIR/home.
pub fn run_in(dir: &Path, body: &str, args: &[&str]) -> Output {
    let file = dir.join("study.toml");
    std::fs::write(&file, body).unwrap();
    psbench(&dir.join("home"))
        .arg("run")
        .arg(&file)
        .arg("--out")
        .arg(dir.join("out"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs a study file and returns its results document and summary.md.
pub fn run_study(study: &str) -> (serde_json::Value, String) {
    let tmp = tempdir().unwrap();
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, study).unwrap();
    let out = tmp.path().join("out");
    let o = psbench(&tmp.path().join("home"))
        .args([
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    (results(&out), md)
}

/// A built-in study (studies/NAME.toml) as a TOML table, renamed NAME-tiny and cut to one
/// round of `duration` seconds after `warmup`, at `threads`: the caller shrinks the rest.
pub fn tiny_builtin(name: &str, duration: f64, warmup: f64, threads: u32) -> toml::Table {
    let path = format!("{}/studies/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let mut study: toml::Table = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    study.insert("name".into(), format!("{name}-tiny").into());
    study.insert("rounds".into(), 1.into());
    study.insert("duration".into(), duration.into());
    study.insert("warmup".into(), warmup.into());
    study.insert("threads".into(), vec![toml::Value::from(threads)].into());
    study
}

/// A built-in cut down for CI: [`tiny_builtin`] at one thread, 1 s rounds, only
/// `keep_variants`, the `[dataset]` (and `[cost]`, when given) replaced by these TOML
/// bodies, every `cost_events` at 20/40/60 and Insert Benchmark entries at 3,000 rows.
pub fn tiny_study(
    builtin: &str,
    keep_variants: &[&str],
    dataset: &str,
    cost: Option<&str>,
) -> String {
    let mut study = tiny_builtin(builtin, 1.0, 0.3, 1);
    let variants = study["variant"].as_array().unwrap().clone();
    let kept: Vec<toml::Value> = variants
        .into_iter()
        .filter(|v| keep_variants.contains(&v["name"].as_str().unwrap()))
        .collect();
    study.insert("variant".into(), toml::Value::Array(kept));
    // The published figures about variants left out go too: naming a variant the study lacks
    // is a study-file error.
    if let Some(toml::Value::Array(published)) = study.get("published").cloned() {
        let kept_by = |p: &toml::Value| {
            let names = p.get("variants").and_then(|v| v.as_array());
            let ranked = p.get("ranking").and_then(|r| r.as_array());
            let ranked = ranked.into_iter().flatten().filter_map(|g| g.as_array());
            let named = names
                .into_iter()
                .flatten()
                .chain(ranked.flatten())
                .chain(p.get("base"));
            named
                .filter_map(|v| v.as_str())
                .all(|v| keep_variants.contains(&v))
        };
        let kept: Vec<toml::Value> = published.into_iter().filter(kept_by).collect();
        study.insert("published".into(), toml::Value::Array(kept));
    }
    let table = |body: &str| toml::Value::Table(toml::from_str(body).unwrap());
    study.insert("dataset".into(), table(dataset));
    if let Some(cost) = cost {
        study.insert("cost".into(), table(cost));
    }
    let mut workloads = study["workload"].as_array().unwrap().clone();
    for w in &mut workloads {
        let w = w.as_table_mut().unwrap();
        if w.contains_key("cost_events") {
            w.insert("cost_events".into(), table("e = [20, 40, 60]")["e"].clone());
        }
        if w["workload"].as_str() == Some("insert-benchmark") {
            let small =
                "rows = 3000\nrows_i1 = 600\nrows_i2 = 300\nquery_seconds = 1\ncleanup_seconds = 0";
            w.insert("options".into(), table(small));
        }
    }
    study.insert("workload".into(), toml::Value::Array(workloads));
    toml::to_string(&study).unwrap()
}

/// Make `cmd` run as the unprivileged user `nobody` (uid and gid 65534, no other groups).
pub fn as_nobody(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    const NOBODY: u32 = 65534;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(NOBODY) != 0
                || libc::setuid(NOBODY) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// The results document in `dir` as if its study had run `days` later.
pub fn days_later(dir: &str, days: u64) -> serde_json::Value {
    let text = std::fs::read_to_string(format!("{dir}/results.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in ["started_unix", "finished_unix"] {
        doc[key] = serde_json::Value::from(doc[key].as_u64().unwrap() + days * 86_400);
    }
    doc
}

/// `doc` as the results.json of a new directory `dir/name`.
pub fn write_document(dir: &Path, name: &str, doc: &serde_json::Value) -> std::path::PathBuf {
    let out = dir.join(name);
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("results.json"), doc.to_string()).unwrap();
    out
}

/// A test's full name as this binary's harness knows it, for running one test of this binary
/// in a child process with `--exact`: `module_path!()` of the caller ("suite::sandbox") without
/// the crate, then the function.
pub fn test_name(module_path: &str, function: &str) -> String {
    let module = module_path.split_once("::").map_or("", |(_, m)| m);
    format!("{module}::{function}")
}
