// psbench:: paths inside src/ are crate:: paths.
use psbench::probes::Cpu;
use crate::error::Error;
