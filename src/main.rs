// The client's CPU per query is a headline figure: the mysql crate allocates per packet and
// per row, and mimalloc makes those allocations cheaper than glibc's malloc (bench/client_cpu.py).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(psbench::cli::main());
}
