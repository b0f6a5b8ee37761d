// `nerdr fleet add` / `rm`: one [fleet.hosts.NAME] table added to or taken out of config.toml as
// text, so the user's comments and layout stay. The result is parsed before it is written: a
// change that would not read back as intended is refused, and the file is left as it was.

import { parseConfig, type FleetHost } from '../config.js';
import { NerdrError } from '../errors.js';

const header = (name: string): RegExp => new RegExp(`^\\s*\\[\\s*fleet\\s*\\.\\s*hosts\\s*\\.\\s*(?:${name.replace(/\./g, '\\.')}|"${name.replace(/\./g, '\\.')}")\\s*\\]\\s*(#.*)?$`);
const anyHeader = /^\s*\[/;

/** TOML's key for a host name: bare when it can be (no dot), quoted otherwise. */
function key(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
}

/** The text with the host's table appended (JSON strings are valid TOML basic strings). */
export function withHost(text: string, name: string, host: FleetHost): string {
  const before = parseConfig(text).config.fleet.hosts;
  if (before[name]) throw new NerdrError(`the fleet already has a host "${name}" (${before[name].target})`, `remove it first: nerdr fleet rm ${name}`);
  const lines = [`[fleet.hosts.${key(name)}]`, `target = ${JSON.stringify(host.target)}`];
  if (host.nerdr !== 'nerdr') lines.push(`nerdr = ${JSON.stringify(host.nerdr)}`);
  if (host.socket !== 'default') lines.push(`socket = ${JSON.stringify(host.socket)}`);
  const base = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  const out = `${base}${base.trim() === '' ? '' : '\n'}${lines.join('\n')}\n`;
  const after = parseConfig(out);
  const got = after.config.fleet.hosts[name];
  if (!got || got.target !== host.target || got.nerdr !== host.nerdr || got.socket !== host.socket) {
    const why = after.problems.map((p) => (p.key ? `${p.key}: ${p.message}` : p.message)).join('; ');
    throw new NerdrError(`config.toml would not read back with host "${name}"${why ? ` (${why})` : ''}`, 'fix config.toml by hand (nerdr doctor lists its problems), then try again');
  }
  return out;
}

/** The text without the host's table; undefined when the file has no such table. */
export function withoutHost(text: string, name: string): string | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => header(name).test(l));
  if (at < 0) {
    if (parseConfig(text).config.fleet.hosts[name]) {
      throw new NerdrError(`host "${name}" is written in config.toml in a form nerdr does not edit (inline or dotted keys)`, 'remove it by hand');
    }
    return undefined;
  }
  let end = at + 1;
  while (end < lines.length && !anyHeader.test(lines[end]!)) end++;
  // the blank lines after the table (before the next one, or the file's last newline) stay
  while (end > at + 1 && lines[end - 1]!.trim() === '') end--;
  const kept = [...lines.slice(0, at), ...lines.slice(end)];
  // drop the blank line that separated the removed table from what came before
  if (at > 0 && kept[at - 1]?.trim() === '' && (at >= kept.length || kept[at]?.trim() === '' || anyHeader.test(kept[at] ?? ''))) kept.splice(at - 1, 1);
  const out = kept.join('\n');
  if (parseConfig(out).config.fleet.hosts[name]) throw new NerdrError(`host "${name}" is still in config.toml after removing its table`, 'remove it by hand');
  return out;
}
