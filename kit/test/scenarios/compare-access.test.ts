import { compareAccess } from '../../src/scenarios/compare-access';

describe('compareAccess', () => {
  it('counts agreed, over-exposed, under-exposed and missing pairs', () => {
    const expected = new Map([
      ['task:1', ['u1', 'u2']],
      ['task:2', ['u1']],
      ['task:3', ['u3']],
    ]);
    const granted = new Map([
      ['task:1', new Set(['u1', 'u2'])],
      ['task:2', new Set(['u1', 'u2'])],
      ['task:9', new Set(['u3'])],
    ]);
    const r = compareAccess(expected, granted, 3);
    expect(r.filesCompared).toBe(2);
    expect(r.pairsCompared).toBe(6);
    expect(r.overExposed).toEqual([
      { file: 'task:2', user: 'u2' },
      { file: 'task:9', user: 'u3' },
    ]);
    expect(r.underExposed).toEqual([{ file: 'task:3', user: 'u3' }]);
    expect(r.missing).toEqual([{ file: 'task:3', users: 1 }]);
  });
});
