import { describe, expect, it } from 'vitest';
import { escapeHtml, page, PAGE_SCRIPT } from '../../../src/web/page.js';

describe('the page', () => {
  it("builds every element itself: its script has no HTML sink an agent's text could reach", () => {
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function', 'setAttribute(\'on', 'srcdoc', 'javascript:']) expect(PAGE_SCRIPT, sink).not.toContain(sink);
    expect(PAGE_SCRIPT).toContain('textContent');
  });

  it('its script parses (compiled here, not run)', () => {
    expect(() => new Function(PAGE_SCRIPT)).not.toThrow();
  });

  it('puts only its nonce and CSRF token into the HTML, escaped', () => {
    const html = page('n"><x', 'c&"');
    expect(html).toContain('<script nonce="n&#34;&#62;&#60;x">');
    expect(html).toContain('content="c&#38;&#34;"');
    expect(html).not.toContain('n"><x');
  });

  it('is one file: no script, style, font or image from anywhere else', () => {
    const html = page('N', 'C');
    expect(html).not.toMatch(/<script[^>]*src=|<link |@import|url\(/);
    expect(html).toContain('name="viewport" content="width=device-width, initial-scale=1"');
  });

  it('escapeHtml turns a hostile dialog into text', () => {
    expect(escapeHtml('<img src=x onerror="alert(1)">&\'')).toBe('&#60;img src=x onerror=&#34;alert(1)&#34;&#62;&#38;&#39;');
  });
});
