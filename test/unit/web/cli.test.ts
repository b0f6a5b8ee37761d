import { describe, expect, it } from 'vitest';
import { listenError, refuseAgentWindow, webAddress } from '../../../src/cli/web.js';
import { validateConfig } from '../../../src/config.js';

describe('nerdr web: where it serves', () => {
  const dflt = { port: null, listen: '127.0.0.1' };
  it('a free port on 127.0.0.1 by default; config, then flags, override', () => {
    expect(webAddress({}, dflt)).toEqual({ port: 0, listen: '127.0.0.1' });
    expect(webAddress({}, { port: 8080, listen: '100.64.0.5' })).toEqual({ port: 8080, listen: '100.64.0.5' });
    expect(webAddress({ port: '9000', listen: '::1' }, { port: 8080, listen: '100.64.0.5' })).toEqual({ port: 9000, listen: '::1' });
  });
  it('refuses a port or address it cannot use, naming it', () => {
    expect(() => webAddress({ port: 'http' }, dflt)).toThrow(/--port must be a port number .*"http"/);
    expect(() => webAddress({ port: '70000' }, dflt)).toThrow(/--port/);
    expect(() => webAddress({ listen: 'example.com' }, dflt)).toThrow(/--listen must be an IP address/);
    expect(() => webAddress({ listen: '0.0.0.0' }, dflt)).toThrow(/not every address/);
    expect(() => webAddress({ listen: '::' }, dflt)).toThrow(/not every address/);
  });
  it('a taken port is port_in_use, with the fix to choose another', () => {
    const e = listenError(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }), '127.0.0.1', 8080);
    expect(e.code).toBe('port_in_use');
    expect(e.message).toBe('port 8080 on 127.0.0.1 is in use by another program');
    expect(e.fixText).toMatch(/--port/);
    expect(listenError(Object.assign(new Error('x'), { code: 'EADDRNOTAVAIL' }), '10.9.9.9', 1).code).toBe('listen_failed');
  });
});

describe('nerdr web from an agent window', () => {
  it('is refused: the token would be on the agent\'s screen, and the page answers every agent', () => {
    expect(() => refuseAgentWindow({ NERDR_TAB: 'secret' })).toThrow(/serves a person, not an agent/);
    expect(() => refuseAgentWindow({})).not.toThrow();
  });
});

describe('[web] in config.toml', () => {
  it('takes a port and a listen address', () => {
    const { config, problems } = validateConfig({ web: { port: 8080, listen: '100.101.102.103' } });
    expect(problems).toEqual([]);
    expect(config.web).toEqual({ port: 8080, listen: '100.101.102.103' });
  });
  it('defaults to a free port on loopback; reports what it cannot use and keeps the default', () => {
    expect(validateConfig({}).config.web).toEqual({ port: null, listen: '127.0.0.1' });
    const { config, problems } = validateConfig({ web: { port: 'x', listen: '0.0.0.0', tls: true } });
    expect(config.web).toEqual({ port: null, listen: '127.0.0.1' });
    expect(problems.map((p) => p.key)).toEqual(['web.port', 'web.listen', 'web.tls']);
  });
});
