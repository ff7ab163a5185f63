//! What a build is made with, as far as it shapes the binary: the compilers' versions, the CPU
//! a native build targets, the cores to use, ccache when installed, and the free disk.

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `gcc (Debian 12.2.0-14) 12.2.0; g++ (Debian 12.2.0-14) 12.2.0`: the first line of each
/// compiler's `--version` (a C++ server is built by both).
pub fn compilers() -> Result<String> {
    let mut out = Vec::new();
    for cc in ["cc", "c++"] {
        let o = Command::new(cc)
            .arg("--version")
            .output()
            .with_context(|| format!("running {cc} --version (is a compiler installed?)"))?;
        let text = String::from_utf8_lossy(&o.stdout);
        out.push(text.lines().next().unwrap_or(cc).trim().to_string());
    }
    Ok(out.join("; "))
}

/// The CPU a `-march=native` build is made for: its model name and a digest of its feature
/// flags (two hosts with the same model but other microcode can differ in flags).
pub fn target_cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    let flags = field("flags");
    let digest = format!("{:x}", Sha256::digest(flags.as_bytes()));
    format!("{} (flags {})", field("model name"), &digest[..12])
}

/// The CPU's feature flags as /proc/cpuinfo lists them. `PSBENCH_CPU_FLAGS` stands in for
/// them, so that what psbench does on a CPU with (or without) AVX-512 can be tried on any.
pub fn cpu_flags() -> String {
    if let Ok(flags) = std::env::var("PSBENCH_CPU_FLAGS") {
        return flags;
    }
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    info.lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.to_string())
        .unwrap_or_default()
}

/// Of a CPU's feature flags, those valgrind 3.19 cannot run (AVX-512 of any kind): a binary
/// the compiler was allowed to use them in cannot be counted in cost mode.
pub fn unrunnable_under_valgrind(cpu_flags: &str) -> Vec<String> {
    cpu_flags
        .split_whitespace()
        .filter(|f| f.starts_with("avx512"))
        .map(str::to_string)
        .collect()
}

/// How many compile jobs: every core psbench may use.
pub fn jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// ccache, when installed: it saves recompiling what another build of the same flags already
/// compiled (not across flag sets, whose objects differ).
pub fn ccache() -> Option<PathBuf> {
    ["/usr/bin/ccache", "/usr/local/bin/ccache"]
        .map(PathBuf::from)
        .into_iter()
        .find(|p| p.is_file())
}

/// Free bytes on the file system holding `dir` (or its nearest existing parent).
pub fn free_bytes(dir: &Path) -> Result<u64> {
    let mut at = dir;
    while !at.exists() {
        at = at.parent().unwrap_or(Path::new("/"));
    }
    let s = nix::sys::statvfs::statvfs(at)
        .with_context(|| format!("reading the free space of {}", at.display()))?;
    Ok(s.blocks_available() as u64 * s.fragment_size() as u64)
}
