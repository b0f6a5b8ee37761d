// `nerdr.answer` (`nerdr answer TARGET CHOICE --prompt ID`): types the agent's own keys for one
// option of the dialog on its screen, only while that dialog is still the one with that id
// (src/inbox/answer.ts). From an agent window it is refused unless `[agents] answer = "helpers"`,
// and then only for the dialogs of windows it started (and theirs).

import type { AnswerResult } from '../../protocol/index.js';
import { answerKeys } from '../../inbox/answer.js';
import { promptOf } from '../../inbox/rows.js';
import { integrationFor } from '../../integrations/index.js';
import { DEFAULT_ENTER_DELAY_MS } from '../../integrations/types.js';
import type { WatchedAgent } from '../agent.js';
import { RpcError } from '../socket/errors.js';
import type { MethodHost } from './host.js';
import { method } from './method.js';
import { callerOf, findTarget } from './target.js';

export const answer = method('nerdr.answer', async (host: Pick<MethodHost, 'windows' | 'bySecret' | 'control' | 'inbox'>, p): Promise<AnswerResult> => {
  const a = findTarget(host, p.target);
  checkAnswer(host, callerOf(host, p.caller), a);
  if (a.state !== 'blocked' || a.dead) {
    throw new RpcError('prompt_changed', `the prompt changed: ${a.name} (${a.windowId}) waits for no answer now (it is ${a.dead ? 'exited' : a.state})`, false, '`nerdr inbox` shows what waits now');
  }
  const w = host.inbox.window(a);
  const now = promptOf(w);
  if (now.id !== p.prompt) {
    const shown = now.dialog ? now.dialog.text.split('\n').at(-1) : now.lines.at(-1);
    throw new RpcError('prompt_changed', `the prompt changed: ${a.name} (${a.windowId}) now shows prompt ${now.id}${shown ? `: ${shown}` : ''}`, false, `read it (\`nerdr inbox ${now.id}\`), then answer it: nerdr answer ${a.windowId} CHOICE --prompt ${now.id}`);
  }
  if (!w.dialogs) throw new RpcError('not_answerable', `nerdr does not know how to answer ${a.agent}'s dialogs: answer it in its window`, false, `nerdr focus ${a.windowId}`);
  if (!now.dialog) throw new RpcError('not_answerable', `nerdr cannot read the options of the dialog on ${a.name}'s screen: answer it in its window`, false, `nerdr focus ${a.windowId}`);
  const k = answerKeys(now.dialog, p.choice, w.dialogs, p.text ?? null);
  if (!k.ok) throw new RpcError('invalid_choice', k.message);
  const gap = Math.max(integrationFor(a.agent)?.enterDelayMs ?? DEFAULT_ENTER_DELAY_MS, 150);
  await host.inbox.type(a, k.keys, gap);
  return { target: a.windowId, prompt: now.id, option: k.option, keys: k.keys.map((x) => (x.startsWith('literal:') ? x.slice('literal:'.length) : x)) };
});

/** An agent window may answer only with `[agents] answer = "helpers"`, and only its helpers' dialogs. */
function checkAnswer(host: Pick<MethodHost, 'control'>, caller: WatchedAgent | null, target: WatchedAgent): void {
  if (!caller) return;
  const control = host.control();
  if (control.answer !== 'helpers') {
    throw new RpcError('not_permitted', `${caller.name} (${caller.windowId}) is an agent window: only people answer dialogs`, false, `to let an agent answer the dialogs of the windows it started, set [agents] answer = "helpers" in ${control.path}`);
  }
  if (!target.lineage.includes(caller.id)) {
    throw new RpcError('not_permitted', `${caller.name} (${caller.windowId}) may answer only the dialogs of windows it started; ${target.name} (${target.windowId}) is not one`, false, 'answer it from a shell, or from the window that started it');
  }
}
