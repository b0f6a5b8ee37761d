#!/usr/bin/env bash
# TPM runs the *.tmux files at the root of a plugin: this one hands over to tmux/nerdr.tmux.
exec "$(cd "$(dirname "$0")" && pwd)/tmux/nerdr.tmux" "$@"
