// Every rule of every bundled manifest has at least one input it must match and one it must not.
// The test enumerates the rules from the files, so adding a rule without cases here fails.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluate, ManifestRegistry, rawScreenText, type LoadedManifest } from '../../../src/detect/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const realDir = path.resolve(repoRoot, 'test/fixtures/real/screens');
const reconDir = path.resolve(repoRoot, 'test/fixtures/screens');

/** "real:<agent>/<name>" (captured), "recon:<agent>/<name>" (reconstructed), or OSC-only inputs. */
type Input = string | { screen?: string; title?: string; progress?: string };

function load(input: Input): { text: string; oscTitle: string; oscProgress: string; label: string } {
  const o = typeof input === 'string' ? { screen: input } : input;
  let text = '';
  if (o.screen) {
    const [kind, rel] = o.screen.split(':') as [string, string];
    const dir = kind === 'real' ? realDir : reconDir;
    text = rawScreenText(fs.readFileSync(path.join(dir, `${rel}.txt`), 'utf8'));
  }
  return { text, oscTitle: o.title ?? '', oscProgress: o.progress ?? '', label: JSON.stringify(input) };
}

interface Cases {
  match: Input[];
  noMatch: Input[];
}

const CASES: Record<string, Record<string, Cases>> = {
  demo: {
    proceed_dialog: { match: ['recon:demo/03-permission'], noMatch: ['recon:demo/02-working', 'recon:demo/01-idle'] },
    spinner_working: { match: ['recon:demo/02-working'], noMatch: ['recon:demo/01-idle', 'recon:demo/03-permission'] },
    prompt_idle: { match: ['recon:demo/01-idle', 'recon:demo/02-working'], noMatch: ['recon:demo/03-permission'] },
  },
  claude: {
    title_spinner_working: { match: [{ title: '⠂ Fixing tests' }, { title: '◐ Claude Code' }], noMatch: [{ title: '✳ Claude Code' }, { title: 'host' }] },
    permission_dialog: { match: ['real:claude/04-permission-bash'], noMatch: ['real:claude/07-question', 'real:claude/01-startup-idle'] },
    selection_form: { match: ['real:claude/07-question'], noMatch: ['real:claude/04-permission-bash', 'real:claude/02-working-spinner'] },
    interrupt_footer_working: { match: ['real:claude/02-working-spinner', 'real:claude/09-subagent-running'], noMatch: ['real:claude/06-idle-after-bash'] },
    input_box_idle: { match: ['real:claude/01-startup-idle', 'real:claude/11-after-deny', 'recon:claude/captured-idle-frozen-spinner-after-interrupt'], noMatch: ['real:claude/04-permission-bash'] },
    title_idle: { match: [{ title: '✳ Claude Code' }], noMatch: [{ title: '⠂ Claude Code' }, { title: '' }] },
    progress_cleared_idle: { match: [{ progress: '4;0;' }, { progress: '4;0' }], noMatch: [{ progress: '4;3;' }, { progress: '4;01' }] },
  },
  codex: {
    title_action_required: { match: [{ title: 'Action Required - codex' }], noMatch: [{ title: 'codex' }] },
    title_spinner_working: { match: [{ title: '⠹ codex' }, { title: 'project ⠋' }], noMatch: [{ title: 'codex' }, { title: '⠹codex' }] },
    trust_folder_dialog: { match: ['recon:codex/reconstructed-trust-folder'], noMatch: ['real:codex/02-startup-idle'] },
    approval_options: { match: ['real:codex/05-permission-bash'], noMatch: ['real:codex/07-idle-after-bash', 'recon:codex/reconstructed-hooks-review'] },
    startup_menu: { match: ['recon:codex/reconstructed-hooks-review'], noMatch: ['real:codex/05-permission-bash', 'real:codex/02-startup-idle'] },
    working_status_line: { match: ['real:codex/03-working-spinner'], noMatch: ['real:codex/10-interrupted'] },
    input_line_idle: { match: ['real:codex/02-startup-idle', 'real:codex/10-interrupted'], noMatch: ['real:codex/05-permission-bash'] },
  },
  opencode: {
    permission_required: { match: ['real:opencode/04-permission-bash'], noMatch: ['real:opencode/06-idle-after-bash'] },
    interrupt_footer_working: { match: ['real:opencode/02-working-spinner'], noMatch: ['real:opencode/09-interrupted'] },
    block_bar_working: { match: ['real:opencode/02-working-spinner'], noMatch: ['real:opencode/01-startup-idle'] },
    input_box_idle: { match: ['real:opencode/01-startup-idle', 'real:opencode/09-interrupted'], noMatch: ['real:opencode/02-working-spinner', 'real:opencode/04-permission-bash'] },
  },
  qwen: {
    confirmation_dialog: { match: ['recon:qwen/captured-permission-prompt', 'recon:qwen/captured-question', 'recon:qwen/captured-subagent-permission', 'recon:qwen/captured-permission-prompt-auto-mode'], noMatch: ['recon:qwen/captured-ready', 'recon:qwen/captured-after-deny'] },
    permission_options: { match: ['recon:qwen/captured-permission-prompt', 'recon:qwen/captured-question'], noMatch: ['recon:qwen/captured-after-deny', 'recon:qwen/captured-working-after-approval'] },
    spinner_esc_to_cancel: { match: ['recon:qwen/captured-working-before-first-token', 'recon:qwen/captured-working-streaming', 'recon:qwen/captured-subagent-running'], noMatch: ['recon:qwen/captured-after-interrupt', 'recon:qwen/captured-done'] },
    steer_footer_working: { match: ['recon:qwen/captured-working-streaming', 'recon:qwen/captured-working-after-approval'], noMatch: ['recon:qwen/captured-done', 'recon:qwen/captured-after-interrupt-later'] },
    initializing: { match: ['recon:qwen/captured-initializing'], noMatch: ['recon:qwen/captured-ready'] },
    input_box_idle: { match: ['recon:qwen/captured-ready', 'recon:qwen/captured-done', 'recon:qwen/captured-after-deny', 'recon:qwen/captured-after-interrupt', 'recon:qwen/captured-after-interrupt-later', 'recon:qwen/captured-done-after-answer'], noMatch: ['recon:qwen/captured-working-streaming', 'recon:qwen/captured-permission-prompt', 'recon:qwen/captured-initializing'] },
  },
  pi: {
    selector_dialog: { match: ['recon:pi/captured-trust', 'recon:pi/captured-confirm', 'recon:pi/captured-select'], noMatch: ['recon:pi/captured-startup-idle', 'recon:pi/captured-working-streaming'] },
    status_in_input_rule: { match: ['recon:pi/captured-working-streaming', 'recon:pi/captured-working-before-first-token', 'recon:pi/captured-working-mid-stream', 'recon:pi/captured-narrow-working'], noMatch: ['recon:pi/captured-done', 'recon:pi/captured-after-interrupt', 'recon:pi/captured-idle-typed', 'recon:pi/captured-confirm'] },
    input_box_idle: { match: ['recon:pi/captured-startup-idle', 'recon:pi/captured-done', 'recon:pi/captured-after-interrupt', 'recon:pi/captured-idle-typed', 'recon:pi/captured-restored-idle'], noMatch: ['recon:pi/captured-exited'] },
  },
  kilo: {
    permission_required: { match: ['recon:kilo/captured-permission-prompt'], noMatch: ['recon:kilo/captured-reject-reason-form', 'recon:kilo/captured-after-deny'] },
    reject_reason_form: { match: ['recon:kilo/captured-reject-reason-form'], noMatch: ['recon:kilo/captured-permission-prompt', 'recon:kilo/captured-ready'] },
    interrupt_footer_working: { match: ['recon:kilo/captured-working-streaming', 'recon:kilo/captured-working-before-first-token'], noMatch: ['recon:kilo/captured-after-interrupt'] },
    block_bar_working: { match: ['recon:kilo/captured-subagent-running'], noMatch: ['recon:kilo/captured-ready', 'recon:kilo/captured-after-deny'] },
    input_box_idle: { match: ['recon:kilo/captured-ready', 'recon:kilo/captured-after-deny', 'recon:kilo/captured-done-after-approval'], noMatch: ['recon:kilo/captured-working-streaming', 'recon:kilo/captured-permission-prompt'] },
  },
  gemini: {
    title_action_required: { match: [{ title: '✋  Action Required (proj)' }], noMatch: [{ title: '✦  Working… (proj)' }, { title: '◇  Ready (proj)' }] },
    choice_dialog: {
      match: ['recon:gemini/captured-permission-prompt', 'recon:gemini/captured-question', 'recon:gemini/captured-trust-dialog', 'recon:gemini/captured-x-model-not-found-dialog'],
      noMatch: ['recon:gemini/captured-ready', 'recon:gemini/captured-working-streaming', 'recon:gemini/captured-done-after-subagent'],
    },
    question_form: { match: ['recon:gemini/captured-question'], noMatch: ['recon:gemini/captured-permission-prompt', 'recon:gemini/captured-ready'] },
    title_working: { match: [{ title: '✦  Working… (proj)' }, { title: '⏲  Working… (proj)' }], noMatch: [{ title: '◇  Ready (proj)' }, { title: '✋  Action Required (proj)' }] },
    esc_cancel_working: {
      match: ['recon:gemini/captured-working-streaming', 'recon:gemini/captured-working-before-first-token-hooks-indicator', 'recon:gemini/captured-subagent-running'],
      noMatch: ['recon:gemini/captured-ready', 'recon:gemini/captured-after-interrupt'],
    },
    title_ready_idle: { match: [{ title: '◇  Ready (proj)' }], noMatch: [{ title: '✦  Working… (proj)' }, { title: '' }] },
    input_box_idle: {
      match: ['recon:gemini/captured-ready', 'recon:gemini/captured-after-deny', 'recon:gemini/captured-done-after-subagent'],
      noMatch: ['recon:gemini/captured-working-streaming', 'recon:gemini/captured-permission-prompt'],
    },
  },
  copilot: {
    selection_dialog: { match: ['recon:copilot/captured-permission', 'recon:copilot/captured-trust-folder'], noMatch: ['recon:copilot/captured-question', 'recon:copilot/captured-working-streaming'] },
    ask_user_form: { match: ['recon:copilot/captured-question'], noMatch: ['recon:copilot/captured-permission', 'recon:copilot/captured-after-answer'] },
    working_status_line: {
      match: ['recon:copilot/captured-working-streaming', 'recon:copilot/captured-working-before-first-token', 'recon:copilot/captured-subagent-running'],
      noMatch: ['recon:copilot/captured-done-after-approval', 'recon:copilot/captured-after-interrupt'],
    },
    input_box_idle: {
      match: ['recon:copilot/captured-startup-idle', 'recon:copilot/captured-after-deny', 'recon:copilot/captured-after-interrupt-before-first-token'],
      noMatch: ['recon:copilot/captured-working-streaming', 'recon:copilot/captured-question'],
    },
  },
  cursor: {
    approval_menu: { match: ['recon:cursor/reconstructed-approval'], noMatch: ['recon:cursor/reconstructed-working', 'recon:cursor/reconstructed-idle'] },
    stop_hint_working: { match: ['recon:cursor/reconstructed-working'], noMatch: ['recon:cursor/reconstructed-idle'] },
    spinner_working: { match: ['recon:cursor/reconstructed-working'], noMatch: ['recon:cursor/reconstructed-idle'] },
  },
  agy: {
    permission_request: { match: ['recon:agy/reconstructed-permission'], noMatch: ['recon:agy/reconstructed-working'] },
    spinner_working: { match: ['recon:agy/reconstructed-working'], noMatch: ['recon:agy/reconstructed-idle'] },
    background_tasks_working: { match: ['recon:agy/reconstructed-working'], noMatch: ['recon:agy/reconstructed-idle'] },
  },
  grok: {
    title_action_required: { match: [{ title: 'Action Required · grok' }], noMatch: [{ title: 'grok' }] },
    option_list: { match: ['recon:grok/reconstructed-options'], noMatch: ['recon:grok/reconstructed-working'] },
    progress_busy_working: { match: [{ progress: '4;1;-1' }], noMatch: [{ progress: '4;0;0' }] },
    progress_cleared_idle: { match: [{ progress: '4;0;0' }], noMatch: [{ progress: '4;1;-1' }] },
    cancel_hint_working: { match: ['recon:grok/reconstructed-working'], noMatch: ['recon:grok/reconstructed-idle'] },
    shortcuts_footer_idle: { match: ['recon:grok/reconstructed-idle'], noMatch: ['recon:grok/reconstructed-working'] },
  },
  amp: {
    title_confirmation_needed: { match: [{ title: 'Plugin confirmation needed - amp' }], noMatch: [{ title: 'project - amp - main' }] },
    title_spinner_working: { match: [{ title: '⠙ project - amp - main' }], noMatch: [{ title: 'project - amp - main' }] },
    approval_question: { match: ['recon:amp/reconstructed-approval'], noMatch: ['recon:amp/reconstructed-working', 'recon:amp/reconstructed-idle'] },
    status_footer_working: { match: ['recon:amp/reconstructed-working'], noMatch: ['recon:amp/reconstructed-idle'] },
    esc_cancel_working: { match: ['recon:amp/reconstructed-esc'], noMatch: ['recon:amp/reconstructed-idle'] },
    title_idle: { match: [{ title: 'project - amp - main' }], noMatch: [{ title: '⠙ project - amp - main' }, { title: 'bash' }] },
  },
  droid: {
    selection_menu: { match: ['recon:droid/reconstructed-select'], noMatch: ['recon:droid/reconstructed-working', 'recon:droid/reconstructed-idle'] },
    stop_hint_working: { match: ['recon:droid/reconstructed-working'], noMatch: ['recon:droid/reconstructed-idle'] },
  },
};

