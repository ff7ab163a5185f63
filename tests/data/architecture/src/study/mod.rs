use crate::results::Document;
use crate::driver::Run;
