// Declarations and re-exports of children are not imports: no edge mod.rs -> child.
pub mod a;
pub mod b;
pub mod x;
pub use a::A;
pub use crate::report::x::Thing;
pub struct Shared;
