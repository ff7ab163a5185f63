//! The published studies psbench's built-in studies reproduce: each by its title (and author
//! where its text names one), its date, and the server, host and data it was measured on, so
//! that a figure's row can say why ours may differ. A `[[published]]` entry names one by key.

/// One published study.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Source {
    /// What a study file's `source` names it by.
    pub key: &'static str,
    pub title: &'static str,
    /// Where its text names one.
    pub author: Option<&'static str>,
    /// As its text gives it, or the release era where it gives none.
    pub date: &'static str,
    /// The server it measured (the one most of its figures are of).
    pub server: &'static str,
    /// The host, in its words.
    pub host: &'static str,
    /// The host's CPU cores, where its text gives them.
    pub cores: Option<u32>,
}

impl Source {
    /// `"Performance Schema overhead" (Vadim Tkachenko, 2011-04-26)`.
    pub fn cited(&self) -> String {
        match self.author {
            Some(a) => format!("\"{}\" ({a}, {})", self.title, self.date),
            None => format!("\"{}\" ({})", self.title, self.date),
        }
    }
}

pub const SOURCES: [Source; 5] = [
    Source {
        key: "cost-5.7-8.0",
        title: "What is the cost of the performance schema in MySQL 5.7 and 8.0: small server, cached database, simple queries",
        author: None,
        date: "2023-12-18",
        server: "MySQL 8.0.35 and 5.7.44, InnoDB",
        host: "Beelink: 8 cores, 16 GB RAM, NVMe SSD; Insert Benchmark, 1 client, 1 table, cached",
        cores: Some(8),
    },
    Source {
        key: "oltp-rw",
        title: "Performance Schema Benchmarks: OLTP RW",
        author: Some("Sveta Smirnova"),
        date: "MySQL 5.7.17 era, no date in its text",
        server: "MySQL 5.7.17",
        host: "144 CPU cores; sysbench oltp_read_write",
        cores: Some(144),
    },
    Source {
        key: "pfs-overhead",
        title: "Performance Schema overhead",
        author: Some("Vadim Tkachenko"),
        date: "2011-04-26",
        server: "MySQL 5.6.2",
        host: "Cisco UCS C250; sysbench read-only and read-write, 1 to 1,024 threads",
        cores: None,
    },
    Source {
        key: "5.6-single-threaded",
        title: "MySQL 5.6: single-threaded, read-only",
        author: None,
        date: "MySQL 5.6.10 era, no date in its text",
        server: "MySQL 5.6.10 (and 5.1.63, with and without the Facebook patch)",
        host: "sysbench point selects on one connection, 128M rows; IO-bound with a 4 GB pool on fast storage (100 µs reads), cached with a 64 GB pool",
        cores: None,
    },
    Source {
        key: "mysql8-57-percona",
        title: "MySQL 8, MySQL 5.7 and Percona Server for MySQL performance compared",
        author: None,
        date: "2021-06-07",
        server: "MySQL 8.0, MySQL 5.7 and Percona Server for MySQL 5.7",
        host: "2 × Xeon E5-2680 v3, Intel Optane SSD 905P; sysbench oltp_read_write, 8 tables × 50M rows, 32 GB pool, 128 threads",
        cores: Some(24),
    },
];

/// The study a key names.
pub fn source(key: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|s| s.key == key)
}
