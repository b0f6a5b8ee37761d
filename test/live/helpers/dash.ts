// `nerdr -L <server> dash` through the compiled CLI, as a program for a tmux window
// (`node --input-type=module -e …`): the dashboard tests and the agent-limits test run it. It
// registers dash itself should main.ts not list it; a failure stays on screen for a minute.

import path from 'node:path';
import { DIST_MAIN, REPO_ROOT } from './env.js';

export function dashRunner(server: string): string {
  const dash = path.join(REPO_ROOT, 'dist', 'cli', 'dash.js');
  return `
const { buildProgram } = await import(${JSON.stringify(DIST_MAIN)});
const argv = ['node', 'nerdr', '-L', ${JSON.stringify(server)}, 'dash'];
const program = await buildProgram(argv.slice(2));
if (!program.commands.some((c) => c.name() === 'dash')) (await import(${JSON.stringify(dash)})).register(program);
try { await program.parseAsync(argv); } catch (e) { console.error(e?.render?.() ?? e); await new Promise((r) => setTimeout(r, 60000)); }
process.exit(process.exitCode ?? 0);
`;
}
