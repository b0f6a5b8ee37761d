// The light and summary formats (src/supervisor/lights.ts): each brings its own background and
// attributes, so no theme's bar or bell style hides it, and ends with the style in force before
// it, so a theme's pill keeps its colours. test/live/status-colours.test.ts checks them drawn.
import { describe, expect, it } from 'vitest';
import { LightsWriter, SUPERVISED, glyphsFrom, lightText, offlineGlyphsFrom, summaryText, supervisedSummary } from '../../../src/supervisor/lights.js';
import { DEFAULT_LOOKS, lightBgFrom, looksFromOptions, offlineLookFrom, parseShowOptions, tmuxLight } from '../../../src/looks.js';

describe('the light format', () => {
  it('is the glyph on black, no inherited attributes, then the style that was in force', () => {
    expect(tmuxLight(DEFAULT_LOOKS.done)).toBe('#[push-default]#[none,bg=black,fg=green,bold]●#[default]#[pop-default]');
    expect(tmuxLight({ glyph: '#', color: 'red' })).toBe('#[push-default]#[none,bg=black,fg=red]###[default]#[pop-default]');
  });

  it('@nerdr-light-bg chooses the background; none leaves the window\'s own', () => {
    expect(lightBgFrom({})).toBe('black');
    expect(lightBgFrom(parseShowOptions('@nerdr-light-bg colour236\n'))).toBe('colour236');
    expect(lightBgFrom(parseShowOptions('@nerdr-light-bg none\n'))).toBe('');
    expect(tmuxLight(DEFAULT_LOOKS.blocked, '')).toBe('#[push-default]#[none,fg=red,bold]●#[default]#[pop-default]');
    // the user's colour list comes last: it can set its own background
    expect(glyphsFrom(looksFromOptions({ '@nerdr-color-idle': 'colour250,bg=colour238' }), 'black').idle).toBe('#[push-default]#[none,bg=black,fg=colour250,bg=colour238]○#[default]#[pop-default]');
  });
});

describe('the summary format', () => {
  it('counts in the colours of the lights, on their background, and ends with the style before it', () => {
    expect(summaryText([])).toBe('');
    expect(summaryText(['blocked', 'done', 'done', 'working'])).toBe(
      '#[push-default]#[none,bg=black,fg=red,bold]✋1 #[none,bg=black,fg=green,bold]✓2 #[none,bg=black,fg=yellow]⏳1#[default]#[pop-default] ',
    );
    const looks = looksFromOptions({ '@nerdr-color-done': 'blue' });
    expect(summaryText(['done'], looks, '')).toBe('#[push-default]#[none,fg=blue]✓1#[default]#[pop-default] ');
  });

  it("the writer's counts follow every change: the same summary as counting all windows again", () => {
    const states = ['blocked', 'done', 'working', 'idle', 'unknown', 'limited', 'exited'] as const;
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    const w = new LightsWriter(() => undefined);
    const want = new Map<string, (typeof states)[number] | undefined>(); // window → its state (undefined: options but no state yet)
    for (let step = 0; step < 2000; step++) {
      const win = `@${rnd(12)}`;
      const op = rnd(10);
      if (op < 6) {
        const state = states[rnd(states.length)]!;
        w.set(win, { state, kind: state === 'exited' ? 'exited' : state, suffix: rnd(3) ? '' : ` ✉${rnd(3)}` });
        want.set(win, state);
      } else if (op < 8) {
        w.setOption(win, '@nerdr_facts', `{"n":${step}}`);
        if (!want.has(win)) want.set(win, undefined);
      } else {
        w.remove(win);
        want.delete(win);
      }
      if (step % 7 === 0) {
        const all = [...want.values()].map((s) => s ?? 'unknown' as const);
        expect(w.summary(), `step ${step}`).toBe(supervisedSummary(summaryText(all), all.length));
      }
    }
    w.dispose();
  });

  it("the writer's light text follows its looks", () => {
    const sent: string[][] = [];
    const w = new LightsWriter((cmds, done) => {
      sent.push(cmds);
      done(cmds.map(() => true));
    });
    w.set('@1', { state: 'done', kind: 'done' });
    const before = lightText({ state: 'done', kind: 'done' });
    w.setLooks(looksFromOptions({ '@nerdr-color-done': 'blue' }));
    w.set('@2', { state: 'done', kind: 'done' });
    const after = lightText({ state: 'done', kind: 'done' }, glyphsFrom(looksFromOptions({ '@nerdr-color-done': 'blue' })));
    expect(after).not.toBe(before);
    // what the writer wants for each window, as the next flush would send it
    const wanted = (w as unknown as { wanted: Map<string, Map<string, string>> }).wanted;
    expect(wanted.get('@1')?.get('@nerdr_light')).toBe(before);
    expect(wanted.get('@2')?.get('@nerdr_light')).toBe(after);
    w.dispose();
  });

  it("the writer's summary follows the looks it was given", () => {
    const w = new LightsWriter(() => undefined);
    w.setLooks(looksFromOptions({ '@nerdr-color-blocked': '#ff5f00,bold' }), 'colour235');
    w.set('@1', { state: 'blocked', kind: 'blocked' });
    expect(w.summary()).toBe(
      `#{?${SUPERVISED},#[push-default]#[none#,bg=colour235#,fg=#ff5f00#,bold]✋1#[default]#[pop-default] ,` +
        '#[push-default]#[none#,bg=colour235#,fg=colour245]nerdr ✗#[default]#[pop-default] }',
    );
    w.dispose();
  });
});

describe('the offline look (no supervisor watches: tmux picks it by itself)', () => {
  it('a light keeps its glyph in the offline colour; its queue suffix stays', () => {
    const text = lightText({ state: 'blocked', kind: 'blocked', suffix: ' ✉1#' });
    expect(text).toBe(
      `#{?${SUPERVISED},#[push-default]#[none#,bg=black#,fg=red#,bold]●#[default]#[pop-default] ✉1##,` +
        '#[push-default]#[none#,bg=black#,fg=colour245]●#[default]#[pop-default] ✉1##}',
    );
    const offline = offlineGlyphsFrom(looksFromOptions({ '@nerdr-glyph-done': '✓' }), offlineLookFrom({ '@nerdr-color-offline': 'colour240' }), '');
    expect(offline.done).toBe('#[push-default]#[none,fg=colour240]✓#[default]#[pop-default]');
  });

  it('the summary says `nerdr ✗` while none watches, whenever there is a window or a fleet to show; else nothing', () => {
    expect(supervisedSummary('', 0)).toBe('');
    expect(supervisedSummary('', 2)).toBe(`#{?${SUPERVISED},,#[push-default]#[none#,bg=black#,fg=colour245]nerdr ✗#[default]#[pop-default] }`);
    // the fleet's part is a format of its own: it stays whole inside the branch
    expect(supervisedSummary('#{E:@nerdr_fleet}', 0, offlineLookFrom({ '@nerdr-glyph-offline': '?' }), '')).toBe(
      `#{?${SUPERVISED},#{E:@nerdr_fleet},#[push-default]#[none#,fg=colour245]nerdr ?#[default]#[pop-default] }`,
    );
  });

  it('the writer sends an empty summary once its last window is gone', () => {
    const w = new LightsWriter(() => undefined);
    w.set('@1', { state: 'unknown', kind: 'unknown' });
    expect(w.summary()).toMatch(/nerdr ✗/);
    w.remove('@1');
    expect(w.summary()).toBe('');
    w.dispose();
  });
});
