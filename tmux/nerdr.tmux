#!/usr/bin/env sh
# nerdr's tmux plugin (TPM entry point; or `run-shell /path/to/nerdr/tmux/nerdr.tmux`).
#
# - puts nerdr's light in front of window-status-format / window-status-current-format and its
#   summary in front of status-right, as `nerdr tmux install` does: only where the format does
#   not read it already (itself or through a theme's options), the old value kept in
#   @nerdr_saved_<option> (set @nerdr-lights to "off" to write your own formats);
# - binds keys only where asked: @nerdr-key-next (jump to the agent that needs you) and
#   @nerdr-key-dash (the dashboard in a popup), in the prefix table, never over a tmux default;
# - glyphs and colours are options the supervisor reads: @nerdr-glyph-<kind>, @nerdr-color-<kind>
#   for working, background, blocked, done, idle, unknown, exited, stalled, and @nerdr-light-bg,
#   the background under them (docs/tmux.md).
#
# Every value goes to tmux as its own argument: nothing here is built into a shell line except
# the two key bindings, whose command paths are quoted for sh.

CURRENT_DIR="$(cd "$(dirname "$0")" && pwd)"
ROOT_DIR="$(cd "$CURRENT_DIR/.." && pwd)"

# tmux's default prefix-table keys (3.3a, `tmux -f /dev/null list-keys -T prefix`) and the
# three TPM reserves (I, U, M-u): never bound by this plugin.
DEFAULT_KEYS='C-b C-o C-z Space ! " # $ % & '"'"' ( ) , - . / 0 1 2 3 4 5 6 7 8 9 : ; < = > ? C D E L M [ ] c d f i l m n o p q r s t w x z { } ~ DC PPage Up Down Left Right M-1 M-2 M-3 M-4 M-5 M-n M-o M-p M-Up M-Down M-Left M-Right C-Up C-Down C-Left C-Right S-Up S-Down S-Left S-Right I U M-u'

LIGHT_PREFIX='#{?@nerdr_light,#{E:@nerdr_light} ,}'
SUMMARY_PREFIX='#{E:@nerdr_summary}'

get_option() {
	value="$(tmux show-option -gqv "$1")"
	if [ -n "$value" ]; then printf '%s' "$value"; else printf '%s' "$2"; fi
}

# tmux reads an argument that ends in ";" as a command separator; "\;" keeps it literal.
argv_safe() {
	case "$1" in
	*\;) printf '%s\\;' "${1%;}" ;;
	*) printf '%s' "$1" ;;
	esac
}

# A string as one sh word.
sh_quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

warnings=''
warn() {
	warnings="${warnings:+$warnings; }$1"
}

# Shows the warnings where the user sees them: now when a client is attached (a config reload),
# else once the first client attaches (a message shown while tmux starts is never seen). The
# hook's text is fixed; the warnings themselves are read from @nerdr-plugin-warnings.
show_warnings() {
	if [ -n "$(tmux list-clients -F x 2>/dev/null)" ]; then
		tmux display-message -d 10000 'nerdr: #{@nerdr-plugin-warnings}' 2>/dev/null || true
	else
		tmux set-hook -g 'client-attached[77]' "display-message -d 10000 'nerdr: #{@nerdr-plugin-warnings}' ; set-hook -gu 'client-attached[77]'"
	fi
}

# What prefix KEY runs when something other than nerdr bound it (empty: free, or nerdr's own).
bound_elsewhere() {
	tmux list-keys -T prefix 2>/dev/null | awk -v k="$1" '{
		i = ($2 == "-r") ? 5 : 4
		if ($i == k) { line = ""; for (j = i + 1; j <= NF; j++) line = line (j > i + 1 ? " " : "") $j; print line; exit }
	}' | grep -v nerdr
}

# Whether a format reads the marker: itself, or through the user options it names, as a theme's
# status module does (catppuccin: #{E:@catppuccin_status_nerdr} holds #{E:@catppuccin_nerdr_text},
# which holds #{E:@nerdr_summary}). Up to 3 levels; each level in a subshell, for its variables.
reads_marker() {
	case "$1" in *"$2"*) return 0 ;; esac
	[ "${3:-3}" -gt 0 ] || return 1
	for ref in $(printf '%s' "$1" | grep -o '@[A-Za-z0-9_-]*' | sort -u | head -n 64); do
		inner="$(tmux show-option -gqv "$ref")"
		[ -n "$inner" ] || inner="$(tmux show-option -gwqv "$ref")"
		[ -n "$inner" ] && (reads_marker "$inner" "$2" $((${3:-3} - 1))) && return 0
	done
	return 1
}

