// An agent window that runs nerdr commands from inside its pane, with the pane's exact
// environment (agents-drive.test.ts, agent-limits.test.ts). The program is written to a file by
// the test; the window runs it with the commands, and it writes their answers to \`out\`.
import { shQuote } from '../../../src/integrations/common.js';

// argv: the file to write, then each command as a JSON array of nerdr arguments
export const DRIVER = `
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const [out, ...steps] = process.argv.slice(2);
const results = [];
for (const s of steps) {
  const args = JSON.parse(s);
  try {
    const stdout = execFileSync(process.execPath, [process.env.NERDR_BIN, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    results.push({ args, code: 0, stdout, stderr: '' });
  } catch (e) {
    results.push({ args, code: e.status, stdout: String(e.stdout), stderr: String(e.stderr) });
  }
}
fs.writeFileSync(out + '.tmp', JSON.stringify(results));
fs.renameSync(out + '.tmp', out);
setInterval(() => {}, 1 << 30);
`;

/** The window program that runs these nerdr commands from inside its pane, writing the answers to `out`. */
export const driverCmd = (driver: string, out: string, steps: string[][]): string => ['exec', process.execPath, driver, out, ...steps.map((x) => JSON.stringify(x))].map(shQuote).join(' ');
