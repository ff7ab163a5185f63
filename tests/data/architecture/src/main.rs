fn main() {
    std::process::exit(psbench::cli::main());
}
