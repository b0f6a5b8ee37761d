import { describe, expect, it } from 'vitest';
import { answerKeys, parseChoice, promptId, sameText } from '../../../src/inbox/answer.js';
import type { DialogSpec } from '../../../src/inbox/dialog.js';
import type { Dialog } from '../../../src/protocol/index.js';

const list: Dialog = {
  text: 'Do you want to proceed?',
  options: [
    { n: 1, label: 'Yes', kind: 'approve' },
    { n: 2, label: 'Yes, always', kind: 'always' },
    { n: 3, label: 'No', kind: 'deny' },
  ],
  selected: 0,
  layout: 'list',
};
const plain: DialogSpec = { top: null, row: null, denyKeys: null };
const esc: DialogSpec = { top: null, row: null, denyKeys: ['Escape'] };

describe('answer keys', () => {
  it('the selection moves from where the agent has it to the option, then Enter', () => {
    expect(answerKeys(list, 'approve', plain, null)).toMatchObject({ ok: true, keys: ['Enter'] });
    expect(answerKeys(list, 'always', plain, null)).toMatchObject({ ok: true, keys: ['Down', 'Enter'], option: { n: 2 } });
    expect(answerKeys({ ...list, selected: 2 }, 1, plain, null)).toMatchObject({ ok: true, keys: ['Up', 'Up', 'Enter'] });
    expect(answerKeys({ ...list, layout: 'row' }, 3, plain, null)).toMatchObject({ ok: true, keys: ['Right', 'Right', 'Enter'] });
  });

  it("deny uses the agent's proven refusal keys when it has them", () => {
    expect(answerKeys(list, 'deny', esc, null)).toMatchObject({ ok: true, keys: ['Escape'], option: { n: 3 } });
    expect(answerKeys(list, 'deny', plain, null)).toMatchObject({ ok: true, keys: ['Down', 'Down', 'Enter'] });
  });

  it('a choice the dialog does not offer, or text where none is taken, is refused with the options', () => {
    expect(answerKeys(list, 7, plain, null)).toMatchObject({ ok: false, message: expect.stringContaining('1. Yes; 2. Yes, always; 3. No') });
    expect(answerKeys(list, 1, plain, 'hi')).toMatchObject({ ok: false });
    const q: Dialog = { ...list, options: [{ n: 1, label: 'Red', kind: 'choice' }, { n: 2, label: 'Type something.', kind: 'text' }] };
    expect(answerKeys(q, 'approve', plain, null)).toMatchObject({ ok: false });
    expect(answerKeys(q, 2, plain, null)).toMatchObject({ ok: false, message: expect.stringContaining('--text') });
    expect(answerKeys(q, 2, plain, 'green')).toMatchObject({ ok: true, keys: ['Down', 'literal:green', 'Enter'] });
  });

  it('choices as people type them', () => {
    expect(parseChoice('Approve')).toBe('approve');
    expect(parseChoice('no')).toBe('deny');
    expect(parseChoice('2')).toBe(2);
    expect(parseChoice('0')).toBeNull();
    expect(parseChoice('maybe')).toBeNull();
  });
});

describe('prompt ids', () => {
  it('the same dialog shown since the same time is one id, whatever is selected', () => {
    expect(promptId('@1', 1000, list, '')).toBe(promptId('@1', 1000, { ...list, selected: 2 }, ''));
  });
  it('another time, window or text is another id', () => {
    const id = promptId('@1', 1000, list, '');
    expect(promptId('@1', 2000, list, '')).not.toBe(id);
    expect(promptId('@2', 1000, list, '')).not.toBe(id);
    expect(promptId('@1', 1000, { ...list, text: 'Do you want to delete it?' }, '')).not.toBe(id);
    expect(sameText(list)).toBe(sameText({ ...list, selected: 1 }));
  });
});
