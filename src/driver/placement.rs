//! Placing psbench's client on chosen CPUs: the thread that starts the client threads is
//! narrowed to them, and every thread it starts inherits its list. The list is restored when
//! the placement ends.

use crate::error::usage;
use crate::results::CpuList;
use anyhow::{Context, Result};
use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// The calling thread placed on a list of CPUs until dropped.
#[derive(Debug)]
#[must_use = "the placement ends when this is dropped"]
pub struct Placed {
    before: CpuSet,
}

/// Narrow the calling thread (and the threads it starts from now on) to `cpus`, which must
/// be among the CPUs it may use now; `what` names the list in the message ("--client-cpus").
pub fn place_this_thread(cpus: &CpuList, what: &str) -> Result<Placed> {
    let me = Pid::from_raw(0);
    let before = sched_getaffinity(me).context("reading this thread's CPUs")?;
    let may = CpuList::from_set(&before);
    let outside = cpus.outside(&may);
    if !outside.is_empty() {
        return Err(usage(format!(
            "{what} \"{cpus}\": {} outside the CPUs psbench may use ({may})",
            outside.named()
        )));
    }
    sched_setaffinity(me, &cpus.to_set())
        .with_context(|| format!("placing the client on {cpus}"))?;
    Ok(Placed { before })
}

impl Drop for Placed {
    fn drop(&mut self) {
        let _ = sched_setaffinity(Pid::from_raw(0), &self.before);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mine() -> CpuList {
        CpuList::from_set(&sched_getaffinity(Pid::from_raw(0)).unwrap())
    }

    #[test]
    fn a_thread_started_while_placed_inherits_the_list() {
        let all = mine();
        let first = CpuList::of(vec![all.cpus()[0]]);
        {
            let _placed = place_this_thread(&first, "client").unwrap();
            assert_eq!(mine(), first);
            let child = std::thread::spawn(mine).join().unwrap();
            assert_eq!(child, first);
        }
        assert_eq!(mine(), all, "restored when the placement ends");
        let beyond = CpuList::of(vec![nix::sched::CpuSet::count() - 1]);
        let e = place_this_thread(&beyond, "--client-cpus").unwrap_err();
        assert!(crate::error::is_usage(&e), "{e}");
        assert!(
            e.to_string().contains("outside the CPUs psbench may use"),
            "{e}"
        );
        assert_eq!(mine(), all);
    }
}
