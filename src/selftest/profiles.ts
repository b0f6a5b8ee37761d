// Per agent: its fake model server, the config that skips onboarding and points it at that
// server (real-agents.md §2, §5, §6), and the keys that answer its dialogs. Used by
// `nerdr selftest` and by the real-agent conformance suite (test/agents).

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeServer, Timing } from './fake/common.js';
import { startAnthropic } from './fake/anthropic.js';
import { startOpenAIResponses } from './fake/openai-responses.js';
import { startOpenAIChat } from './fake/openai-chat.js';
import { startGemini } from './fake/gemini.js';
import type { LaunchOptions } from './session.js';

export interface AgentProfile {
  agent: string;
  startServer(opts: { logFile?: string; timing?: Partial<Timing> }): Promise<FakeServer>;
  /** nerdr new options for this agent, given the fake server and where its command is. */
  runOptions(server: FakeServer, binDir?: string): LaunchOptions;
  /** Text on the screen once the agent is ready for a prompt. */
  readyText: RegExp;
  /** Dialogs some versions show at startup, answered before the suite starts: [screen text, keys]. */
  startupDialogs: [RegExp, string[]][];
  approveKeys: string[];
  /** Keys that refuse a permission, sent one at a time (each after the screen reacted). */
  denyKeys: string[];
  interruptKeys: string[];
  answerKeys: string[];
  /** Phases this agent has nothing for (with the reason). */
  notApplicable: Record<string, string>;
  /** The agent asks before it starts a subagent (a permission dialog, answered with approveKeys). */
  subagentAsks?: boolean;
  /**
   * Why the agent never shows a permission prompt (pi runs every tool call without asking);
   * `nerdr selftest` then drives a command it runs unasked and an interrupted turn instead.
   */
  noPermissionPrompt?: string;
}

const write = (file: string, text: string): void => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};

const API_KEY = 'dummy-harness-key';

/**
 * The permission mode the suite tests: the one that asks before a command. Claude Code 2.1.197
 * calls it `default`; later releases call it `manual` and start in `auto`, which never shows the
 * dialog, unless told (`--permission-mode`, whose choices its --help lists).
 */
export function claudeAskingMode(binDir: string | undefined): string[] {
  const modes = claudePermissionModes(binDir);
  if (modes.includes('manual')) return ['--permission-mode', 'manual'];
  if (modes.includes('default')) return ['--permission-mode', 'default'];
  return [];
}

