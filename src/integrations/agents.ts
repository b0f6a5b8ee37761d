// The agents nerdr knows how to launch, by name. Launch wiring for hooks lives in the
// per-agent files of this folder; this table is what `nerdr new <agent>` accepts.

import path from 'node:path';
import { packageRoot } from '../paths.js';

export interface AgentSpec {
  /** The label used in manifests, `ls` and hooks. */
  id: string;
  /** The program and arguments that start it. */
  command: string[];
  description: string;
  /** Its npm package, where it is installed from npm. */
  npm?: string;
  /** Versions the real-agent conformance suite drives offline (the first is the pinned one). */
  proven?: string[];
}

export const AGENTS: Record<string, AgentSpec> = {
  claude: { id: 'claude', command: ['claude'], description: 'Claude Code', npm: '@anthropic-ai/claude-code', proven: ['2.1.197'] },
  codex: { id: 'codex', command: ['codex'], description: 'OpenAI Codex CLI', npm: '@openai/codex', proven: ['0.171.0'] },
  opencode: { id: 'opencode', command: ['opencode'], description: 'opencode', npm: 'opencode-ai', proven: ['1.18.33'] },
  copilot: { id: 'copilot', command: ['copilot'], description: 'GitHub Copilot CLI', npm: '@github/copilot', proven: ['1.0.102'] },
  gemini: { id: 'gemini', command: ['gemini'], description: 'Gemini CLI', npm: '@google/gemini-cli', proven: ['0.61.0'] },
  cursor: { id: 'cursor', command: ['cursor-agent'], description: 'Cursor Agent CLI' },
  agy: { id: 'agy', command: ['agy'], description: 'Antigravity CLI' },
  grok: { id: 'grok', command: ['grok'], description: 'Grok CLI' },
  amp: { id: 'amp', command: ['amp'], description: 'Amp', npm: '@sourcegraph/amp' },
  droid: { id: 'droid', command: ['droid'], description: 'Factory Droid' },
  // no wiring of nerdr's own: herdr's extension reports their state and session file
  pi: { id: 'pi', command: ['pi'], description: 'Pi coding agent', npm: '@mariozechner/pi-coding-agent' },
  omp: { id: 'omp', command: ['omp'], description: 'oh-my-pi (omp)' },
  demo: {
    id: 'demo',
    command: [process.execPath, path.join(packageRoot, 'dist', 'demo', 'agent.js')],
    description: 'the simulated agent bundled with nerdr (for `nerdr demo`)',
  },
};

export function knownAgents(): string[] {
  return Object.keys(AGENTS);
}

/** How to install an agent, for messages: the npm command where it comes from npm. */
export function installHint(spec: AgentSpec): string {
  return spec.npm ? `install it: npm install -g ${spec.npm}` : `install ${spec.description} as its documentation says, so that \`${spec.command[0]}\` is on PATH`;
}
