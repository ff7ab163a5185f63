//! A set of CPUs in taskset's list syntax ("0-3,8"): what a study asks its server and client
//! to run on, and what the kernel reads back for a thread (`Cpus_allowed_list`).

use nix::sched::CpuSet;
use serde::{Deserialize, Serialize};
use std::fmt;

/// CPU numbers, sorted, each once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CpuList(Vec<usize>);

impl CpuList {
    /// "0-3,8" → [0, 1, 2, 3, 8]; the error names what is wrong in one line.
    pub fn parse(text: &str) -> Result<CpuList, String> {
        let mut cpus = Vec::new();
        for part in text.split(',').map(str::trim) {
            let number = |s: &str| {
                s.trim().parse::<usize>().map_err(|_| {
                    format!("'{text}' is not a CPU list like \"0-3,8\" ('{s}' is no CPU number)")
                })
            };
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => (number(part)?, number(part)?),
            };
            if lo > hi {
                return Err(format!("'{text}': the range {part} runs backwards"));
            }
            if hi >= CpuSet::count() {
                return Err(format!(
                    "'{text}': CPU {hi} is beyond the {} this system can name",
                    CpuSet::count()
                ));
            }
            cpus.extend(lo..=hi);
        }
        Ok(CpuList::of(cpus))
    }

    pub fn of(mut cpus: Vec<usize>) -> CpuList {
        cpus.sort_unstable();
        cpus.dedup();
        CpuList(cpus)
    }

    pub fn cpus(&self) -> &[usize] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The CPUs of this list that `other` lacks.
    pub fn outside(&self, other: &CpuList) -> CpuList {
        CpuList(
            self.0
                .iter()
                .copied()
                .filter(|c| !other.0.contains(c))
                .collect(),
        )
    }

    /// "CPU 9" or "CPUs 4-7", for messages.
    pub fn named(&self) -> String {
        match self.0.len() {
            1 => format!("CPU {self}"),
            _ => format!("CPUs {self}"),
        }
    }

    /// The kernel's form, for sched_setaffinity.
    pub fn to_set(&self) -> CpuSet {
        let mut set = CpuSet::new();
        for &c in &self.0 {
            // parse() bounds every CPU by CpuSet::count().
            let _ = set.set(c);
        }
        set
    }

    pub fn from_set(set: &CpuSet) -> CpuList {
        CpuList(
            (0..CpuSet::count())
                .filter(|&c| set.is_set(c).unwrap_or(false))
                .collect(),
        )
    }
}

/// The list in taskset's syntax, runs of three or more as ranges ("0-3,8").
impl fmt::Display for CpuList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.0.len() {
            let mut j = i;
            while j + 1 < self.0.len() && self.0[j + 1] == self.0[j] + 1 {
                j += 1;
            }
            match j - i {
                0 => parts.push(self.0[i].to_string()),
                1 => parts.extend([self.0[i].to_string(), self.0[j].to_string()]),
                _ => parts.push(format!("{}-{}", self.0[i], self.0[j])),
            }
            i = j + 1;
        }
        f.write_str(&parts.join(","))
    }
}

impl TryFrom<String> for CpuList {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        CpuList::parse(&s)
    }
}

impl From<CpuList> for String {
    fn from(l: CpuList) -> String {
        l.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::CpuList;

    #[test]
    fn parses_and_prints_taskset_lists() {
        let l = CpuList::parse("8, 0-3,2").unwrap();
        assert_eq!(l.cpus(), [0, 1, 2, 3, 8]);
        assert_eq!(l.to_string(), "0-3,8");
        assert_eq!(CpuList::parse("4,5").unwrap().to_string(), "4,5");
        assert_eq!(CpuList::from_set(&l.to_set()), l);
        for bad in ["", "a", "3-1", "1-", "0,,1", "99999"] {
            assert!(CpuList::parse(bad).is_err(), "{bad}");
        }
        assert!(CpuList::parse("3-1").unwrap_err().contains("backwards"));
        let all = CpuList::parse("0-3").unwrap();
        assert_eq!(
            CpuList::parse("2-5").unwrap().outside(&all).to_string(),
            "4,5"
        );
    }
}
