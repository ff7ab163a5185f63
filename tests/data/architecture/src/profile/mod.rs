use crate::cli::Args;
