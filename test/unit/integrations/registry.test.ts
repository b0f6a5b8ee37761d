// Every agent's integration agrees with itself and with herdr's tables: what a new agent's file
// must get right, checked for all of them.
import { describe, expect, it } from 'vitest';
import { AGENT_IDS, INTEGRATIONS, continueArgs, integrationFor, resumeArgs } from '../../../src/integrations/index.js';
import { AGENT_ALIASES, agentLabel } from '../../../src/labels.js';
import { idFromArgs, stripResumeArgs } from '../../../src/store/restore-plan.js';
import { hookMapperFor } from '../../../src/integrations/events/index.js';

const ID = '7f9c2ba4-1e3d-4b8a-9f00-5d6e7a8b9c0d';

describe('the integrations', () => {
  it('each under its own id', () => {
    for (const [k, v] of Object.entries(INTEGRATIONS)) expect(v.id).toBe(k);
  });

  it("every agent but nerdr's demo is a label, so identification, reports and hooks find it by its names", () => {
    for (const id of AGENT_IDS.filter((a) => a !== 'demo')) {
      expect(AGENT_ALIASES[id], id).toBeDefined();
      for (const name of AGENT_ALIASES[id]!) {
        expect(agentLabel(name)).toBe(id);
        expect(integrationFor(name)?.id).toBe(id);
      }
    }
    expect(integrationFor('vim')).toBeUndefined();
  });

  it('hook payloads are mapped for every name of an agent with hooks, and for none without', () => {
    for (const a of Object.values(INTEGRATIONS)) {
      for (const name of AGENT_ALIASES[a.id] ?? [a.id]) expect(hookMapperFor(name), name).toBe(a.hooks?.map);
    }
  });

  it('wiring: the default is one of the modes; a mode with files has files to write', () => {
    for (const a of Object.values(INTEGRATIONS)) {
      expect(a.wiring.modes, a.id).toContain(a.wiring.default);
      const fileModes = a.wiring.modes.filter((m) => m === 'home' || m === 'worktree');
      // codex's "home" is its trust record, written by `nerdr integrations trust`, not a file of ours
      if (a.id !== 'codex') expect(a.files !== null, a.id).toBe(fileModes.length > 0);
      if (a.wiring.modes.includes('launch')) expect(a.plan, a.id).not.toBeNull();
    }
  });

  describe.each(Object.values(INTEGRATIONS).filter((a) => a.resume !== null))('$id: resume data', (a) => {
    it('an id launched with is read back from the resume arguments', () => {
      expect(idFromArgs(a.id, resumeArgs(a.id, ID)!)).toBe(ID);
      expect(idFromArgs(a.id, [...resumeArgs(a.id, ID)!, '--model', 'x'])).toBe(ID);
    });

    it('resume and continue arguments are stripped, so restore never doubles them; the rest stays', () => {
      expect(stripResumeArgs(a.id, [...resumeArgs(a.id, ID)!, '--model', 'x'])).toEqual(['--model', 'x']);
      const cont = continueArgs(a.id);
      if (cont) expect(stripResumeArgs(a.id, [...cont, '--model', 'x'])).toEqual(['--model', 'x']);
    });

    it('guesses the newest conversation only where it has a continue', () => {
      if (a.resume!.guessNewest) expect(continueArgs(a.id)).toBeDefined();
    });
  });

  it('an id that could pass for a flag is never resumed', () => {
    for (const a of AGENT_IDS) expect(resumeArgs(a, '--dangerously-skip-permissions')).toBeUndefined();
  });
});
