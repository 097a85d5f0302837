// The bodies the load clients send, built afresh for each request.
import { randomUUID } from 'node:crypto';
import type { LoadBody } from './http-load.js';

/** Request `index`'s body: a content certificate of its own, or an evidence's metadata. */
export function requestBody(kind: LoadBody, index: number): unknown {
  if (kind === 'content-certificate') {
    return {
      name: 'Invoice',
      description: 'Benchmark certificate',
      content: { invoice: randomUUID(), amount: 100 },
    };
  }
  return { metadata: { reading: index, sensor: { kind: 'temperature', celsius: 4.5 } } };
}
