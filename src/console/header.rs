//! The lines printed before a run starts, in sysbench's shape.

use crate::driver::RunOptions;
use std::io::{self, Write};

pub fn print_header(out: &mut dyn Write, opts: &RunOptions, seed: u64) -> io::Result<()> {
    writeln!(
        out,
        "psbench {} (sysbench 1.0.20-compatible driver)\n",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(out, "Running the test with following options:")?;
    writeln!(out, "Number of threads: {}", opts.threads)?;
    if opts.open_loop() {
        writeln!(out, "Target transaction rate: {}/sec", opts.rate)?;
    }
    if opts.report_interval > 0 {
        writeln!(
            out,
            "Report intermediate results every {} second(s)",
            opts.report_interval
        )?;
    }
    if opts.warmup_time > 0.0 {
        writeln!(
            out,
            "Warming up for {} second(s), not counted in any statistic",
            opts.warmup_time
        )?;
    }
    writeln!(
        out,
        "Initializing random number generator from seed ({seed}).\n\n"
    )
}
