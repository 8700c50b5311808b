#!/usr/bin/env bash
# One-step set-up and launch for a fresh Debian/Ubuntu machine.
#   packaging/bootstrap.sh run  [ARGS...]   install what is missing, then start PaperPilot
#   packaging/bootstrap.sh test [PYTEST ARGS...]   install what is missing, then run the tests
#   packaging/bootstrap.sh lint              install what is missing, then check the import
#                                            boundaries (lint-imports), ruff and mypy
# Installs the Debian packages Qt needs (when missing; needs root or sudo), creates .venv with
# a Python >= 3.11, installs the project with its dev extras, and re-installs only when
# pyproject.toml changes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=${1:-run}
shift || true

say() { printf '\033[1m[paperpilot]\033[0m %s\n' "$*" >&2; }

# --- Debian packages -------------------------------------------------------------------------
# Each entry lists alternative names (Debian 12 vs Debian 13 / Ubuntu 24.04 "t64" renames).
QT_LIBS=(libegl1 libgl1 libxkbcommon0 libfontconfig1 libfreetype6 "libdbus-1-3" "libglib2.0-0t64|libglib2.0-0"
         fonts-wqy-microhei)
GUI_LIBS=(libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-randr0
          libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libxkbcommon-x11-0 libx11-xcb1)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

ensure_debs() {
    command -v dpkg-query >/dev/null || { say "not a Debian/Ubuntu system: skipping system packages"; return 0; }
    local missing=() entry alt found
    for entry in "$@"; do
        found=""
        IFS='|' read -r -a alts <<<"$entry"
        for alt in "${alts[@]}"; do have_pkg "$alt" && { found=1; break; }; done
        [ -n "$found" ] || missing+=("$entry")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null; then SUDO=sudo; else
            say "missing system packages (${missing[*]}) and no sudo: install them as root"; return 0; fi
    fi
    say "installing system packages: ${missing[*]//|/ or }"
    $SUDO apt-get update -qq >/dev/null
    local pick=() name
    for entry in "${missing[@]}"; do
        IFS='|' read -r -a alts <<<"$entry"
        for name in "${alts[@]}"; do
            if apt-cache show "$name" >/dev/null 2>&1; then pick+=("$name"); break; fi
        done
    done
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pick[@]}" >/dev/null
}

# --- Python ----------------------------------------------------------------------------------
find_python() {
    local c
    for c in python3.13 python3.12 python3.11 python3; do
        if command -v "$c" >/dev/null && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$c"; return 0
        fi
    done
    return 1
}

ensure_venv() {
    local py
    if [ ! -x .venv/bin/python ]; then
        py=$(find_python) || { say "Python 3.11 or newer is required"; exit 1; }
        if ! "$py" -c 'import ensurepip' 2>/dev/null; then
            ensure_debs python3-venv
        fi
        say "creating .venv with $($py --version)"
        "$py" -m venv .venv
    fi
    # PAPERPILOT_EXTRAS=llm-server adds the local model server used by the integration tests.
    local extras="dev${PAPERPILOT_EXTRAS:+,$PAPERPILOT_EXTRAS}"
    local stamp=.venv/.setup-stamp want
    want=$( (cat pyproject.toml; echo "$extras") | sha256sum | cut -d' ' -f1)
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        say "installing Python dependencies into .venv ($extras)"
        .venv/bin/python -m pip install -q --upgrade pip >/dev/null
        # llama.cpp must not be built for the build machine's exact CPU (it crashes elsewhere).
        CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" .venv/bin/python -m pip install -q -e ".[$extras]"
        echo "$want" >"$stamp"
    fi
    # Bytecode for the app's own modules (an editable install has none, and an environment with
    # PYTHONDONTWRITEBYTECODE never writes it): without it every start and every extraction
    # worker compiles the source again (cold start 2.1 s instead of 1.5 s). Up-to-date files are
    # skipped, so this costs a fraction of a second after the first time.
    PYTHONDONTWRITEBYTECODE= .venv/bin/python -m compileall -q -j 0 desktop/paperpilot >/dev/null || true
    # The import pipeline's modules compiled with mypyc (imports about 10 % faster; optional,
    # see packaging/build_accel.py): about a minute, again only after one of them changed.
    if ! .venv/bin/python packaging/build_accel.py --check; then
        ensure_debs gcc libc6-dev
        local pyver
        pyver=$(.venv/bin/python -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
        .venv/bin/python -c 'import pathlib, sys, sysconfig
sys.exit(not pathlib.Path(sysconfig.get_paths()["include"], "Python.h").is_file())' || ensure_debs "python$pyver-dev|python3-dev"
        .venv/bin/python packaging/build_accel.py
    fi
}

case "$MODE" in
    run)
        ensure_debs "${QT_LIBS[@]}" "${GUI_LIBS[@]}"
        ensure_venv
        exec .venv/bin/paperpilot "$@"
        ;;
    test)
        ensure_debs "${QT_LIBS[@]}"
        ensure_venv
        export QT_QPA_PLATFORM=offscreen
        set +e
        .venv/bin/python -m pytest "$@"
        rc=$?
        set -e
        if [ $rc -eq 5 ]; then say "no tests were collected"; rc=0; fi
        exit $rc
        ;;
    lint)
        ensure_venv
        # All three run, so one report shows every finding; any finding fails.
        rc=0
        say "lint-imports (the architecture's boundaries, pyproject.toml [tool.importlinter])"
        .venv/bin/lint-imports --no-cache || rc=1
        say "ruff check desktop tests"
        .venv/bin/ruff check desktop tests || rc=1
        say "mypy (strict on core, cli and ui)"
        .venv/bin/mypy || rc=1
        exit $rc
        ;;
    *)
        echo "usage: $0 run|test|lint [ARGS...]" >&2; exit 2 ;;
esac