/** The choices of `claude --help`'s --permission-mode (empty when it lists none). */
export function claudePermissionModes(binDir: string | undefined): string[] {
  const help = spawnSync(binDir ? path.join(binDir, 'claude') : 'claude', ['--help'], { encoding: 'utf8', timeout: 30_000 }).stdout ?? '';
  const choices = /--permission-mode[\s\S]*?\(choices: ([^)]*)\)/.exec(help)?.[1] ?? '';
  return [...choices.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

/** `claude --version`'s number (2.1.197 when it cannot be read). */
function claudeVersion(binDir: string | undefined): string {
  const out = spawnSync(binDir ? path.join(binDir, 'claude') : 'claude', ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout ?? '';
  return /\d+\.\d+\.\d+/.exec(out)?.[0] ?? '2.1.197';
}

export const claude: AgentProfile = {
  agent: 'claude',
  startServer: (o) => startAnthropic(o),
  runOptions: (server, binDir) => ({
    agent: 'claude',
    args: claudeAskingMode(binDir),
    env: {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: API_KEY,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
    configure: (home, project) =>
      write(
        path.join(home, '.claude.json'),
        JSON.stringify(
          {
            hasCompletedOnboarding: true,
            // the version that runs: no "what's new" for a release it has not seen
            lastOnboardingVersion: claudeVersion(binDir),
            theme: 'dark',
            autoUpdates: false,
            // the last 20 characters of ANTHROPIC_API_KEY: skips "use this API key?"
            customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
            projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
          },
          null,
          2,
        ),
      ),
  }),
  readyText: /\? for shortcuts/,
  startupDialogs: [],
  approveKeys: ['Enter'],
  denyKeys: ['Escape'],
  interruptKeys: ['Escape'],
  answerKeys: ['Down', 'Enter'],
  notApplicable: {},
};

export const codex: AgentProfile = {
  agent: 'codex',
  startServer: (o) => startOpenAIResponses(o),
  runOptions: (server) => ({
    agent: 'codex',
    // nerdr passes --no-daemon itself (without it codex leaves an app-server daemon running)
    args: [],
    env: { FAKE_API_KEY: 'dummy' },
    // install = "home": nerdr has codex trust its hooks (through codex's app server) and puts the
    // nerdr skill in codex's skills folder, which no launch flag can name
    nerdrConfig: '[agents.codex]\ninstall = "home"\n',
    configure: (home, project) =>
      write(
        path.join(home, '.codex', 'config.toml'),
        [
          'model = "gpt-fake"',
          'model_provider = "fake"',
          'approval_policy = "on-request"',
          'sandbox_mode = "read-only"',
          'check_for_update_on_startup = false',
          '',
          '[model_providers.fake]',
          'name = "fake"',
          `base_url = "${server.url}/v1"`,
          'wire_api = "responses"',
          'env_key = "FAKE_API_KEY"',
          '',
          `[projects."${project}"]`,
          'trust_level = "trusted"',
          '',
          '[analytics]',
          'enabled = false',
          '',
        ].join('\n'),
      ),
  }),
  readyText: /\? for shortcuts|Ask Codex to do anything/,
  // nerdr's hook wiring makes Codex ask once whether to trust the hooks: trust them all.
  startupDialogs: [[/Hooks need review/, ['Down', 'Enter']]],
  approveKeys: ['Enter'],
  denyKeys: ['Escape'],
  interruptKeys: ['Escape'],
  answerKeys: ['Enter'],
  notApplicable: {
    'blocked at a question': 'Codex 0.171.0 offers its question tool (request_user_input) only in Plan mode',
    'working after the answer, then done': 'no question in Codex default mode (see above)',
  },
};

/** opencode's config (Kilo reads the same): the fake server as an OpenAI-compatible provider, shell and edits asked. */
function opencodeConfig(server: FakeServer): string {
  const config = {
    autoupdate: false,
    share: 'disabled',
    model: 'fake/gpt-fake',
    small_model: 'fake/gpt-fake',
    permission: { bash: 'ask', edit: 'ask' },
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${server.url}/v1`, apiKey: 'dummy' },
        models: { 'gpt-fake': { name: 'gpt-fake', tool_call: true } },
      },
    },
  };
  return JSON.stringify(config, null, 2);
}

export const opencode: AgentProfile = {
  agent: 'opencode',
  startServer: (o) => startOpenAIChat(o),
  runOptions: (server) => ({
    agent: 'opencode',
    env: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' },
    configure: (home) => write(path.join(home, '.config', 'opencode', 'opencode.json'), opencodeConfig(server)),
  }),
  readyText: /ctrl\+p commands/,
  startupDialogs: [],
  approveKeys: ['Enter'],
  denyKeys: ['Escape'],
  interruptKeys: ['Escape', 'Escape'],
  answerKeys: ['Enter'],
  notApplicable: {},
};

export const copilot: AgentProfile = {
  agent: 'copilot',
  // Copilot's BYOK provider with the default "completions" wire API: Chat Completions
  startServer: (o) => startOpenAIChat(o),
  runOptions: (server) => ({
    agent: 'copilot',
    args: ['--disable-client-telemetry'],
    env: {
      // offline mode: no GitHub sign-in, telemetry, web tools or auto-update (`copilot help environment`)
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
      COPILOT_PROVIDER_API_KEY: 'dummy',
      COPILOT_MODEL: 'gpt-fake',
      // a model outside Copilot's catalog needs its limits, or a warning stays on screen
      COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '128000',
      COPILOT_PROVIDER_MAX_OUTPUT_TOKENS: '16000',
      COPILOT_AUTO_UPDATE: 'false',
    },
    // the project is trusted ("Confirm folder trust" is answered by this list) and the app tip shown
    configure: (home, project) =>
      write(path.join(home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [project], appTipShown: true }, null, 2) + '\n'),
  }),
  readyText: /\/ commands · \? help/,
  startupDialogs: [],
  approveKeys: ['Enter'],
  denyKeys: ['Escape'],
  // Ctrl+C cancels the turn at any point. Esc Esc ("esc esc interrupt") does only once the answer
  // streams: before the first token the same keys are "esc esc edit prompt" and the turn goes on.
  interruptKeys: ['C-c'],
  answerKeys: ['Down', 'Enter'],
  notApplicable: {},
};

export const gemini: AgentProfile = {
  agent: 'gemini',
  startServer: (o) => startGemini(o),
  runOptions: (server) => ({
    agent: 'gemini',
    env: { GEMINI_API_KEY: API_KEY, GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_TELEMETRY_ENABLED: 'false' },
    // Gemini has no per-launch hooks: nerdr's extension in ~/.gemini is opt-in, and this run opts in
    nerdrConfig: '[agents.gemini]\ninstall = "home"\n',
    configure: (home, project) => {
      // the api-key auth type skips the sign-in dialog; the project is trusted (no trust dialog)
      write(
        path.join(home, '.gemini', 'settings.json'),
        JSON.stringify(
          {
            security: { auth: { selectedType: 'gemini-api-key' } },
            general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            ide: { enabled: false, hasSeenNudge: true },
            ui: { theme: 'Default', showCompatibilityWarnings: false },
          },
          null,
          2,
        ),
      );
      write(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }, null, 2));
    },
  }),
  readyText: /Type your message or @path\/to\/file/,
  startupDialogs: [],
  approveKeys: ['Enter'],
  denyKeys: ['Escape'],
  interruptKeys: ['Escape'],
  answerKeys: ['Down', 'Enter'],
  notApplicable: {},
};

export const kilo: AgentProfile = {
  agent: 'kilo',
  // an opencode fork: the same OpenAI-compatible provider config, read from ~/.config/kilo/kilo.json
  startServer: (o) => startOpenAIChat(o),
  runOptions: (server) => ({
    agent: 'kilo',
    env: { KILO_DISABLE_MODELS_FETCH: '1', KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_LSP_DOWNLOAD: '1' },
    configure: (home) => write(path.join(home, '.config', 'kilo', 'kilo.json'), opencodeConfig(server)),
  }),
  readyText: /ctrl\+p commands/,
  startupDialogs: [],
  approveKeys: ['Enter'],
  // Esc opens "Reject permission" (a reason to give, "enter confirm  esc cancel"); Enter rejects
  denyKeys: ['Escape', 'Enter'],
  interruptKeys: ['Escape', 'Escape'],
  answerKeys: ['Enter'],
  notApplicable: {},
};

export const qwen: AgentProfile = {
  agent: 'qwen',
  startServer: (o) => startOpenAIChat(o),
  runOptions: (server) => ({
    agent: 'qwen',
    // an OpenAI-compatible endpoint needs no sign-in; Qwen 0.24 starts in its "auto" mode (a
    // classifier model decides each call), so the mode that asks is named
    args: ['--auth-type', 'openai', '--approval-mode', 'default'],
    env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: API_KEY, OPENAI_MODEL: 'gpt-fake', QWEN_TELEMETRY_ENABLED: 'false', QWEN_USAGE_STATISTICS_ENABLED: 'false' },
    // no update check or telemetry; the follow-up suggestion and memory requests it sends after a
    // turn are off, so the fake model's log holds the turns alone
    configure: (home) =>
      write(
        path.join(home, '.qwen', 'settings.json'),
        JSON.stringify(
          {
            general: { enableAutoUpdate: false },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            ui: { autoModeAcknowledged: true, enableFollowupSuggestions: false },
            memory: { enableManagedAutoMemory: false },
          },
          null,
          2,
        ) + '\n',
      ),
  }),
  readyText: /Type your message or @path\/to\/file/,
  startupDialogs: [],
  approveKeys: ['Enter'],
  denyKeys: ['Escape'],
  interruptKeys: ['Escape'],
  answerKeys: ['Down', 'Enter'],
  notApplicable: {
    'the nerdr skill reaches the model': 'nerdr does not hand Qwen Code its skill yet (`nerdr skill` prints it, to paste into QWEN.md)',
  },
  // "Do you want to proceed?" before its agent tool runs, as before a shell command
  subagentAsks: true,
};

const PI_NO_PERMISSION = 'pi asks before no tool call: it has no permission prompts (its security.md: it "does not ask for approval before every tool call"); only an extension can add one';
const PI_NO_QUESTION = 'pi has no question tool of its own; only an extension\'s dialog waits for the user (nerdr reads it from the extension\'s ui_prompt events and the screen)';

export const pi: AgentProfile = {
  agent: 'pi',
  // pi's own OpenAI Chat Completions client ("openai-completions" in models.json)
  startServer: (o) => startOpenAIChat(o),
  runOptions: (server) => ({
    agent: 'pi',
    // no model catalog refresh, version check or install telemetry
    env: { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
    configure: (home) => {
      const dir = path.join(home, '.pi', 'agent');
      write(
        path.join(dir, 'models.json'),
        JSON.stringify({ providers: { fake: { baseUrl: `${server.url}/v1`, api: 'openai-completions', apiKey: API_KEY, models: [{ id: 'gpt-fake', name: 'gpt-fake' }] } } }, null, 2) + '\n',
      );
      // the fake model from the start; a double Esc on an empty input would open the session tree
      write(path.join(dir, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'gpt-fake', enableInstallTelemetry: false, doubleEscapeAction: 'none' }, null, 2) + '\n');
    },
  }),
  // the empty input: a blank row between the editor's two plain rules
  readyText: /^─{10,}\n\s*\n─{10,}$/m,
  startupDialogs: [],
  approveKeys: ['Enter'],
  denyKeys: ['Escape'],
  interruptKeys: ['Escape'],
  answerKeys: ['Enter'],
  notApplicable: {
    'blocked at the permission prompt': PI_NO_PERMISSION,
    'working after approval': PI_NO_PERMISSION,
    'done after the approved command': PI_NO_PERMISSION,
    'idle after a permission denied with Esc': PI_NO_PERMISSION,
    'blocked at a question': PI_NO_QUESTION,
    'working after the answer, then done': PI_NO_QUESTION,
    'working while a subagent runs': 'pi has no subagents (its README: it "skips features like sub-agents")',
  },
  noPermissionPrompt: PI_NO_PERMISSION,
};

/** Every agent nerdr can drive against a fake model server, by name. */
export const PROFILES: Record<string, AgentProfile> = { claude, codex, opencode, copilot, gemini, kilo, qwen, pi };
