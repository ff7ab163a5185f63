// A family may use what the engines folder shares, never the other family.
pub mod threads;
use super::Shared;
use super::postgres::Cluster;
