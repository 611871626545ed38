import { describe, expect, it } from 'vitest';
import { formatNumber, markdownTable, median, percentile, textTable } from './table.ts';

describe('median', () => {
  it('takes the middle value of an odd count whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
  });

  it('averages the middle two of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('is NaN for no values', () => {
    expect(median([])).toBeNaN();
  });
});

describe('percentile', () => {
  it('takes the nearest rank: the p99 of 100 values is the 99th, of 10 the largest', () => {
    const hundred = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile([3, 9, 1, 7, 5, 2, 8, 4, 6, 10], 99)).toBe(10);
  });

  it('is NaN for no values', () => {
    expect(percentile([], 99)).toBeNaN();
  });
});

describe('tables', () => {
  it('formats numbers with separators and a dash for missing ones', () => {
    expect(formatNumber(12345.678, 1)).toBe('12,345.7');
    expect(formatNumber(Number.NaN)).toBe('-');
    expect(formatNumber(undefined)).toBe('-');
  });

  it('aligns a text table under its header', () => {
    expect(
      textTable([
        ['name', 'rps'],
        ['raw', '100'],
      ]),
    ).toBe('name  rps\n----  ---\nraw   100');
  });

  it('renders a markdown table and escapes pipes', () => {
    expect(
      markdownTable([
        ['a', 'b'],
        ['x|y', '1'],
      ]),
    ).toBe('| a | b |\n| --- | --- |\n| x\\|y | 1 |');
  });
});
