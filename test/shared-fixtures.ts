// The real captures the tests read (screens and hook payloads of real agents, first recorded in
// the team's shared fixtures), kept in the repository so a clone tests itself.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SHARED_FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'real');
