//! Device IO of the block device holding a directory (a sandbox's datadir), from
//! /proc/diskstats: what reached the disk, which the per-process byte counters cannot tell
//! (they count page-cache hits as reads and buffered writes before they are flushed).

use crate::results::DeviceIo;
use anyhow::{anyhow, Context, Result};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// /proc/diskstats counts 512-byte sectors whatever the device's own sector size.
const SECTOR_BYTES: u64 = 512;

/// The whole device (not the partition) a directory's filesystem lives on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub name: String,
    major: i32,
    minor: i32,
}

/// Cumulative counters of one device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskSample {
    pub reads: u64,
    pub read_bytes: u64,
    pub writes: u64,
    pub write_bytes: u64,
}

impl Device {
    /// The device holding `dir`: its filesystem's device number, mapped from a partition to
    /// the disk it is on. A filesystem without a block device (tmpfs, overlay) is an error that
    /// says so.
    pub fn holding(dir: &Path) -> Result<Device> {
        let dev = std::fs::metadata(dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .dev();
        let (major, minor) = (libc::major(dev), libc::minor(dev));
        let sys = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
        let real = std::fs::canonicalize(&sys).map_err(|_| {
            anyhow!(
                "{} is on no block device ({major}:{minor}, e.g. tmpfs or overlay)",
                dir.display()
            )
        })?;
        // A partition's sysfs directory sits inside its disk's and has a `partition` file.
        let disk = if real.join("partition").exists() {
            real.parent().map(Path::to_path_buf).unwrap_or(real)
        } else {
            real
        };
        let name = disk
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| anyhow!("no device name in {}", disk.display()))?
            .to_string();
        let (major, minor) = read_dev(&disk.join("dev"))?;
        Ok(Device { name, major, minor })
    }

    pub fn sample(&self) -> Result<DiskSample> {
        let text = std::fs::read_to_string("/proc/diskstats").context("reading /proc/diskstats")?;
        self.sample_from(&text)
    }

    fn sample_from(&self, diskstats: &str) -> Result<DiskSample> {
        for line in diskstats.lines() {
            let Ok(d) = procfs::DiskStat::from_line(line) else {
                continue;
            };
            if d.major == self.major && d.minor == self.minor {
                return Ok(DiskSample {
                    reads: d.reads,
                    read_bytes: d.sectors_read * SECTOR_BYTES,
                    writes: d.writes,
                    write_bytes: d.sectors_written * SECTOR_BYTES,
                });
            }
        }
        Err(anyhow!("device {} not in /proc/diskstats", self.name))
    }
}

/// A device's IO sampled every second in a thread, from `start` until `stop`.
pub struct DeviceSeries {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Result<Vec<DeviceIo>>>,
    first: DiskSample,
    started: Instant,
    device: Device,
}

impl DeviceSeries {
    pub fn start(device: &Device) -> Result<DeviceSeries> {
        let first = device.sample()?;
        let started = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, dev) = (stop.clone(), device.clone());
        let thread = std::thread::spawn(move || {
            let mut out = Vec::new();
            let (mut last, mut at) = (first, started);
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(20));
                if at.elapsed() >= Duration::from_secs(1) {
                    let now = dev.sample()?;
                    out.push(now.rates_since(&last, at.elapsed().as_secs_f64()));
                    (last, at) = (now, Instant::now());
                }
            }
            Ok(out)
        });
        Ok(DeviceSeries {
            stop,
            thread,
            first,
            started,
            device: device.clone(),
        })
    }

    /// The whole window's rates and each second's.
    pub fn stop(self) -> Result<(DeviceIo, Vec<DeviceIo>)> {
        let end = self.device.sample()?;
        let whole = end.rates_since(&self.first, self.started.elapsed().as_secs_f64());
        self.stop.store(true, Ordering::Relaxed);
        let series = self
            .thread
            .join()
            .map_err(|_| anyhow!("the device sampler panicked"))??;
        Ok((whole, series))
    }
}

/// `MAJ:MIN` from a sysfs `dev` file.
fn read_dev(path: &Path) -> Result<(i32, i32)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let (a, b) = text
        .trim()
        .split_once(':')
        .ok_or_else(|| anyhow!("{}: not MAJ:MIN", path.display()))?;
    Ok((a.parse()?, b.parse()?))
}

impl DiskSample {
    /// Rates between `earlier` and this sample, `seconds` apart.
    pub fn rates_since(&self, earlier: &DiskSample, seconds: f64) -> DeviceIo {
        let s = seconds.max(1e-9);
        let mb = |b: u64, a: u64| b.saturating_sub(a) as f64 / 1048576.0 / s;
        DeviceIo {
            read_mb_s: mb(self.read_bytes, earlier.read_bytes),
            write_mb_s: mb(self.write_bytes, earlier.write_bytes),
            read_iops: self.reads.saturating_sub(earlier.reads) as f64 / s,
            write_iops: self.writes.saturating_sub(earlier.writes) as f64 / s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: &str = "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 559270 18424 32002090 539266 5123198 1595420 592965680 3178502 0 251752 3783782 143770 212 219781560 35443 406309 30569
 254       1 vda1 1000 0 2048 10 20 0 4096 5 0 1 1 0 0 0 0 0 0";

    #[test]
    fn reads_the_whole_device_not_a_partition() {
        let vda = Device {
            name: "vda".into(),
            major: 254,
            minor: 0,
        };
        let s = vda.sample_from(STATS).unwrap();
        assert_eq!(s.reads, 559_270);
        assert_eq!(s.read_bytes, 32_002_090 * 512);
        assert_eq!(s.writes, 5_123_198);
        assert_eq!(s.write_bytes, 592_965_680 * 512);
        let gone = Device {
            name: "sdz".into(),
            major: 8,
            minor: 99,
        };
        assert!(gone.sample_from(STATS).is_err());
    }

    #[test]
    fn rates_per_second() {
        let a = DiskSample {
            reads: 100,
            read_bytes: 0,
            writes: 10,
            write_bytes: 1 << 20,
        };
        let b = DiskSample {
            reads: 300,
            read_bytes: 4 << 20,
            writes: 30,
            write_bytes: 3 << 20,
        };
        let r = b.rates_since(&a, 2.0);
        assert_eq!(r.read_mb_s, 2.0);
        assert_eq!(r.write_mb_s, 1.0);
        assert_eq!(r.read_iops, 100.0);
        assert_eq!(r.write_iops, 10.0);
    }

    #[test]
    fn finds_the_device_of_a_real_directory() {
        // The temp dir of this machine: on a block device here (CI's too), counters readable,
        // and a second sample never goes backwards.
        let dir = std::env::temp_dir();
        match Device::holding(&dir) {
            Ok(d) => {
                let a = d.sample().unwrap();
                std::fs::write(dir.join("psbench-device-probe"), vec![1u8; 1 << 16]).unwrap();
                let b = d.sample().unwrap();
                assert!(b.reads >= a.reads && b.writes >= a.writes);
                let series = DeviceSeries::start(&d).unwrap();
                std::thread::sleep(Duration::from_millis(2300));
                let (whole, seconds) = series.stop().unwrap();
                assert_eq!(seconds.len(), 2);
                assert!(whole.read_mb_s >= 0.0 && whole.write_iops >= 0.0);
                let _ = std::fs::remove_file(dir.join("psbench-device-probe"));
            }
            Err(e) => assert!(e.to_string().contains("no block device"), "{e}"),
        }
    }
}
