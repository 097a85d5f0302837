import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { newAccountIdProblem } from './account-id.js';

describe('newAccountIdProblem', () => {
  it.each([
    ['.', 'only dots'],
    ['..', 'only dots'],
    ['a/b', '/, \\ or %'],
    ['a\\b', '/, \\ or %'],
    ['100%', '/, \\ or %'],
    ['', 'printable ASCII'],
    ['with space', 'printable ASCII'],
    ['josé', 'printable ASCII'],
    ['x'.repeat(201), 'printable ASCII'],
  ])('when the id is %j, then it is refused, saying why (%s)', (id, why) => {
    expect(newAccountIdProblem(id)).toContain(why);
  });

  it('when the id is printable ASCII, not only dots, without /, \\ or %, then it is accepted', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[\x21-\x7e]{1,200}$/).filter((id) => !/^\.+$|[/\\%]/.test(id)),
        (id) => newAccountIdProblem(id) === undefined,
      ),
    );
  });
});
