// `nerdr inbox`, `nerdr inbox snooze`, `nerdr answer`: everything that waits for a person, and
// answering it from here (docs/inbox.md).

import type { Command } from 'commander';
import { NerdrError } from '../errors.js';
import { parseChoice, sameText } from '../inbox/answer.js';
import { MAX_SNOOZE_MS } from '../inbox/snooze.js';
import { parseDuration } from '../inbox/duration.js';
import type { AnswerChoice, AnswerResult, InboxRow } from '../protocol/index.js';
import { age } from '../looks.js';
import { visible } from '../text.js';
import { call, callerSecret } from './context.js';
import { printJson, table } from './print.js';
import { remote } from './remote.js';

async function localRows(cmd: Command): Promise<InboxRow[]> {
  return (await call<{ rows: InboxRow[] }>(cmd, 'nerdr.inbox', {})).rows;
}

async function allRows(cmd: Command, fleet: boolean): Promise<{ rows: InboxRow[]; errors: { host: string; message: string }[] }> {
  const local = await localRows(cmd);
  if (!fleet) return { rows: local, errors: [] };
  const { fleetInbox } = await import('./fleet.js');
  const f = await fleetInbox(cmd);
  return { rows: [...local, ...f.rows].sort((a, b) => a.since - b.since), errors: f.errors };
}

/** What a row waits for, in one line. */
export function rowWhat(r: InboxRow): string {
  switch (r.kind) {
    case 'blocked': {
      const opts = r.dialog ? `  [${r.dialog.options.map((o) => `${o.n} ${o.label}`).join(' · ')}]` : '';
      return `blocked: ${r.summary}${opts}`;
    }
    case 'done':
      return `done: ${r.summary}`;
    case 'limited':
      return `limited: ${r.summary}`;
    case 'stalled':
      return `stalled: ${r.summary}`;
    case 'queued':
      return `queued #${r.message?.position ?? '?'}: ${r.summary}`;
  }
}

/** One row in full, for `nerdr inbox ID`. */
export function rowDetail(r: InboxRow, now: number): string {
  const where = `${r.host ? `${r.host}:` : ''}${r.name} (${r.window}, ${r.agent}, session ${r.session})`;
  const out = [`${r.id}  ${r.kind}  ${where}  waiting ${age(now - r.since)}`];
  const target = `${r.host ? `${r.host}:` : ''}${r.window}`;
  if (r.dialog) {
    out.push('', ...r.dialog.text.split('\n').map((l) => `  ${l}`), '');
    for (const [i, o] of r.dialog.options.entries()) out.push(`  ${i === r.dialog.selected ? '❯' : ' '} ${o.n}. ${o.label}${o.kind === 'choice' ? '' : `  (${o.kind})`}`);
    out.push('');
    if (r.answerable) {
      const kinds = [...new Set(r.dialog.options.map((o) => o.kind).filter((k) => k === 'approve' || k === 'always' || k === 'deny'))];
      out.push(`answer: nerdr answer ${target} ${kinds.length ? `${kinds.join('|')}|N` : 'N'} --prompt ${r.id}`);
    } else out.push(`answer it in its window: nerdr focus ${target} (nerdr does not answer ${r.agent}'s dialogs)`);
  } else if (r.lines.length) {
    out.push('', ...r.lines.map((l) => `  ${l}`));
    if (r.kind === 'blocked') out.push('', `nerdr cannot read this dialog's options: answer it in its window (nerdr focus ${target})`);
  }
  if (r.message) {
    out.push('', ...visible(r.message.text, { lines: true }).split('\n').map((l) => `  ${l}`), '');
    out.push(`cancel: nerdr send --cancel ${r.message.id}    edit: nerdr send --edit ${r.message.id} "new text"`);
  }
  return out.join('\n') + '\n';
}

function printRows(rows: InboxRow[], now: number): void {
  if (rows.length === 0) {
    process.stdout.write('nothing waits for you\n');
    return;
  }
  const fleet = rows.some((r) => r.host !== null);
  const header = ['ID', 'WAITING', ...(fleet ? ['HOST'] : []), 'NAME', 'AGENT', 'WHAT'];
  const cells = rows.map((r) => [r.id, age(now - r.since), ...(fleet ? [r.host ?? '-'] : []), visible(r.name), visible(r.agent), visible(rowWhat(r))]);
  process.stdout.write(table(header, cells));
}

async function answerOne(cmd: Command, target: string, prompt: string, choice: AnswerChoice, text: string | null): Promise<AnswerResult> {
  return call<AnswerResult>(cmd, 'nerdr.answer', { target, prompt, choice, text, caller: callerSecret() });
}

