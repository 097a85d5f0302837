import { expect, it } from 'vitest';

import {
  documentedOperations,
  type IsolationCase,
  type IsolationWorld,
} from '../security/isolation-cases.js';
import type { OpenApiDocument } from '../openapi/openapi-response-checker.js';

/**
 * An API's isolation cases, each a test, after the test that they match its documented
 * operations one for one (a newly documented route without a case fails it).
 */
export function isolationTests<World extends IsolationWorld>(
  cases: readonly IsolationCase<World>[],
  api: () => { world: World; document: OpenApiDocument },
): void {
  it('when a route is documented, then it has an isolation case', () => {
    // Assert
    const operations = documentedOperations(api().document);
    const covered = new Set(cases.map((c) => c.operation));
    expect(operations.filter((operation) => !covered.has(operation))).toEqual([]);
    expect(cases.filter((c) => !operations.includes(c.operation))).toEqual([]);
  });

  it.each(cases.map((c) => [c.operation, c.name, c] as const))(
    '%s: %s',
    async (_operation, _name, isolationCase) => {
      await isolationCase.run(api().world);
    },
  );
}
