use crate::{results::A, driver::B};
use super::Shared;
pub struct Thing;
