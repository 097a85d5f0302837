import { describe, expect, it } from 'vitest';
import { ShortOfCredit } from '../src/index.js';

describe('ShortOfCredit', () => {
  it('when a user is marked, then a group holding them is short until the period ends, and others never', async () => {
    // Arrange
    const short = new ShortOfCredit(50);

    // Act
    short.mark('alice');
    const during = [short.any(['bob', 'alice']), short.any(['bob']), short.any([])];
    await new Promise((resolve) => setTimeout(resolve, 80));
    const after = short.any(['alice']);

    // Assert
    expect(during).toEqual([true, false, false]);
    expect(after).toBe(false);
  });
});
