// npm's `prepare`: compile to dist/, then bundle the CLI (scripts/bundle.mjs). `npm install -g .`
// in a fresh clone runs this before it has installed the clone's own dependencies (tsc: not
// found), so they are installed first here.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
if (!existsSync(tsc)) {
  process.stderr.write('nerdr: installing its dependencies to build it (npm install)\n');
  // --ignore-scripts: this script is the prepare step, it must not run itself again
  // the outer npm's settings (npm_config_global, _prefix…) would make this a global install too
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k)));
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: root, stdio: ['ignore', 2, 2], env });
}
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, [path.join(root, 'scripts', 'bundle.mjs')], { cwd: root, stdio: 'inherit' });
