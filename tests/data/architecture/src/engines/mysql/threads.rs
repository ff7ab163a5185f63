use crate::engines::{Shared, postgres::backends::Dump};