export function register(program: Command): void {
  const inbox = program
    .command('inbox [id]')
    .description('everything that waits for you, oldest first: blocked agents with their dialog, finished turns not yet seen, stalled and queued messages (an id: that row in full)')
    .option('--json', 'print JSON: {rows: [...]}')
    .option('--fleet', "also the fleet's connected hosts' rows (docs/fleet.md)")
    .action(async (id: string | undefined, opts: { json?: boolean; fleet?: boolean }, cmd: Command) => {
      const { rows, errors } = await allRows(cmd, !!opts.fleet);
      for (const e of errors) process.stderr.write(`nerdr: ${e.host}: ${e.message}\n`);
      const now = Date.now();
      if (id !== undefined) {
        const r = rows.find((x) => x.id === id);
        if (!r) throw new NerdrError(`nothing in the inbox has the id ${id}${opts.fleet ? '' : ' here'}`, opts.fleet ? '`nerdr inbox --fleet` lists the ids' : '`nerdr inbox` lists the ids (a fleet row: add --fleet)', { code: 'unknown_row' });
        if (opts.json) return printJson(r);
        process.stdout.write(rowDetail(r, now));
        return;
      }
      if (opts.json) return printJson({ rows, ...(errors.length ? { errors } : {}) });
      printRows(rows, now);
    });

  inbox
    .command('snooze <id> <duration>')
    .description('leave a row out of the inbox for a while (15m, 2h, 1d; 0 brings it back)')
    .option('--json', 'print JSON')
    .action(async (id: string, duration: string, opts: { json?: boolean }, cmd: Command) => {
      const ms = parseDuration(duration);
      if (ms === null || ms > MAX_SNOOZE_MS) throw new NerdrError(`"${duration}" is not a duration of at most a week`, 'e.g. 15m, 2h, 1d (0 brings it back)', { code: 'invalid_option' });
      const r = await call<{ id: string; until: number }>(cmd, 'nerdr.snooze', { id, forMs: ms, caller: callerSecret() });
      if (opts.json) return printJson(r);
      process.stdout.write(ms === 0 ? `${id} is back in the inbox\n` : `${id} snoozed until ${new Date(r.until).toLocaleTimeString()}\n`);
    });

  program
    .command('answer [target] [choice]')
    .description("answer an agent's dialog with its own keys, only if it still shows that prompt: CHOICE is approve, always, deny or an option's number")
    .option('--prompt <id>', 'the prompt id `nerdr inbox` shows: refused ("the prompt changed") when the dialog on the screen is another')
    .option('--text <text>', 'the text for an option that takes it (a question\'s "Type something.")')
    .option('--same <id>', 'answer every waiting prompt that shows exactly the same dialog as this one, each checked against its own screen (then only CHOICE is given)')
    .option('--json', 'print JSON')
    .action(async (target: string | undefined, choiceText: string | undefined, opts: { prompt?: string; text?: string; same?: string; json?: boolean }, cmd: Command) => {
      if (opts.same) {
        // `nerdr answer --same ID approve`: the one word is the choice
        const word = choiceText ?? target;
        if (word === undefined || (choiceText !== undefined && target !== undefined)) throw new NerdrError('--same takes only the choice', `nerdr answer --same ${opts.same} approve`, { code: 'invalid_option' });
        return answerSame(cmd, opts.same, word, opts.text ?? null, !!opts.json);
      }
      await remote('answer', target);
      if (target === undefined || choiceText === undefined) throw new NerdrError('give the agent and the choice', 'nerdr answer TARGET approve|always|deny|N --prompt ID (`nerdr inbox` shows both)', { code: 'invalid_option' });
      if (!opts.prompt) throw new NerdrError('--prompt is needed: the answer is typed only while the agent still shows that prompt', '`nerdr inbox` shows the prompt id: nerdr answer TARGET CHOICE --prompt ID', { code: 'invalid_option' });
      const choice = parseChoice(choiceText);
      if (choice === null) throw new NerdrError(`"${choiceText}" is not a choice`, 'approve, always, deny, or the number of an option', { code: 'invalid_choice' });
      const r = await answerOne(cmd, target, opts.prompt, choice, opts.text ?? null);
      if (opts.json) return printJson(r);
      process.stdout.write(`answered ${r.target}'s prompt ${r.prompt}: ${r.option ? `${r.option.n}. ${visible(r.option.label)}` : choiceText} (typed ${r.keys.map((k) => visible(k)).join(' ')})\n`);
    });
}

async function answerSame(cmd: Command, id: string, word: string, text: string | null, json: boolean): Promise<void> {
  const choice = parseChoice(word);
  if (choice === null) throw new NerdrError(`"${word}" is not a choice`, 'approve, always, deny, or the number of an option', { code: 'invalid_choice' });
  const rows = await localRows(cmd);
  const base = rows.find((r) => r.id === id);
  if (!base) throw new NerdrError(`nothing in the inbox has the id ${id}`, '`nerdr inbox` lists the ids', { code: 'unknown_row' });
  if (!base.dialog) throw new NerdrError(`${id} is not a dialog nerdr can read`, `\`nerdr inbox ${id}\` shows it`, { code: 'not_answerable' });
  const same = sameText(base.dialog);
  const targets = rows.filter((r) => r.kind === 'blocked' && r.dialog && sameText(r.dialog) === same);
  const results: { window: string; name: string; prompt: string; ok: boolean; message: string }[] = [];
  for (const r of targets) {
    try {
      const a = await answerOne(cmd, r.window, r.id, choice, text);
      results.push({ window: r.window, name: r.name, prompt: r.id, ok: true, message: a.option ? `${a.option.n}. ${a.option.label}` : word });
    } catch (err) {
      results.push({ window: r.window, name: r.name, prompt: r.id, ok: false, message: (err as Error).message });
    }
  }
  const failed = results.filter((r) => !r.ok).length;
  if (json) printJson({ answered: results.length - failed, failed, results });
  else {
    for (const r of results) process.stdout.write(`${r.ok ? 'answered' : 'not answered'} ${visible(r.name)} (${r.window}) ${r.prompt}: ${visible(r.message)}\n`);
    process.stdout.write(`${results.length - failed} of ${results.length} prompts showing the same dialog answered\n`);
  }
  if (failed > 0) process.exitCode = 1;
}
