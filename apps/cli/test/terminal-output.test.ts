import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { safeForTerminal } from '../src/program.js';
import { trustpoint } from './support/cli-fixture.js';

/**
 * A forged content certificate saved to a file: its hash is not its content's, its issuer is
 * `issuer`, its one Evidence has `trustpoint`'s members besides its own.
 */
async function savedForgery(
  certID: string,
  issuer: string,
  trustpoint: Record<string, unknown> = {},
  data: Record<string, unknown> = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'trustpoint-terminal-'));
  const path = join(dir, 'forged.json');
  await writeFile(
    path,
    JSON.stringify({
      certID,
      data: {
        type: 'content',
        name: 'Diploma',
        description: '',
        issuer,
        issuedOn: 1_700_000_000_000,
        hash: '0'.repeat(64),
        content: { grade: 'A' },
        ...data,
      },
      metadata: [
        {
          type: 'Evidence',
          networkId: '31337',
          timestamp: 1_700_000_000_000,
          trustPointHash: '0'.repeat(64),
          ...trustpoint,
        },
      ],
    }),
  );
  return path;
}

describe('what the command prints to a terminal', () => {
  it('when a text holds terminal controls, then they are written out as escapes, newlines and tabs kept', () => {
    expect(safeForTerminal('a\u001b[2K\rb\u009bc\u202ed\te\n')).toBe(
      'a\\u001b[2K\\u000db\\u009bc\\u202ed\te\n',
    );
  });

  it('when a text holds invisible characters, then they are written out as the web verifier writes them', () => {
    // An issuer domain with a zero-width space looks like the genuine one; tag characters hide text.
    expect(safeForTerminal('exam\u200bple.org Alice\u{e0068}')).toBe(
      'exam\\u200bple.org Alice\\udb40\\udc68',
    );
  });

  it("when a forged certificate's issuer holds an escape sequence that redraws the line as VERIFIED, then the output carries no control character and the exit code stays the verdict's", async () => {
    // Arrange: a content certificate whose hash is not its content's, whose issuer would clear
    // the line and print a verdict of its own.
    const path = await savedForgery(
      'did:trustpoint:certid:0194d7a0-0000-7000-8000-000000000001',
      'did:user:x\u001b[2K\r\u001b[1A\u001b[2KVerdict: VERIFIED',
    );

    // Act
    const result = await trustpoint(['verify', path, '--rpc', '31337=http://127.0.0.1:9']);

    // Assert
    expect(result.code).toBe(EXIT.mismatch);
    expect(result.stdout).toContain('\\u001b[2K');
    // eslint-disable-next-line no-control-regex
    expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it("when a forged certificate's issuer holds line breaks and a verdict line of its own, then it stays on its line and the only verdict printed is MISMATCH", async () => {
    // Arrange: eighty newlines push the real verdict off the screen, then a verdict of its own.
    const fake = `${'\n'.repeat(80)}Verdict: VERIFIED: every record is on chain and matches\r\nIssued by: you\u2028`;
    const path = await savedForgery(
      'did:trustpoint:certid:0194d7a0-0000-7000-8000-000000000002',
      `did:user:x${fake}`,
      { smartContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
    );

    // Act
    const result = await trustpoint(['verify', path, '--rpc', '31337=http://127.0.0.1:9']);

    // Assert
    const verdicts = result.stdout.split('\n').filter((line) => line.startsWith('Verdict:'));
    expect(result.code).toBe(EXIT.mismatch);
    expect(verdicts).toEqual([expect.stringContaining('Verdict: MISMATCH')]);
    expect(result.stdout).toContain('did:user:x\\n\\n');
    expect(result.stdout).not.toContain('\u2028');
    expect(result.stdout.split('\n').length).toBeLessThan(40);
  });

  it('when a copy claims times no date can name, then they are printed as numbers said to be so and the verdict is told', async () => {
    // Arrange: an expiry and a trustpoint time past year 275760 (the last a date can name).
    const path = await savedForgery(
      'did:trustpoint:certid:0194d7a0-0000-7000-8000-000000000003',
      'did:user:x',
      { timestamp: 8_640_000_000_000_001 },
      { expires: Number.MAX_SAFE_INTEGER },
    );

    // Act
    const result = await trustpoint(['verify', path, '--rpc', '31337=http://127.0.0.1:9']);

    // Assert
    expect(result.stderr).not.toContain('RangeError');
    expect(result.code).toBe(EXIT.mismatch);
    expect(result.stdout).toContain(
      `Expires: ${String(Number.MAX_SAFE_INTEGER)} ms since the epoch (no date)`,
    );
  });
});
