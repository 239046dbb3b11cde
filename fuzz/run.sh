#!/usr/bin/env bash
# Runs demokit's fuzz targets with libFuzzer on the stable toolchain.
#
#   fuzz/run.sh                      smoke run: every target for 30 s
#   fuzz/run.sh 600 5000000          every target until 10 minutes or 5 million runs
#   fuzz/run.sh 30 -1 huffman varint  only these targets
#
# Arguments: seconds per target (default 30), runs per target (-1: no limit), target names
# (default: all). JOBS targets run side by side (default: the number of cores). Seeds come
# from fixtures/ and ../shared (fuzz/examples/seed_corpora.rs), made on the first run;
# inputs the fuzzer adds stay in fuzz/corpus/<target>/ for the next run. A crash leaves its
# input in fuzz/artifacts/<target>/ and fails the run; each target's log is in
# fuzz/logs/<target>.log. SANITIZER=address builds with AddressSanitizer instead
# (RUSTC_BOOTSTRAP=1 lets the stable compiler take the flag).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
runs="${2:--1}"
shift $(( $# > 2 ? 2 : $# ))
sanitizer="${SANITIZER:-none}"
jobs="${JOBS:-$(nproc)}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz is missing: cargo install cargo-fuzz" >&2
    exit 2
fi
if [ "$sanitizer" != none ]; then
    export RUSTC_BOOTSTRAP=1
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi

if [ ! -d fuzz/corpus ]; then
    cargo run --quiet --release --manifest-path fuzz/Cargo.toml --example seed_corpora
fi
cargo fuzz build --sanitizer "$sanitizer" -O

bin_dir="fuzz/target/x86_64-unknown-linux-gnu/release"
mkdir -p fuzz/logs
run_one() {
    local target="$1"
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: a leak or a huge
    # allocation (the targets also abort on any single allocation of 64 MiB or more).
    if "$bin_dir/$target" "fuzz/corpus/$target" \
        -artifact_prefix="fuzz/artifacts/$target/" \
        -max_total_time="$seconds" -runs="$runs" \
        -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
        -print_final_stats=1 >"fuzz/logs/$target.log" 2>&1; then
        status=ok
    else
        status=FAILED
    fi
    local done_line
    done_line="$(grep -E '^Done [0-9]+ runs' "fuzz/logs/$target.log" || true)"
    printf '%-24s %-7s %s\n' "$target" "$status" "${done_line:-see fuzz/logs/$target.log}"
    [ "$status" = ok ]
}
export -f run_one
export seconds runs bin_dir

if printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}; then
    echo "all targets ran clean"
else
    echo "a target failed: see fuzz/artifacts/ and fuzz/logs/" >&2
    exit 1
fi
