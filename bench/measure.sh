# Sourced by the bench scripts: `measure LOG COMMAND...` runs the command and prints
# "<exit code> <wall seconds> <peak RSS KiB>" on stdout; the command's own output goes to LOG.
# GNU time when present, else a python3 getrusage(RUSAGE_CHILDREN) wrapper.
measure() {
    local log="$1"; shift
    if /usr/bin/time -v true >/dev/null 2>&1; then
        local tfile; tfile="$(mktemp)"
        local start end code
        start="$(date +%s.%N)"
        /usr/bin/time -v -o "$tfile" "$@" >"$log" 2>&1
        code=$?
        end="$(date +%s.%N)"
        local rss; rss="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tfile")"
        rm -f "$tfile"
        echo "$code $(python3 -c "print(f'{$end - $start:.2f}')") ${rss:-0}"
    else
        python3 - "$log" "$@" <<'PY'
import resource, subprocess, sys, time
log, cmd = sys.argv[1], sys.argv[2:]
start = time.monotonic()
with open(log, "w") as out:
    code = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT)
wall = time.monotonic() - start
rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print(f"{code} {wall:.2f} {rss_kib}")
PY
    fi
}

# `best_of K LOG COMMAND...`: the run of the command with the least wall time of K, as `measure` prints it;
# a run that fails (exit other than 0 or 2) is printed at once.
best_of() {
    local k="$1" log="$2"; shift 2
    local code wall rss best_code="" best_wall="" best_rss=""
    for _ in $(seq "$k"); do
        read -r code wall rss < <(measure "$log" "$@")
        if [ "$code" != 0 ] && [ "$code" != 2 ]; then
            echo "$code $wall $rss"
            return
        fi
        if [ -z "$best_wall" ] || python3 -c "import sys; sys.exit(0 if $wall < $best_wall else 1)"; then
            best_code="$code" best_wall="$wall" best_rss="$rss"
        fi
    done
    echo "$best_code $best_wall $best_rss"
}
