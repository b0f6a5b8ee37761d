// Every error the CLI can print carries a fix and a code of the one table (src/errors.ts CODES):
// read from the source, so a new `throw new NerdrError('…')` without either fails here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CODES } from '../../../src/errors.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

interface Site {
  where: string;
  args: ts.NodeArray<ts.Expression> | undefined;
}

function sites(ctor: string): Site[] {
  const out: Site[] = [];
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes(`new ${ctor}(`)) continue;
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const visit = (n: ts.Node): void => {
      if (ts.isNewExpression(n) && n.expression.getText(sf) === ctor) {
        out.push({ where: `${path.relative(SRC, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`, args: n.arguments });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

/** The code a call names in its options (`{ code: 'x' }`), when it names one literally. */
function literalCode(opts: ts.Expression | undefined): string | null {
  if (!opts || !ts.isObjectLiteralExpression(opts)) return null;
  for (const p of opts.properties) {
    if (ts.isPropertyAssignment(p) && p.name.getText() === 'code' && ts.isStringLiteral(p.initializer)) return p.initializer.text;
  }
  return null;
}

describe('every user-facing error has a code and a fix', () => {
  const all = sites('NerdrError');

  it('finds the errors (the scan works)', () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it('each NerdrError brings a fix of its own, or names a code whose fix the table holds', () => {
    const bare = all.filter((s) => {
      const [, fix, opts] = s.args ?? [];
      const ownFix = fix !== undefined && fix.kind !== ts.SyntaxKind.UndefinedKeyword && fix.getText() !== 'undefined';
      return !ownFix && !(opts && /\bcode\b/.test(opts.getText()));
    });
    expect(bare.map((s) => s.where)).toEqual([]);
  });

  it('each code named literally is in the table', () => {
    const named = [...sites('NerdrError').map((s) => literalCode(s.args?.[2])), ...sites('RpcError').map((s) => (s.args?.[0] && ts.isStringLiteral(s.args[0]) ? s.args[0].text : null))];
    const unknown = named.filter((c): c is string => c !== null && !Object.hasOwn(CODES, c));
    expect([...new Set(unknown)]).toEqual([]);
  });

  it('no plain Error is thrown on the paths a command runs (src/cli, worktrees, review, integrations)', () => {
    const plain = sites('Error').filter((s) => /^(cli|worktrees|review|integrations)\//.test(s.where));
    // those left are caught and said otherwise: new.ts resolveCwd (a folder that is not one),
    // codex.ts's app-server calls (their message becomes the trust check's reason)
    expect([...new Set(plain.map((s) => s.where.replace(/:\d+$/, '')))]).toEqual(['cli/new.ts', 'integrations/codex.ts']);
  });
});
