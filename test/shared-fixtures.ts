// Where the team's shared fixtures are: ../shared beside the repository (CI lays a copy there).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SHARED_FIXTURES = path.resolve(REPO_ROOT, '../shared/fixtures');
