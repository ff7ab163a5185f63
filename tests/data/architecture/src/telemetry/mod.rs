pub struct Span;