install_prefix() {
	option="$1" prefix="$2" marker="$3"
	current="$(tmux show-option -gv "$option")"
	# the user's config (or theme) already shows it: a prefix would show it twice
	reads_marker "$current" "$marker" && return 0
	tmux set-option -g "@nerdr_saved_$option" "$(argv_safe "$current")"
	tmux set-option -g "$option" "$(argv_safe "$prefix$current")"
	if [ "$option" = status-right ]; then
		# room for the summary (SUMMARY_WIDTH in src/tmux/status.ts), so the user's own status stays
		length="$(tmux show-option -gv status-right-length)"
		tmux set-option -g @nerdr_saved_status-right-length "$length"
		tmux set-option -g status-right-length "$((length + 24))"
	fi
}

is_default_key() {
	for k in $DEFAULT_KEYS; do
		[ "$k" = "$1" ] && return 0
	done
	return 1
}

nerdr_command() {
	bin="$(get_option @nerdr-bin '')"
	if [ -z "$bin" ]; then
		if command -v nerdr >/dev/null 2>&1; then bin="$(command -v nerdr)"; else bin="$ROOT_DIR/bin/nerdr.js"; fi
	fi
	sh_quote "$bin"
}

bind_key() {
	option="$1"
	shift
	key="$(get_option "$option" '')"
	[ -z "$key" ] && return 0
	if is_default_key "$key"; then
		warn "$option: prefix $key is a tmux default (or TPM's); not bound. Choose a free key, e.g. N or C-g"
		return 0
	fi
	taken="$(bound_elsewhere "$key")"
	if [ -n "$taken" ]; then
		warn "$option: prefix $key is already bound by your config ($taken); not replaced. Choose a free key (tmux list-keys -T prefix)"
		return 0
	fi
	tmux bind-key -T prefix "$(argv_safe "$key")" "$@"
}

# For tmux arguments it expands as formats (run-shell's command, display-message): # → ##.
format_safe() {
	printf '%s' "$1" | sed 's/#/##/g'
}

# A TPM install is a plain clone: nothing built. Build it once, in the background, and say so.
build_if_needed() {
	[ -f "$ROOT_DIR/dist/cli/main.js" ] && return 0
	if ! command -v npm >/dev/null 2>&1; then
		warn "nerdr is not built and npm is not on PATH: install Node.js 20 or newer, then run npm install in $ROOT_DIR"
		return 0
	fi
	log="$ROOT_DIR/.nerdr-build.log"
	tmux set-option -g @nerdr-plugin-build "building (npm install in $(argv_safe "$ROOT_DIR"), log: .nerdr-build.log)"
	script="cd $(sh_quote "$ROOT_DIR") && npm install --no-audit --no-fund >$(sh_quote "$log") 2>&1"
	tmux run-shell -b "$(format_safe "$script") && tmux set-option -gu @nerdr-plugin-build \; display-message 'nerdr: built, ready' || tmux set-option -g @nerdr-plugin-build 'failed: see .nerdr-build.log in the plugin folder' \; display-message 'nerdr: the first build failed (see .nerdr-build.log in the plugin folder)'"
}

main() {
	build_if_needed
	if [ "$(get_option @nerdr-lights on)" != off ]; then
		install_prefix window-status-format "$LIGHT_PREFIX" @nerdr_light
		install_prefix window-status-current-format "$LIGHT_PREFIX" @nerdr_light
		install_prefix status-right "$SUMMARY_PREFIX" @nerdr_summary
	fi
	nerdr="$(nerdr_command)"
	width="$(get_option @nerdr-popup-width 80%)"
	height="$(get_option @nerdr-popup-height 80%)"
	bind_key @nerdr-key-next run-shell -b "$nerdr next --message"
	bind_key @nerdr-key-dash display-popup -E -w "$width" -h "$height" "$nerdr dash"
	if [ -n "$warnings" ]; then
		tmux set-option -g @nerdr-plugin-warnings "$(argv_safe "$warnings")"
		show_warnings
	else
		tmux set-option -gu @nerdr-plugin-warnings
	fi
}

main
