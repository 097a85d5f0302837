// tsc emits no .d.ts of its own for src/generated/*.d.ts: copy them beside the compiled client.
import { cp } from 'node:fs/promises';

await cp(
  new URL('../src/generated/', import.meta.url),
  new URL('../dist/generated/', import.meta.url),
  {
    recursive: true,
  },
);
