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
}

export const AGENTS: Record<string, AgentSpec> = {
  claude: { id: 'claude', command: ['claude'], description: 'Claude Code' },
  codex: { id: 'codex', command: ['codex'], description: 'OpenAI Codex CLI' },
  opencode: { id: 'opencode', command: ['opencode'], description: 'opencode' },
  copilot: { id: 'copilot', command: ['copilot'], description: 'GitHub Copilot CLI' },
  gemini: { id: 'gemini', command: ['gemini'], description: 'Gemini CLI' },
  cursor: { id: 'cursor', command: ['cursor-agent'], description: 'Cursor Agent CLI' },
  agy: { id: 'agy', command: ['agy'], description: 'Antigravity CLI' },
  grok: { id: 'grok', command: ['grok'], description: 'Grok CLI' },
  amp: { id: 'amp', command: ['amp'], description: 'Amp' },
  droid: { id: 'droid', command: ['droid'], description: 'Factory Droid' },
  // no wiring of nerdr's own: herdr's extension reports their state and session file
  pi: { id: 'pi', command: ['pi'], description: 'Pi coding agent' },
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
