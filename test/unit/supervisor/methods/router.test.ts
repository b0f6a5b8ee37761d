// The methods on a real socket: what a client reads back for refused params.
import { afterEach, describe, expect, it } from 'vitest';
import { registerMethods } from '../../../../src/supervisor/api.js';
import { SUPERVISOR_METHODS } from '../../../../src/supervisor/methods/index.js';
import { request, SocketRequestError } from '../../../../src/supervisor/socket/index.js';
import { startServer, type Harness } from '../../socket/helpers.js';
import { startRig, type Rig } from '../harness.js';
import { hostOf } from './call.js';

let rig: Rig | null = null;
let sock: Harness | null = null;
afterEach(async () => {
  await sock?.cleanup();
  await rig?.done();
  rig = sock = null;
});

describe('the methods served on the socket', () => {
  it('answer as before, and a refused param comes back as invalid_params with its fix', async () => {
    rig = await startRig((t) => void t.addPane({ name: 'api' }));
    sock = await startServer();
    const off = registerMethods(sock.server, SUPERVISOR_METHODS, hostOf(rig));
    expect(((await request(sock.path, 'nerdr.ls', {})) as { agents: { name: string }[] }).agents.map((a) => a.name)).toEqual(['api']);
    const err = await request(sock.path, 'nerdr.send', { target: 'api' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SocketRequestError);
    expect(err).toMatchObject({ code: 'invalid_params', message: expect.stringContaining('nerdr.send: message is missing'), fix: expect.stringMatching(/^nerdr\.send takes /) });
    off();
    await expect(request(sock.path, 'nerdr.ls', {})).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
