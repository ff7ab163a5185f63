//! A result set in text form: what a statement returned, for the statements whose values a
//! workload keeps (a script's `\gset` and `\aset`).

/// Column names and rows, each value as the server's text protocol writes it (`None` for
/// SQL NULL).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
}
