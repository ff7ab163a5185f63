use crate::console::Term;
