import { describe, expect, it } from 'vitest';
import { checkParams, methodParams, paramsSignature } from '../../../src/protocol/index.js';
import { fleet, fleetReload, SUPERVISOR_METHODS } from '../../../src/supervisor/methods/index.js';

describe('the protocol', () => {
  it('every method it names is served by a method file, and every method file names one of its methods', () => {
    const served = [...SUPERVISOR_METHODS, fleet, fleetReload].map((m) => m.name).sort();
    expect(served).toEqual(Object.keys(methodParams).sort());
  });

  it("a method's signature marks what may be left out", () => {
    expect(paramsSignature('nerdr.send')).toBe('{target, message, caller?}');
    expect(paramsSignature('nerdr.ls')).toBe('{}');
  });

  it('checked params: unknown keys dropped, null as absent; a refusal names the param, why, and what the method takes', () => {
    expect(checkParams('nerdr.read', { target: 'api', lines: null, extra: 1 })).toEqual({ ok: true, params: { target: 'api', lines: null } });
    expect(checkParams('nerdr.wait', { target: 'api', until: ['idle', 'busy'] })).toMatchObject({ ok: false, message: expect.stringMatching(/^nerdr\.wait: until\.1: /) });
    expect(checkParams('nerdr.send', { target: 3, message: 'x' })).toEqual({
      ok: false,
      message: 'nerdr.send: target must be a string, not a number',
      fix: 'nerdr.send takes {target, message, caller?}; docs/socket-protocol.md, "nerdr\'s own methods", says what each holds',
    });
  });
});
