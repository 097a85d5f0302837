import { describe, expect, it } from 'vitest';
import { parseInt8 } from '../src/index.js';

describe('parseInt8', () => {
  it('when the value is a safe integer, then it returns that number', () => {
    // Arrange
    const texts = ['0', '-42', '1732252800000', '9007199254740991'];

    // Act
    const values = texts.map(parseInt8);

    // Assert
    expect(values).toEqual([0, -42, 1732252800000, Number.MAX_SAFE_INTEGER]);
  });

  it('when the value does not fit in a safe integer, then it throws instead of rounding', () => {
    // Arrange
    const text = '9007199254740993';

    // Act
    const parse = () => parseInt8(text);

    // Assert
    expect(parse).toThrow(RangeError);
  });
});
