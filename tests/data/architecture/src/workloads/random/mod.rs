pub struct Zipf;
