// The web page's guards, each a pure function of a request's headers (docs/web.md, "Security"):
// the Host served (no DNS rebinding), the token or its cookie, a same-origin Origin and the page's
// CSRF token on a POST, a token bucket for POSTs. The server (server.ts) applies them in order.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** 32 bytes from the system's random source, as URL-safe base64 (256 bits). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares two secrets in time independent of where they differ. */
export function sameSecret(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `host:port` as a URL and a Host header write it (an IPv6 address in brackets). */
export function hostPort(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/** True for an address only this machine reaches (127.0.0.0/8, ::1). */
export function isLoopback(address: string): boolean {
  return address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));
}

/**
 * The Host headers a request may carry: the address served, and `localhost` when that is
 * loopback (browsers resolve it to loopback themselves, never through DNS). Any other name could
 * be an attacker's domain rebound to this address.
 */
export function allowedHosts(address: string, port: number): string[] {
  const hosts = [hostPort(address, port)];
  if (isLoopback(address)) hosts.push(`localhost:${port}`);
  return hosts;
}

export type Headers = Record<string, string | string[] | undefined>;

function one(h: Headers, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? undefined : v; // a header sent twice is not trusted
}

/** A refusal: the status and a short reason (the body; it names no secret). */
export interface Refusal {
  status: 401 | 403 | 429;
  why: string;
}

/** 403 unless Host is exactly one of `hosts` (case-insensitive, as host names are). */
export function checkHost(headers: Headers, hosts: string[]): Refusal | null {
  const host = one(headers, 'host')?.toLowerCase();
  return host !== undefined && hosts.includes(host) ? null : { status: 403, why: 'this address is not the one nerdr web serves' };
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(headers: Headers, name: string): string | undefined {
  const raw = one(headers, 'cookie');
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** The cookie's name: one per port, since a browser sends 127.0.0.1's cookies to every port. */
export function cookieName(port: number): string {
  return `nerdr_web_${port}`;
}

/** The Set-Cookie of a session: HttpOnly (no script reads it), SameSite=Strict, for the whole site, gone with the browser session. */
export function sessionCookie(port: number, session: string): string {
  return `${cookieName(port)}=${session}; HttpOnly; SameSite=Strict; Path=/`;
}

/**
 * 403 unless a state-changing request comes from the page itself: its Origin is this very
 * origin (`http://` + the Host checked before), a fetch metadata header, when the browser sends
 * one, says same-origin, and it carries a CSRF token the server embedded in a page it served.
 */
export function checkPost(headers: Headers, isCsrf: (token: string) => boolean): Refusal | null {
  const host = one(headers, 'host')?.toLowerCase();
  const origin = one(headers, 'origin')?.toLowerCase();
  if (!host || origin !== `http://${host}`) return { status: 403, why: 'a change must come from the nerdr web page itself (Origin)' };
  const site = one(headers, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return { status: 403, why: 'a change must come from the nerdr web page itself (Sec-Fetch-Site)' };
  const csrf = one(headers, 'x-nerdr-csrf');
  if (!csrf || !isCsrf(csrf)) return { status: 403, why: 'the page is stale or foreign: reload it (CSRF token)' };
  return null;
}

/** A token bucket: `capacity` at once, refilled at `perSecond`; time comes from `now` (ms). */
export class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = capacity;
    this.last = now();
  }

  /** Takes one token; false when none is left (the caller answers 429). */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** The headers of every answer: no caching, no sniffing, no referrer, no framing; never any CORS header. */
export function baseHeaders(): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/** The page's policy: its own script and style by nonce, requests only to itself, nothing else. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
