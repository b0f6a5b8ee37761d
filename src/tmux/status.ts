// Adding nerdr's light in front of the user's own status formats, and taking it out again.
// The user's text is kept: the prefix is inserted, the old value is backed up in
// @nerdr_saved_<option>, and uninstall removes exactly the prefix.

export const LIGHT_PREFIX = '#{?@nerdr_light,#{E:@nerdr_light} ,}';
export const SUMMARY_PREFIX = '#{E:@nerdr_summary}';

export const STATUS_OPTIONS = [
  { option: 'window-status-format', prefix: LIGHT_PREFIX, marker: '@nerdr_light' },
  { option: 'window-status-current-format', prefix: LIGHT_PREFIX, marker: '@nerdr_light' },
  { option: 'status-right', prefix: SUMMARY_PREFIX, marker: '@nerdr_summary' },
] as const;

export type StatusOption = (typeof STATUS_OPTIONS)[number]['option'];

/** The new value with the prefix, or null when it is already there. */
export function withPrefix(current: string, prefix: string, marker: string): string | null {
  if (current.includes(marker)) return null;
  return prefix + current;
}

/** The value without our prefix (wherever the user's config moved it), or null when absent. */
export function withoutPrefix(current: string, prefix: string): string | null {
  if (!current.includes(prefix)) return null;
  return current.split(prefix).join('');
}

/** Runs one tmux command given as argv and answers its output (the control channel or a one-shot). */
export type RunArgv = (args: string[]) => Promise<string>;

/** Puts the prefixes in front of the user's options, backing the old values up; returns what changed. */
export async function installLights(run: RunArgv): Promise<StatusOption[]> {
  const changed: StatusOption[] = [];
  for (const { option, prefix, marker } of STATUS_OPTIONS) {
    const current = (await run(['show-options', '-gv', option])).replace(/\n$/, '');
    const next = withPrefix(current, prefix, marker);
    if (next === null) continue;
    await run(['set-option', '-g', `@nerdr_saved_${option}`, current]);
    await run(['set-option', '-g', option, next]);
    changed.push(option);
  }
  return changed;
}

/** Takes the prefixes out again, keeping the user's own text; returns what changed. */
export async function uninstallLights(run: RunArgv): Promise<StatusOption[]> {
  const changed: StatusOption[] = [];
  for (const { option, prefix } of STATUS_OPTIONS) {
    const current = (await run(['show-options', '-gv', option])).replace(/\n$/, '');
    const next = withoutPrefix(current, prefix);
    if (next === null) continue;
    await run(['set-option', '-g', option, next]);
    await run(['set-option', '-gu', `@nerdr_saved_${option}`]).catch(() => '');
    changed.push(option);
  }
  return changed;
}
