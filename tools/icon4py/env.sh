# shellcheck shell=bash
# Where the ICON4Py environment lives and how commands enter it; sourced by `setup` and `run`.

ICON4PY_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ICON4PY_ENV="${GT4RS_ICON4PY_ENV:-$ICON4PY_REPO/.icon4py}"
ICON4PY_ENV="$(mkdir -p "$ICON4PY_ENV" && cd "$ICON4PY_ENV" && pwd)"
ICON4PY_ROOT="$ICON4PY_ENV/root"
# The virtual environment's path inside the root.
ICON4PY_VENV=/opt/icon4py

# Runs inside a fresh mount namespace: mounts /proc, /dev and the bound host folders (each at
# its own path) into the root, then runs the command there with a clean environment.
# Arguments: ROOT CWD N_BINDS BIND... N_VARS NAME=VALUE... COMMAND [ARGS...]
_icon4py_inside() {
    local root="$1" cwd="$2" n i
    shift 2
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    n="$1"
    shift
    for ((i = 0; i < n; i++)); do
        mkdir -p "$root$1"
        mount --bind "$1" "$root$1"
        shift
    done
    n="$1"
    shift
    local vars=("${@:1:n}")
    shift "$n"
    # shellcheck disable=SC2016 # expanded by the inner shell
    exec chroot "$root" /usr/bin/env -i "${vars[@]}" \
        /bin/sh -c 'cd "$0" 2>/dev/null || cd /; exec "$@"' "$cwd" "$@"
}

# icon4py_chroot COMMAND [ARGS...]: runs COMMAND in the root, with the virtual environment first
# on PATH, the repository and $GT4RS_ICON4PY_BIND (folders separated by `:`) mounted at their own
# paths and the current folder kept where it is one of them. Passes on the proxy and pip index
# variables and every GT4PY_*, ICON4PY_* and OMP_* variable, plus PYTHONOPTIMIZE, PYTHONPATH,
# PYTHONHASHSEED and PYTHONUNBUFFERED.
icon4py_chroot() {
    local binds=("$ICON4PY_REPO") extra name
    if [[ -n "${GT4RS_ICON4PY_BIND:-}" ]]; then
        IFS=: read -r -a extra <<<"$GT4RS_ICON4PY_BIND"
        for name in "${extra[@]}"; do
            [[ -n "$name" ]] && binds+=("$(cd "$name" && pwd)")
        done
    fi
    local vars=(
        "PATH=$ICON4PY_VENV/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        "VIRTUAL_ENV=$ICON4PY_VENV" HOME=/root LANG=C.UTF-8
        GT4PY_BUILD_CACHE_DIR=/var/cache/gt4py GT4PY_BUILD_CACHE_LIFETIME=persistent
    )
    while IFS='=' read -r name _; do
        case "$name" in
        http_proxy | https_proxy | no_proxy | HTTP_PROXY | HTTPS_PROXY | NO_PROXY | \
            PIP_INDEX_URL | PIP_EXTRA_INDEX_URL | PIP_TRUSTED_HOST | PIP_DEFAULT_TIMEOUT | \
            GT4PY_* | ICON4PY_* | OMP_* | PYTHONOPTIMIZE | PYTHONPATH | PYTHONHASHSEED | \
            PYTHONUNBUFFERED | TERM)
            vars+=("$name=${!name}")
            ;;
        esac
    done < <(env)
    unshare --mount --propagation private -- bash -c \
        "$(declare -f _icon4py_inside); _icon4py_inside \"\$@\"" _icon4py \
        "$ICON4PY_ROOT" "$PWD" "${#binds[@]}" "${binds[@]}" "${#vars[@]}" "${vars[@]}" "$@"
}
