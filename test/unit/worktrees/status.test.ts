import { describe, expect, it } from 'vitest';
import { changesOf, parseStatusV2 } from '../../../src/worktrees/status.js';

const Z = '\0';

describe('parseStatusV2', () => {
  it('reads the branch headers and every kind of record, paths with spaces whole', () => {
    const text = [
      '# branch.oid 1234abcd',
      '# branch.head feat/x',
      '# branch.upstream origin/feat/x',
      '# branch.ab +2 -1',
      '1 .M N... 100644 100644 100644 aaaa bbbb src/a file.ts',
      '1 A. N... 000000 100644 100644 0000 cccc new.ts',
      '1 MM N... 100644 100644 100644 aaaa bbbb both.ts',
      '2 R. N... 100644 100644 100644 aaaa aaaa R100 renamed.ts',
      'old name.ts',
      'u UU N... 100644 100644 100644 100644 a b c conflict.ts',
      '? untracked dir/x.txt',
      '! ignored.log',
      '',
    ].join(Z);
    const s = parseStatusV2(text);
    expect(s).toMatchObject({ oid: '1234abcd', branch: 'feat/x', upstream: 'origin/feat/x', ahead: 2, behind: 1 });
    expect(s.entries.map((e) => [e.x, e.y, e.path, e.from])).toEqual([
      ['.', 'M', 'src/a file.ts', null],
      ['A', '.', 'new.ts', null],
      ['M', 'M', 'both.ts', null],
      ['R', '.', 'renamed.ts', 'old name.ts'],
      ['U', 'U', 'conflict.ts', null],
      ['?', '?', 'untracked dir/x.txt', null],
    ]);
    expect(changesOf(s.entries).map((f) => `${f.kind}:${f.status}:${f.path}${f.from ? `<${f.from}` : ''}`)).toEqual([
      'unstaged:M:src/a file.ts',
      'staged:A:new.ts',
      'staged:M:both.ts',
      'unstaged:M:both.ts',
      'staged:R:renamed.ts<old name.ts',
      'unstaged:U:conflict.ts',
      'untracked:?:untracked dir/x.txt',
    ]);
  });

  it('knows a repository without commits and a detached HEAD', () => {
    expect(parseStatusV2(['# branch.oid (initial)', '# branch.head main', ''].join(Z))).toMatchObject({ oid: null, branch: 'main', upstream: null, ahead: null });
    expect(parseStatusV2(['# branch.oid abc', '# branch.head (detached)', ''].join(Z)).branch).toBeNull();
  });
});
