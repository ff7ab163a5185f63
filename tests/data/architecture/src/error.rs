// error is a shared leaf: it imports no stage.
use crate::ibench::Step;
