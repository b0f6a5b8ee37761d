// herdr's two maki cases for its `prompt_box_idle` rule (herdr's manifest tests: a narrow pane whose
// status bar lost its mode label, idle at its `❯ ` prompt; the same pane streaming, which the
// rule's two `not` gates must keep from idle), through our engine. The manifest below is a rule of
// the same shape written here (nerdr ships no maki manifest): the bottom three non-empty lines, a
// line starting `❯ `, not the queue placeholder, not a braille spinner row. Both cases agree with
// herdr on the text as herdr's tests give it; a screen goes through the same right-trim in both
// engines, so an empty `❯ ` prompt row is `❯` there and matches in neither.
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/detect/evaluate.js';
import { parseManifest } from '../../../src/detect/schema.js';
import { rawScreenText } from '../../../src/detect/index.js';

const TOML = `
id = "maki"
[[rules]]
id = "status_bar_idle"
state = "idle"
priority = 850
region = "bottom_non_empty_lines(1)"
line_regex = ['^ \\[(BUILD|PLAN|BASH)\\]']

[[rules]]
id = "prompt_box_idle"
state = "idle"
priority = 840
region = "bottom_non_empty_lines(3)"
visible_idle = true
line_regex = ['^❯ ']
not = [
  { contains = ["queue another prompt"] },
  { line_regex = ['^( [\\x{2800}-\\x{28FF}]){1,2} '] },
]
`;

const parsed = parseManifest(TOML);
if (!parsed.ok) throw new Error('the test manifest does not parse');
const manifest = parsed.manifest;

describe('herdr\'s maki prompt_box_idle cases', () => {
  it('a narrow idle pane matches prompt_box_idle', () => {
    const text = '\u23fa Done.\n\n\u276f add a test\n ctx 12k \u00b7 gpt-5.5';
    expect(evaluate(manifest, { text }).rule).toBe('prompt_box_idle');
    expect(evaluate(manifest, { text: rawScreenText(text) }).rule).toBe('prompt_box_idle');
  });

  it('the same pane streaming matches nothing: the not gates hold', () => {
    const r = evaluate(manifest, { text: '\u276f queue another prompt\n \u280b working' });
    expect(r.rule).toBeNull();
    expect(r.visibleIdle).toBe(false);
  });

  it('an empty prompt row: `❯ ` as given matches, the trimmed screen row `❯` does not (as in herdr)', () => {
    const text = 'answer\n\u276f \n ctx 12k';
    expect(evaluate(manifest, { text }).rule).toBe('prompt_box_idle');
    expect(evaluate(manifest, { text: rawScreenText(text) }).rule).toBeNull();
  });
});
