//! `--shard K/N` and `--shard auto[/N]`: which share of a study's rounds this run takes, from
//! the command line or from the scheduler that started it (docs/sharding.md). psbench never
//! schedules: a Kubernetes Indexed Job or a Slurm job array runs it once per shard.

use crate::error::usage;
use crate::results::ShardInfo;
use anyhow::Result;

/// Where `--shard auto` reads: the environment, or a test's map.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The shard named by `spec`; `cost_on_every_shard` as `--cost-on-every-shard` says.
pub fn parse(spec: &str, cost_on_every_shard: bool, env: Env) -> Result<ShardInfo> {
    let (index, count) = match spec.strip_prefix("auto") {
        Some("") => from_scheduler(None, env)?,
        Some(rest) => {
            let n = rest
                .strip_prefix('/')
                .and_then(|n| n.parse::<u32>().ok())
                .ok_or_else(|| bad(spec))?;
            from_scheduler(Some(n), env)?
        }
        None => {
            let (k, n) = spec.split_once('/').ok_or_else(|| bad(spec))?;
            let k = k.trim().parse::<u32>().map_err(|_| bad(spec))?;
            let n = n.trim().parse::<u32>().map_err(|_| bad(spec))?;
            (k, n)
        }
    };
    if count == 0 || index >= count {
        return Err(usage(format!(
            "--shard {spec}: shard {index} of {count} does not exist (shards are numbered from 0 to N-1)"
        )));
    }
    Ok(ShardInfo {
        index,
        count,
        cost_on_every_shard,
    })
}

fn bad(spec: &str) -> anyhow::Error {
    usage(format!(
        "--shard {spec}: expected K/N (shard K of N, from 0), auto or auto/N"
    ))
}

fn number(env: Env, name: &str) -> Result<Option<i64>> {
    match env(name) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| usage(format!("--shard auto: {name}={v:?} is not a whole number"))),
    }
}

/// (K, N) from a Kubernetes Indexed Job or a Slurm job array.
fn from_scheduler(n: Option<u32>, env: Env) -> Result<(u32, u32)> {
    let k8s = number(env, "JOB_COMPLETION_INDEX")?;
    let slurm = number(env, "SLURM_ARRAY_TASK_ID")?;
    match (k8s, slurm) {
        (Some(_), Some(_)) => Err(usage(
            "--shard auto: both JOB_COMPLETION_INDEX (Kubernetes) and SLURM_ARRAY_TASK_ID (Slurm) are set; give --shard K/N",
        )),
        (Some(k), None) => {
            // Kubernetes does not put the number of completions in the environment.
            let n = match (n, number(env, "PSBENCH_SHARDS")?) {
                (Some(n), _) => i64::from(n),
                (None, Some(n)) => n,
                (None, None) => {
                    return Err(usage(
                        "--shard auto: JOB_COMPLETION_INDEX is set but not the number of shards: give --shard auto/N or set PSBENCH_SHARDS (the Job's completions)",
                    ))
                }
            };
            whole(k, n)
        }
        (None, Some(id)) => {
            let min = number(env, "SLURM_ARRAY_TASK_MIN")?.ok_or_else(|| {
                usage("--shard auto: SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_MIN")
            })?;
            let step = number(env, "SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
            let count = number(env, "SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| {
                usage("--shard auto: SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT")
            })?;
            if step < 1 || id < min || (id - min) % step != 0 {
                return Err(usage(format!(
                    "--shard auto: Slurm task {id} is not on the array's grid (min {min}, step {step})"
                )));
            }
            if let Some(n) = n.filter(|n| i64::from(*n) != count) {
                return Err(usage(format!(
                    "--shard auto/{n}: the Slurm array has {count} tasks"
                )));
            }
            whole((id - min) / step, count)
        }
        (None, None) => Err(usage(
            "--shard auto: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (a Slurm job array) is set",
        )),
    }
}

fn whole(k: i64, n: i64) -> Result<(u32, u32)> {
    match (u32::try_from(k), u32::try_from(n)) {
        (Ok(k), Ok(n)) => Ok((k, n)),
        _ => Err(usage(format!(
            "--shard auto: shard {k} of {n} is out of range"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn with(vars: &[(&str, &str)], spec: &str) -> Result<(u32, u32)> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse(spec, false, &|k| map.get(k).cloned()).map(|s| (s.index, s.count))
    }

    fn refused(vars: &[(&str, &str)], spec: &str, says: &str) {
        let e = with(vars, spec).unwrap_err();
        assert!(crate::error::is_usage(&e), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }

    #[test]
    fn explicit_shards() {
        assert_eq!(with(&[], "2/5").unwrap(), (2, 5));
        refused(&[], "5/5", "does not exist");
        refused(&[], "1/0", "does not exist");
        refused(&[], "two/5", "expected K/N");
        refused(&[], "auto/x", "expected K/N");
    }

    #[test]
    fn kubernetes_indexed_jobs_need_the_count_from_the_manifest() {
        let k8s = [("JOB_COMPLETION_INDEX", "3")];
        assert_eq!(with(&k8s, "auto/4").unwrap(), (3, 4));
        assert_eq!(
            with(&[k8s[0], ("PSBENCH_SHARDS", "6")], "auto").unwrap(),
            (3, 6)
        );
        refused(&k8s, "auto", "PSBENCH_SHARDS");
        refused(&k8s, "auto/3", "does not exist");
        refused(&[], "auto", "neither JOB_COMPLETION_INDEX");
    }

    #[test]
    fn slurm_arrays_need_not_start_at_zero() {
        // sbatch --array=4-7: tasks 4..7, this one the second.
        let a = [
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(with(&a, "auto").unwrap(), (1, 4));
        assert_eq!(with(&a, "auto/4").unwrap(), (1, 4));
        refused(&a, "auto/3", "has 4 tasks");
        // sbatch --array=10-16:3: tasks 10, 13, 16.
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "16"),
            ("SLURM_ARRAY_TASK_MIN", "10"),
            ("SLURM_ARRAY_TASK_STEP", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert_eq!(with(&stepped, "auto").unwrap(), (2, 3));
        let off_grid = [
            stepped[0],
            stepped[1],
            ("SLURM_ARRAY_TASK_STEP", "4"),
            stepped[3],
        ];
        refused(&off_grid, "auto", "not on the array's grid");
        refused(
            &[("SLURM_ARRAY_TASK_ID", "1")],
            "auto",
            "SLURM_ARRAY_TASK_MIN",
        );
        refused(
            &[a[0], ("JOB_COMPLETION_INDEX", "0")],
            "auto",
            "both JOB_COMPLETION_INDEX",
        );
    }
}
