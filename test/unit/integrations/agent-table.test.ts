// Every list of agents outside src/integrations/ is derived from INTEGRATIONS, or holds only
// agents nerdr does not start. These checks fail when a list drifts from the table: an agent
// without its manifest, selftest profile or docs, a herdr table that names an agent nerdr starts,
// a name or package that finds another agent.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTEGRATIONS, integrationFor } from '../../../src/integrations/index.js';
import { HOOK_AGENTS, hookMapperFor } from '../../../src/integrations/events/index.js';
import { AGENT_ALIASES, KNOWN_AGENTS, agentLabel } from '../../../src/labels.js';
import { classifySource, herdrRules, mayReplaceSession } from '../../../src/state/reports.js';
import { packageLabel } from '../../../src/detect/identify.js';
import { PROFILES } from '../../../src/selftest/profiles.js';
import { AGENT_PACKAGES } from '../../agents/versions.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const ALL = Object.values(INTEGRATIONS);

describe('the agent table', () => {
  it('every agent has its manifest, unless herdr reports its whole lifecycle; every manifest is an agent', () => {
    const manifests = readdirSync(path.join(ROOT, 'manifests')).filter((f) => f.endsWith('.toml')).map((f) => f.slice(0, -'.toml'.length));
    for (const a of ALL) {
      if (a.herdr?.reports !== 'full-lifecycle') expect(manifests, a.id).toContain(a.id);
    }
    for (const m of manifests) expect(KNOWN_AGENTS.has(m) || m in INTEGRATIONS, m).toBe(true);
  });

  it('an agent has a hook mapper exactly when it can be wired, and its mapper answers to each of its names', () => {
    for (const a of ALL) {
      expect(a.hooks !== null, a.id).toBe(a.wiring.modes.some((m) => m !== 'off'));
      expect(HOOK_AGENTS.includes(a.id), a.id).toBe(a.hooks !== null);
      for (const name of a.aliases) expect(hookMapperFor(name), name).toBe(a.hooks?.map);
    }
  });

  it('an agent with proven versions has a selftest profile and is installed by the real-agent suite, and no other', () => {
    const proven = ALL.filter((a) => a.proven.length > 0).map((a) => a.id).sort();
    expect(Object.keys(PROFILES).sort()).toEqual(proven);
    for (const [id, p] of Object.entries(PROFILES)) expect(p.agent, id).toBe(id);
    expect(AGENT_PACKAGES.map((p) => p.agent).sort()).toEqual(proven);
    for (const id of proven) expect(INTEGRATIONS[id as keyof typeof INTEGRATIONS].npm, `${id}: the suite installs it from npm`).not.toBeNull();
  });

  it('docs/agents.md lists every agent', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'agents.md'), 'utf8');
    for (const a of ALL.filter((x) => x.id !== 'demo')) expect(doc, a.id).toContain(`(\`${a.id}\`)`);
  });

  it("the labels: the agents nerdr starts bring their names, herdr's others are listed apart, and no name finds two", () => {
    const owner = new Map<string, string>();
    for (const [label, names] of Object.entries(AGENT_ALIASES)) {
      expect(names[0], label).toBe(label);
      for (const n of names) {
        expect(owner.get(n), `${n} is a name of ${owner.get(n)} and ${label}`).toBeUndefined();
        owner.set(n, label);
        expect(agentLabel(n)).toBe(label);
      }
    }
    for (const a of ALL) {
      if (a.aliases.length === 0) continue;
      expect(AGENT_ALIASES[a.id]).toEqual(a.aliases);
      for (const n of a.aliases) expect(integrationFor(n)?.id, n).toBe(a.id);
    }
    for (const label of KNOWN_AGENTS) if (!(label in INTEGRATIONS)) expect(integrationFor(label), label).toBeUndefined();
  });

  it("herdr's report rules: each agent's own source is its alone and classifies as stated under every name; herdr's other agents keep theirs", () => {
    const sources = new Map<string, string>();
    for (const label of KNOWN_AGENTS) {
      const rules = herdrRules(label);
      if (rules === null) continue;
      expect(sources.get(rules.source), rules.source).toBeUndefined();
      sources.set(rules.source, label);
      for (const name of AGENT_ALIASES[label]!) {
        expect(classifySource(rules.source, name), `${rules.source} about ${name}`).toBe(rules.reports);
        if (rules.newSessionOn === 'always') expect(mayReplaceSession(name, 'startup')).toBe(true);
        else for (const s of rules.newSessionOn ?? []) expect(mayReplaceSession(name, s), `${name} ${s}`).toBe(true);
      }
    }
    for (const a of ALL) expect(herdrRules(a.id)).toBe(a.herdr);
    // a source names one agent: the same source about another agent is a custom report
    expect(classifySource('herdr:claude', 'codex')).toBe('custom');
    expect(classifySource('herdr:mastracode', 'mastracode')).toBe('full-lifecycle');
    expect(sources.size).toBeGreaterThan(ALL.filter((a) => a.herdr !== null).length);
  });

  it('every npm package of an agent identifies it', () => {
    for (const a of ALL) {
      for (const pkg of [...(a.npm ? [a.npm] : []), ...a.otherPackages]) {
        expect(packageLabel(pkg), pkg).toBe(a.id);
        expect(packageLabel(`${pkg}@latest`), pkg).toBe(a.id);
      }
    }
  });

  it('a status file is read only for an agent that states where it is', () => {
    for (const a of ALL) {
      if (a.statusFile === null) continue;
      expect(a.statusFile.folder({ HOME: '/home/u' }), a.id).toMatch(/^\/home\/u\//);
      expect(a.statusFile.vars, a.id).toContain('HOME');
    }
  });

  it('every agent in the table is a separate file under src/integrations/ exporting it', () => {
    for (const a of ALL) expect(existsSync(path.join(ROOT, 'src', 'integrations', `${a.id}.ts`)), a.id).toBe(true);
  });
});
