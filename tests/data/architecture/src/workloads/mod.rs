pub mod random;
pub mod sysbench;
