import { describe, expect, it } from 'vitest';
import { span } from '../../web/src/format';

describe('span', () => {
  it('writes a lifetime as start – end, digits grouped, one way for every kind of number', () => {
    expect(span(138240n, 169984n)).toBe('138,240 – 169,984');
    expect(span(0, 3)).toBe('0 – 3');
    expect(span('18446744073709551615', '18446744073709551616')).toBe('18,446,744,073,709,551,615 – 18,446,744,073,709,551,616');
  });
});
