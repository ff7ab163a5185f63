//! How many of the server binary's frames perf could not name. A stripped binary (Debian's
//! mariadbd) resolves only exported symbols; everything else, performance_schema's functions
//! among them, folds into `[mariadbd]`. That must be said, never left for the reader to guess.

use std::path::Path;

/// Frames (over all samples) that fall in the server binary, and how many have no symbol.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Resolution {
    pub frames: u64,
    pub unresolved: u64,
}

impl Resolution {
    pub fn unresolved_share(&self) -> f64 {
        if self.frames == 0 {
            0.0
        } else {
            self.unresolved as f64 / self.frames as f64
        }
    }
}

/// Count the call-chain lines of `perf script` output (`addr symbol+off (module)`) whose
/// module has the server binary's file name.
pub fn resolution(perf_script: &str, binary: &Path) -> Resolution {
    let Some(name) = binary.file_name().and_then(|n| n.to_str()) else {
        return Resolution::default();
    };
    let mut r = Resolution::default();
    for line in perf_script.lines() {
        let line = line.trim();
        let Some(open) = line.rfind(" (") else {
            continue;
        };
        let module = line[open + 2..].trim_end_matches(')');
        if Path::new(module).file_name().and_then(|n| n.to_str()) != Some(name) {
            continue;
        }
        r.frames += 1;
        let symbol = line[..open].split_once(' ').map(|(_, s)| s.trim());
        if matches!(symbol, Some("[unknown]") | None) {
            r.unresolved += 1;
        }
    }
    r
}

/// Above this share of unresolved frames, the study notes it.
pub const NOTE_SHARE: f64 = 0.10;

/// The note for the variants of a server binary whose frames are largely unresolved.
pub fn note(variants: &str, binary: &Path, share: f64) -> String {
    let name = binary
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        "profiles of {variants}: up to {:.0}% of the frames in {} have no symbol and show as [{name}] \
         in the flame graphs and tables (the binary is stripped; performance_schema's functions are among them). \
         For symbols install the debug symbols of that build (Debian: mariadb-server-core-dbgsym from the \
         debian-debug archive, which perf finds by build id), or profile a build that has them, such as \
         version = \"mariadb-11.4.5\" (psbench fetch mariadb 11.4.5).",
        share * 100.0,
        binary.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_unknown_frames_of_the_server_binary_only() {
        let script = "mariadbd  1 2.0:    2004008 cpu-clock: 
\t  8a55a1 JOIN::cleanup+0x1 (/usr/sbin/mariadbd)
\t  829ab1 [unknown] (/usr/sbin/mariadbd)
\t  83d61f do_command+0x13f (/usr/sbin/mariadbd)
\t   891f5 start_thread+0x305 (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t       0 [unknown] ([unknown])
";
        let r = resolution(script, Path::new("/usr/sbin/mariadbd"));
        assert_eq!(
            r,
            Resolution {
                frames: 3,
                unresolved: 1
            }
        );
        assert!((r.unresolved_share() - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(resolution(script, Path::new("/x/mysqld")).frames, 0);
        assert!(
            note("deb", Path::new("/usr/sbin/mariadbd"), 0.25).contains("up to 25% of the frames")
        );
    }
}
