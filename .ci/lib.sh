# Sourced by the CI scripts: pip that survives a dropped connection to the package index.
# A download cut off mid-file (seen in CI: a large wheel stuck at 48 of 79 MB through pip's own
# resume attempts) fails the whole run; pip retries harder here, and the install is tried again
# after a pause. The environment variables reach every pip these scripts start.
export PIP_RETRIES=10 PIP_RESUME_RETRIES=20 PIP_TIMEOUT=60

# pip_install ARGS...: `pip install ARGS...`, up to four attempts, 20/40/60 s apart.
pip_install() {
    local attempt
    for attempt in 1 2 3 4; do
        if pip install "$@"; then
            return 0
        fi
        if [ "$attempt" -lt 4 ]; then
            echo "pip install failed (attempt $attempt of 4); trying again in $((attempt * 20)) s" >&2
            sleep $((attempt * 20))
        fi
    done
    echo "pip install failed four times: $*" >&2
    return 1
}
