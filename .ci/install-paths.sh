#!/usr/bin/env bash
# The documented install paths, from a clean clone of this commit: `npm install -g .`
# and a TPM-style clone (nothing built) whose plugin builds it on first load. Prints one line each.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
sock="nerdr-ci-install-$$"
# tmux leaves its socket file behind after kill-server
cleanup() {
  local path; path=$(tmux -L "$sock" display -p '#{socket_path}' 2>/dev/null || true)
  tmux -L "$sock" kill-server 2>/dev/null || true
  [ -n "$path" ] && rm -f "$path"
  rm -rf "$work"
}
trap cleanup EXIT

git clone -q "$repo" "$work/npm"
(cd "$work/npm" && npm install -g --prefix "$work/prefix" . >"$work/npm.log" 2>&1) \
  || { tail -20 "$work/npm.log"; echo "install path npm install -g .: FAILED"; exit 1; }
v=$("$work/prefix/bin/nerdr" --version)
echo "install path npm install -g .: ok (nerdr $v)"

git clone -q "$repo" "$work/tpm"
tmux -L "$sock" -f /dev/null new-session -d -s ci
tmux -L "$sock" run-shell "$work/tpm/tmux/nerdr.tmux"
for _ in $(seq 1 600); do
  [ -f "$work/tpm/dist/cli/main.js" ] && [ -z "$(tmux -L "$sock" show-options -gqv @nerdr-plugin-build)" ] && break
  sleep 0.5 # polling a background build, with a 5 min deadline
done
if [ ! -f "$work/tpm/dist/cli/main.js" ]; then
  tail -20 "$work/tpm/.nerdr-build.log" 2>/dev/null || true
  echo "install path TPM first load: FAILED ($(tmux -L "$sock" show-options -gqv @nerdr-plugin-build))"
  exit 1
fi
v=$(node "$work/tpm/bin/nerdr.js" --version)
echo "install path TPM first load: ok (nerdr $v)"