const registry = new ManifestRegistry({ env: { HOME: '/nonexistent-home-for-tests' } });
const agents = registry.agents();

function ruleMatches(loaded: LoadedManifest, ruleId: string, input: Input): boolean {
  const { text, oscTitle, oscProgress } = load(input);
  return evaluate(loaded.manifest, { text, oscTitle, oscProgress }).matches.some((m) => m.id === ruleId);
}

describe('bundled manifests', () => {
  it('all load without problems and cover the required agents', () => {
    expect(registry.problems()).toEqual([]);
    for (const a of ['claude', 'codex', 'opencode', 'copilot', 'gemini', 'cursor', 'agy', 'grok', 'amp', 'droid']) {
      expect(agents).toContain(a);
      expect(registry.get(a)?.source).toBe('bundled');
    }
  });

  for (const agent of agents) {
    describe(agent, () => {
      const loaded = registry.get(agent)!;
      it('has a dotted version and min_engine_version', () => {
        expect(loaded.manifest.version).toMatch(/^\d+(\.\d+)+$/);
        expect(loaded.manifest.minEngineVersion).not.toBeNull();
        expect(loaded.manifest.id).toBe(agent);
      });
      for (const rule of loaded.manifest.rules) {
        it(`rule ${rule.id} has cases and honours them`, () => {
          const cases = CASES[agent]?.[rule.id];
          expect(cases, `add match/noMatch cases for ${agent}.${rule.id} in rule-cases.test.ts`).toBeDefined();
          expect(cases!.match.length).toBeGreaterThan(0);
          expect(cases!.noMatch.length).toBeGreaterThan(0);
          for (const i of cases!.match) expect(ruleMatches(loaded, rule.id, i), `${rule.id} must match ${JSON.stringify(i)}`).toBe(true);
          for (const i of cases!.noMatch) expect(ruleMatches(loaded, rule.id, i), `${rule.id} must not match ${JSON.stringify(i)}`).toBe(false);
        });
      }
      it('has no cases for rules that do not exist', () => {
        const ids = new Set(loaded.manifest.rules.map((r) => r.id));
        for (const id of Object.keys(CASES[agent] ?? {})) expect(ids.has(id), `${agent}.${id}`).toBe(true);
      });
    });
  }
});

// (captured-* screens have their true state in index.json: real-screens.test.ts)
describe('reconstructed screens classify to the state they were built for', () => {
  const expectFor = (name: string): string =>
    /idle/.test(name) ? 'idle' : /working|esc/.test(name) ? 'working' : 'blocked';
  for (const agent of fs.readdirSync(reconDir).filter((d) => fs.statSync(path.join(reconDir, d)).isDirectory())) {
    for (const f of fs.readdirSync(path.join(reconDir, agent)).filter((n) => !n.endsWith('.ansi.txt') && !n.startsWith('captured-'))) {
      it(`${agent}/${f}`, () => {
        const loaded = registry.get(agent)!;
        const r = evaluate(loaded.manifest, { text: rawScreenText(fs.readFileSync(path.join(reconDir, agent, f), 'utf8')) });
        expect(r.state).toBe(expectFor(f));
      });
    }
  }
});
