//! How far a build is: steps done of total, and within a compile step the units done of
//! total, read from its output (ninja's `[12/345]`, cmake's Makefiles' `[ 45%]`, or a count of
//! compiler commands against the recipe's estimate), with the elapsed time and an ETA.

use std::time::Duration;

/// What one line of build output says about progress.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mark {
    /// `[12/345]`: ninja's done of total.
    Counted(u64, u64),
    /// `[ 45%]`: cmake's Makefiles.
    Percent(f64),
    /// A compiler command: one more unit done.
    Compiled,
}

pub fn mark(line: &str) -> Option<Mark> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix('[') {
        if let Some((inner, _)) = rest.split_once(']') {
            let inner = inner.trim();
            if let Some((a, b)) = inner.split_once('/') {
                if let (Ok(a), Ok(b)) = (a.trim().parse(), b.trim().parse()) {
                    return Some(Mark::Counted(a, b));
                }
            }
            if let Some(p) = inner.strip_suffix('%') {
                if let Ok(p) = p.trim().parse() {
                    return Some(Mark::Percent(p));
                }
            }
        }
    }
    let program = t.split_whitespace().next().unwrap_or("");
    let name = program.rsplit('/').next().unwrap_or(program);
    let compiler = ["gcc", "cc", "g++", "c++", "ccache"].contains(&name);
    (compiler && t.contains(" -c ")).then_some(Mark::Compiled)
}

/// A step's progress so far.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    units: Option<u64>,
    compiled: u64,
    fraction: Option<f64>,
}

impl Tally {
    pub fn new(units: Option<u64>) -> Self {
        Tally {
            units,
            ..Default::default()
        }
    }

    pub fn see(&mut self, line: &str) {
        match mark(line) {
            Some(Mark::Counted(a, b)) if b > 0 => self.fraction = Some(a as f64 / b as f64),
            Some(Mark::Percent(p)) => self.fraction = Some(p / 100.0),
            Some(Mark::Compiled) => self.compiled += 1,
            _ => {}
        }
    }

    /// The share of the step done, when known.
    pub fn fraction(&self) -> Option<f64> {
        if let Some(f) = self.fraction {
            return Some(f.clamp(0.0, 1.0));
        }
        let units = self.units.filter(|&u| u > 0)?;
        Some((self.compiled as f64 / units as f64).min(0.99))
    }
}

/// Where a step stands: its share done (when known), the time since the build and since the
/// step started, and how long the same step took in the last build of this source (when the
/// cache has one).
#[derive(Clone, Copy, Debug)]
pub struct Stand {
    pub fraction: Option<f64>,
    pub build_elapsed: Duration,
    pub step_elapsed: Duration,
    pub last_time: Option<f64>,
}

/// `step 3/6 compile the server: 45%, 2m10s elapsed, about 2m40s to go`. The time to go is
/// the larger of two estimates: the step's share done so far at its rate so far, and what is
/// left of the same step's time in the last build of this source. The share alone runs ahead
/// of the clock: a compile's last units (the server's largest files, the link) take longest.
pub fn line(step: usize, steps: usize, label: &str, at: Stand) -> String {
    let secs =
        |d: Duration| humantime::format_duration(Duration::from_secs(d.as_secs())).to_string();
    let mut s = format!("step {step}/{steps} {label}");
    let spent = at.step_elapsed.as_secs_f64();
    let by_share = at
        .fraction
        .filter(|f| *f > 0.02)
        .map(|f| spent * (1.0 - f) / f);
    let by_last = at.last_time.map(|t| t - spent).filter(|l| *l > 0.0);
    let left = match (by_share, by_last) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    if let Some(f) = at.fraction.filter(|f| *f > 0.02) {
        s.push_str(&format!(": {:.0}%,", f * 100.0));
    } else {
        s.push(':');
    }
    s.push_str(&format!(" {} elapsed", secs(at.build_elapsed)));
    if let Some(l) = left {
        s.push_str(&format!(
            ", about {} to go",
            secs(Duration::from_secs_f64(l))
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_kinds_of_progress_are_read() {
        assert_eq!(
            mark("[12/345] Building CXX object sql/foo.o"),
            Some(Mark::Counted(12, 345))
        );
        assert_eq!(
            mark("[ 45%] Building C object x.o"),
            Some(Mark::Percent(45.0))
        );
        assert_eq!(
            mark("gcc -Wall -O2 -I../../src/include -c -o brin.o brin.c"),
            Some(Mark::Compiled)
        );
        assert_eq!(
            mark("/usr/bin/ccache gcc -O2 -c -o a.o a.c"),
            Some(Mark::Compiled)
        );
        assert_eq!(mark("gcc -shared -o x.so x.o"), None);
        assert_eq!(mark("make[1]: Entering directory"), None);
        let mut t = Tally::new(Some(4));
        t.see("gcc -O2 -c -o a.o a.c");
        assert_eq!(t.fraction(), Some(0.25));
        t.see("[ 50%] Linking");
        assert_eq!(t.fraction(), Some(0.5));
    }

    fn at(fraction: Option<f64>, build: u64, step: u64, last: Option<f64>) -> Stand {
        Stand {
            fraction,
            build_elapsed: Duration::from_secs(build),
            step_elapsed: Duration::from_secs(step),
            last_time: last,
        }
    }

    #[test]
    fn the_line_gives_an_eta_once_it_knows_the_share() {
        // The step's own time sets the rate: 50% in its 60 s, a minute to go; the build's
        // 90 s are what the line shows as elapsed.
        let l = line(3, 6, "compile", at(Some(0.5), 90, 60, None));
        assert_eq!(l, "step 3/6 compile: 50%, 1m 30s elapsed, about 1m to go");
        assert_eq!(
            line(1, 6, "configure", at(None, 5, 5, None)),
            "step 1/6 configure: 5s elapsed"
        );
    }

    #[test]
    fn the_last_build_of_the_source_keeps_the_eta_from_running_ahead() {
        // 84% of the units in 7 minutes, but the same step took 17 minutes last time: the
        // units left are the slow ones, so the last time wins.
        let l = line(2, 3, "compile", at(Some(0.84), 480, 420, Some(1020.0)));
        assert_eq!(l, "step 2/3 compile: 84%, 8m elapsed, about 10m to go");
        // Slower than last time: the share's estimate wins.
        let l = line(2, 3, "compile", at(Some(0.5), 700, 600, Some(300.0)));
        assert!(l.ends_with("about 10m to go"), "{l}");
        // No share known (configure): the last time alone.
        let l = line(1, 3, "configure", at(None, 20, 20, Some(50.0)));
        assert_eq!(l, "step 1/3 configure: 20s elapsed, about 30s to go");
    }
}
