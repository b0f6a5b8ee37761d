import { describe, expect, it } from 'vitest';
import { allowedHosts, baseHeaders, checkHost, checkPost, contentSecurityPolicy, cookieValue, hostPort, isLoopback, randomToken, sameSecret, sessionCookie, TokenBucket } from '../../../src/web/security.js';

describe('the Host served, exactly (no DNS rebinding)', () => {
  const hosts = allowedHosts('127.0.0.1', 8080);
  it('accepts the address served and localhost at its port', () => {
    expect(checkHost({ host: '127.0.0.1:8080' }, hosts)).toBeNull();
    expect(checkHost({ host: 'LOCALHOST:8080' }, hosts)).toBeNull();
  });
  it('refuses another name, another port, none, or two', () => {
    for (const host of ['evil.example:8080', '127.0.0.1:8081', '127.0.0.1', 'localhost', '127.0.0.2:8080', '']) expect(checkHost({ host }, hosts)?.status, host).toBe(403);
    expect(checkHost({}, hosts)?.status).toBe(403);
    expect(checkHost({ host: ['127.0.0.1:8080', 'evil:8080'] }, hosts)?.status).toBe(403);
  });
  it('a tailnet address is served under that address only; IPv6 in brackets', () => {
    expect(allowedHosts('100.64.1.2', 9000)).toEqual(['100.64.1.2:9000']);
    expect(allowedHosts('::1', 9000)).toEqual(['[::1]:9000', 'localhost:9000']);
    expect(hostPort('fd7a::1', 1)).toBe('[fd7a::1]:1');
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('100.64.1.2')).toBe(false);
  });
});

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Strict, Path=/, named for its port (a browser sends 127.0.0.1 cookies to every port)', () => {
    expect(sessionCookie(8080, 'abc')).toBe('nerdr_web_8080=abc; HttpOnly; SameSite=Strict; Path=/');
  });
  it('is read from the Cookie header by its name only', () => {
    expect(cookieValue({ cookie: 'a=1; nerdr_web_8080=s3cret; b=2' }, 'nerdr_web_8080')).toBe('s3cret');
    expect(cookieValue({ cookie: 'xnerdr_web_8080=s3cret' }, 'nerdr_web_8080')).toBeUndefined();
    expect(cookieValue({}, 'nerdr_web_8080')).toBeUndefined();
  });
  it('tokens are 256 random bits, compared in constant time', () => {
    const t = randomToken();
    expect(Buffer.from(t, 'base64url')).toHaveLength(32);
    expect(randomToken()).not.toBe(t);
    expect(sameSecret(t, t)).toBe(true);
    expect(sameSecret(t.slice(1), t)).toBe(false);
    expect(sameSecret(undefined, t)).toBe(false);
  });
});

describe('a POST: the same Origin and the page\'s CSRF token', () => {
  const ok = { host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-origin', 'x-nerdr-csrf': 'page' };
  const isCsrf = (t: string) => t === 'page';
  it('passes from the page itself', () => {
    expect(checkPost(ok, isCsrf)).toBeNull();
    const { 'sec-fetch-site': _, ...older } = ok; // a browser without fetch metadata
    expect(checkPost(older, isCsrf)).toBeNull();
  });
  it('refuses a foreign Origin, none, "null", https, another port', () => {
    for (const origin of ['http://evil.example', 'null', 'https://127.0.0.1:8080', 'http://127.0.0.1:8081', undefined]) expect(checkPost({ ...ok, origin }, isCsrf)?.status, String(origin)).toBe(403);
  });
  it('refuses a cross-site fetch even with the right Origin, and a missing or wrong CSRF token', () => {
    expect(checkPost({ ...ok, 'sec-fetch-site': 'cross-site' }, isCsrf)?.status).toBe(403);
    expect(checkPost({ ...ok, 'x-nerdr-csrf': 'other' }, isCsrf)?.status).toBe(403);
    expect(checkPost({ ...ok, 'x-nerdr-csrf': undefined }, isCsrf)?.status).toBe(403);
  });
});

describe('the token bucket', () => {
  it('allows a burst, then one per refill, on the clock given', () => {
    let t = 0;
    const b = new TokenBucket(3, 2, () => t);
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false]);
    t += 499;
    expect(b.take()).toBe(false);
    t += 1;
    expect(b.take()).toBe(true);
    t += 60_000;
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false]);
  });
});

describe('headers of every answer', () => {
  it('no-store, nosniff, no-referrer; never a CORS header', () => {
    const h = baseHeaders();
    expect(h).toMatchObject({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
    expect(Object.keys(h).some((k) => k.toLowerCase().startsWith('access-control-'))).toBe(false);
  });
  it('the CSP allows script and style only by nonce, requests only to itself', () => {
    const csp = contentSecurityPolicy('N0nce');
    expect(csp).toContain("script-src 'nonce-N0nce'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  });
});
