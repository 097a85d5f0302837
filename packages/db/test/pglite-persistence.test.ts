import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, findPlan, savePlan } from '../src/index.js';
import { uniqueId } from './test-data.js';

describe('embedded PGlite in a data directory', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = join(await mkdtemp(join(tmpdir(), 'trustpoint-db-')), 'pgdata');
  });

  afterEach(async () => {
    await rm(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('when the database is closed and reopened, then its data is still there', async () => {
    // Arrange
    const id = uniqueId('plan');
    const first = await createDatabase({ dataDir });
    await savePlan(first.knex, { id, name: 'Kept', networkIds: ['31337'] });
    await first.close();

    // Act
    const second = await createDatabase({ dataDir });
    const plan = await findPlan(second.knex, id);
    await second.close();

    // Assert
    expect(second.backend).toBe('pglite');
    expect(plan).toEqual({ id, name: 'Kept', networkIds: ['31337'] });
  });
});
