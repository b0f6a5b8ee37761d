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
