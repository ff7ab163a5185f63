use crate::error::Error;
pub struct Term;
