import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// The embedded development chain relays writes (transactions, hardhat_*, evm_*) only to the
// Trustpoint service that runs it: its accounts are unlocked and its keys are public, so anyone else
// who can reach the chain port could register trustpoints in the instance's registries. The service
// proves itself with this secret, kept in the chain's data directory (which the roles of a compose
// deployment share), and sent in a header rather than the URL: node URLs are published and logged.

/** The file, in the chain's data directory, that holds its write credential. */
export const CHAIN_WRITE_KEY_FILE = 'write-key';

const KEY_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The chain's write credential (32 random bytes, hex), created with mode 0600 on the first call for
 * a data directory and read on every later one. Created whole under a temporary name and linked in
 * place, so two starts at once never disagree and no reader sees half a key.
 */
export async function ensureChainWriteKey(chainDataDir: string): Promise<string> {
  const existing = await readChainWriteKey(chainDataDir);
  if (existing !== undefined) return existing;
  await mkdir(chainDataDir, { recursive: true });
  const path = join(chainDataDir, CHAIN_WRITE_KEY_FILE);
  const draft = `${path}.${String(process.pid)}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, path);
  } catch (error) {
    // Another start linked its key first: that one is the chain's.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(draft, { force: true });
  }
  const key = await readChainWriteKey(chainDataDir);
  if (key === undefined) throw new Error(`${path} holds no write key`);
  return key;
}

/** The chain's write credential, or undefined when its data directory holds none (yet). */
export async function readChainWriteKey(chainDataDir: string): Promise<string | undefined> {
  const path = join(chainDataDir, CHAIN_WRITE_KEY_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const key = text.trim();
  if (!KEY_PATTERN.test(key)) {
    throw new Error(
      `${path} does not hold a chain write key (64 hex characters): delete it, and the chain makes a new one at its next start`,
    );
  }
  return key;
}

/** The HTTP headers that carry the credential to the chain: never put them in a URL or a log. */
export function chainWriteHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
