// Adding nerdr's light in front of the user's own status formats, and taking it out again.
// The user's text is kept: the prefix is inserted, the old value is backed up in
// @nerdr_saved_<option>, and uninstall removes exactly that prefix, only where nerdr put it.

export const LIGHT_PREFIX = '#{?@nerdr_light,#{E:@nerdr_light} ,}';
export const SUMMARY_PREFIX = '#{E:@nerdr_summary}';

export const STATUS_OPTIONS = [
  { option: 'window-status-format', prefix: LIGHT_PREFIX, marker: '@nerdr_light' },
  { option: 'window-status-current-format', prefix: LIGHT_PREFIX, marker: '@nerdr_light' },
  { option: 'status-right', prefix: SUMMARY_PREFIX, marker: '@nerdr_summary' },
] as const;

export type StatusOption = (typeof STATUS_OPTIONS)[number]['option'];
export type StatusSpec = (typeof STATUS_OPTIONS)[number];

export const savedOption = (option: string): string => `@nerdr_saved_${option}`;

/**
 * The value without the prefix nerdr put in front of `saved` (the value it found), or null when
 * that is not how the value starts. Only the start: the same text elsewhere is the user's
 * (catppuccin's window text, a format written by hand), and so is a value nerdr never changed.
 * Text appended after the install (`set -ga`) is kept.
 */
export function withoutPrefix(current: string, prefix: string, saved: string | null): string | null {
  if (saved === null || !current.startsWith(prefix + saved)) return null;
  return current.slice(prefix.length);
}

/** Runs one tmux command given as argv and answers its output (the control channel or a one-shot). */
export type RunArgv = (args: string[]) => Promise<string>;

const USER_OPTION = /@[A-Za-z0-9_-]+/g;

/**
 * Whether a format reads `marker`: itself, or through the user options it names, as a theme's
 * status module does (catppuccin: status-right holds #{E:@catppuccin_status_nerdr}, which holds
 * #{E:@catppuccin_nerdr_text}, which holds #{E:@nerdr_summary}). Follows up to `depth` levels.
 */
export async function readsMarker(run: RunArgv, value: string, marker: string, depth = 3, seen = new Set<string>()): Promise<boolean> {
  if (value.includes(marker)) return true;
  if (depth <= 0) return false;
  for (const name of new Set(value.match(USER_OPTION) ?? [])) {
    if (seen.has(name) || seen.size >= 64) continue;
    seen.add(name);
    const global = await run(['show-options', '-gqv', name]).catch(() => '');
    const inner = global || (await run(['show-options', '-gwqv', name]).catch(() => ''));
    if (inner && (await readsMarker(run, inner, marker, depth - 1, seen))) return true;
  }
  return false;
}

/** The option's global value as tmux shows it, without the final line break. */
export async function optionValue(run: RunArgv, option: string): Promise<string> {
  return (await run(['show-options', '-gv', option])).replace(/\n$/, '');
}

/** The value nerdr recorded when it prefixed the option, or null when it did not. */
async function savedValue(run: RunArgv, option: string): Promise<string | null> {
  const name = savedOption(option);
  // -q answers '' both for unset and for an empty value; the name line tells them apart
  const listed = await run(['show-options', '-gq', name]).catch(() => '');
  if (!listed.startsWith(`${name} `)) return null;
  return (await run(['show-options', '-gqv', name])).replace(/\n$/, '');
}

/**
 * Puts one prefix in front of the user's option, backing its value up; false when the format
 * reads the light (the summary) already: the user's config or theme shows it, a prefix would show
 * it twice.
 */
export async function installLight(run: RunArgv, { option, prefix, marker }: StatusSpec): Promise<boolean> {
  const current = await optionValue(run, option);
  if (await readsMarker(run, current, marker)) return false;
  await run(['set-option', '-g', savedOption(option), current]);
  await run(['set-option', '-g', option, prefix + current]);
  if (option === 'status-right') await widenStatusRight(run);
  return true;
}

/** Puts the prefixes in front of the user's options, backing the old values up; returns what changed. */
export async function installLights(run: RunArgv): Promise<StatusOption[]> {
  const changed: StatusOption[] = [];
  for (const spec of STATUS_OPTIONS) if (await installLight(run, spec)) changed.push(spec.option);
  return changed;
}

/**
 * What the summary can take on the bar, in cells: a glyph, a count and a space for each of the
 * kinds it counts (`✋12 ⏳3 ✓4 ○5 ◐1 ⏸1 `).
 */
export const SUMMARY_WIDTH = 24;
const SAVED_LENGTH = '@nerdr_saved_status-right-length';

/**
 * The summary goes in front of the user's status-right: without more room it would push their
 * own status (a clock, a host name) off the bar. status-right-length grows by SUMMARY_WIDTH;
 * the old value is kept and put back on uninstall.
 */
async function widenStatusRight(run: RunArgv): Promise<void> {
  const old = Number.parseInt((await run(['show-options', '-gv', 'status-right-length'])).trim(), 10);
  if (!Number.isFinite(old)) return;
  // prefixed again after a config reload that left the length alone: it is wide already
  const saved = Number.parseInt((await run(['show-options', '-gqv', SAVED_LENGTH]).catch(() => '')).trim(), 10);
  if (old === saved + SUMMARY_WIDTH) return;
  await run(['set-option', '-g', SAVED_LENGTH, String(old)]);
  await run(['set-option', '-g', 'status-right-length', String(old + SUMMARY_WIDTH)]);
}

async function restoreStatusRightLength(run: RunArgv): Promise<void> {
  const saved = Number.parseInt((await run(['show-options', '-gqv', SAVED_LENGTH]).catch(() => '')).trim(), 10);
  if (!Number.isFinite(saved)) return;
  // only if it is still what nerdr made it: a value the user set since is theirs
  const now = Number.parseInt((await run(['show-options', '-gv', 'status-right-length'])).trim(), 10);
  if (now === saved + SUMMARY_WIDTH) await run(['set-option', '-g', 'status-right-length', String(saved)]);
  await run(['set-option', '-gu', SAVED_LENGTH]).catch(() => '');
}

/** Takes out the prefixes nerdr put in, keeping the user's own text; returns what changed. */
export async function uninstallLights(run: RunArgv): Promise<StatusOption[]> {
  const changed: StatusOption[] = [];
  for (const { option, prefix } of STATUS_OPTIONS) {
    const current = await optionValue(run, option);
    const next = withoutPrefix(current, prefix, await savedValue(run, option));
    if (next === null) continue;
    await run(['set-option', '-g', option, next]);
    await run(['set-option', '-gu', savedOption(option)]).catch(() => '');
    if (option === 'status-right') await restoreStatusRightLength(run);
    changed.push(option);
  }
  return changed;
}
