// cli may import anything.
use crate::console::Term;
use crate::driver::Run;
use crate::study::Study;
pub fn main() -> i32 { 0 }
