import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateSigningKey } from '@trustpoint/cert-api';
import { createUser, findUserAccount, savePlan, updateUser, type Queryable } from '@trustpoint/db';
import { mintAccessToken } from '@trustpoint/http';
import { RoleConfigError } from './role-config-error.js';

/** The user the embedded set-up creates, so a newcomer can call the APIs at once. */
export const LOCAL_USER_ID = 'local-admin';
export const LOCAL_PLAN_ID = 'local';
const LOCAL_CREDITS = 1_000_000;
/** 30 days, in seconds. */
const TOKEN_TTL_SECONDS = 30 * 24 * 3_600;

export interface Secrets {
  jwtSecret: string;
  /** Key that seals certificate PINs (32 bytes, base64url). */
  pinKey: string;
  /** Private key of qualified signatures (PKCS#8 PEM); SIGNING_KEY replaces it. */
  signingKey: string;
}

/**
 * The secrets of the embedded set-up, made on first start and kept (mode 0600) in the data
 * directory, so tokens, PINs and webhook secrets stay valid across restarts. `given` ones (from
 * TRUSTPOINT_JWT_SECRET and TRUSTPOINT_PIN_KEY) take their place, for processes on several hosts.
 */
export async function loadOrCreateSecrets(
  path: string,
  given: { jwtSecret?: string; pinKey?: string } = {},
): Promise<Secrets> {
  return { ...(await secretsFile(path)), ...given };
}

/**
 * The secrets file as it is, or made on a first start. A file that is there but not usable (not
 * JSON, a `jwtSecret` under 32 characters, no `pinKey`) stops the start naming what is wrong: it is
 * never replaced, as new secrets would make every stored PIN and webhook secret unreadable and
 * every signature made with its key unverifiable.
 */
async function secretsFile(path: string): Promise<Secrets> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return createSecrets(path, newSecrets());
  }
  let secrets: Partial<Secrets> | null;
  try {
    secrets = JSON.parse(text) as Partial<Secrets> | null;
  } catch (error) {
    throw unusableSecrets(path, `it is not JSON (${(error as Error).message})`);
  }
  if (typeof secrets !== 'object' || secrets === null) {
    throw unusableSecrets(path, 'it is not a JSON object');
  }
  if (typeof secrets.jwtSecret !== 'string' || secrets.jwtSecret.length < 32) {
    throw unusableSecrets(path, 'its jwtSecret is not a string of 32 characters or more');
  }
  if (typeof secrets.pinKey !== 'string') {
    throw unusableSecrets(path, 'it has no pinKey');
  }
  const kept = { jwtSecret: secrets.jwtSecret, pinKey: secrets.pinKey };
  if (typeof secrets.signingKey === 'string') return { ...kept, signingKey: secrets.signingKey };
  // A file from before signatures: add the key, keeping the secrets tokens and PINs rely on.
  return await writeSecrets(path, { ...kept, signingKey: generateSigningKey() });
}

const unusableSecrets = (path: string, problem: string) =>
  new RoleConfigError(
    `${path}: ${problem}. Put back the file as it was (from a backup), or fix that value: it is not replaced, as new secrets would make every stored PIN and webhook secret unreadable and the qualified signatures made with its key unverifiable`,
  );

const newSecrets = (): Secrets => ({
  jwtSecret: randomBytes(32).toString('base64url'),
  pinKey: randomBytes(32).toString('base64url'),
  signingKey: generateSigningKey(),
});

/**
 * Creates the secrets file unless another process starting at the same time (several roles on one
 * data directory) did first: its secrets win, so every process signs and checks with the same.
 * The file appears complete or not at all (written aside, then linked into place).
 */
async function createSecrets(path: string, secrets: Secrets): Promise<Secrets> {
  await mkdir(dirname(path), { recursive: true });
  const aside = `${path}.${String(process.pid)}.${randomBytes(4).toString('hex')}`;
  await writeFile(aside, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  try {
    await link(aside, path);
    return secrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return await secretsFile(path);
  } finally {
    await rm(aside, { force: true });
  }
}

/** Replaces the secrets file whole: written aside, then renamed into place. */
async function writeSecrets(path: string, secrets: Secrets): Promise<Secrets> {
  await mkdir(dirname(path), { recursive: true });
  const aside = `${path}.${String(process.pid)}.${randomBytes(4).toString('hex')}`;
  await writeFile(aside, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  await rename(aside, path);
  return secrets;
}

/**
 * Makes sure the local user exists, may use every configured network, has credits and is an
 * admin (a data directory from before roles gets the role on its next start). A local user an
 * admin has disabled stays disabled.
 */
export async function ensureLocalUser(db: Queryable, networkIds: string[]): Promise<void> {
  await savePlan(db, { id: LOCAL_PLAN_ID, name: 'Local development', networkIds });
  const existing = await findUserAccount(db, LOCAL_USER_ID);
  if (existing === undefined) {
    await createUser(db, {
      id: LOCAL_USER_ID,
      displayName: 'Local administrator',
      planId: LOCAL_PLAN_ID,
      qualified: true,
      role: 'admin',
      initialCredits: LOCAL_CREDITS,
    });
  } else if (existing.role !== 'admin') {
    await updateUser(db, LOCAL_USER_ID, { role: 'admin' });
  }
}

/** A service token for the user (the local administrator by default), valid 30 days. */
export function mintLocalToken(secret: string, subject = LOCAL_USER_ID): Promise<string> {
  return mintAccessToken(secret, { subject, ttlSeconds: TOKEN_TTL_SECONDS });
}
