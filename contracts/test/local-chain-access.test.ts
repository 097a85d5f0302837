// Anyone may read the embedded chain; only the service that runs it (the holder of its write key)
// may send it transactions or rewrite its state.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { JsonRpcProvider, JsonRpcSigner, Wallet } from 'ethers';
import {
  chainWriteHeaders,
  HARDHAT_DEV_KEY,
  type TrustpointDeployment,
} from '@trustpoint/registry-abi';
import { chainWriterProvider } from '../src/chain-writer';
import { deployTrustpoint } from '../src/deploy';
import { freePort } from '../src/free-port';
import { startLocalChain, type LocalChain } from '../src/local-chain';
import { TrustPointBatchRegistry__factory } from '../typechain-types';
import { digest, recordKey } from './fixtures';

const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const STRANGER = '0x000000000000000000000000000000000000dEaD';
const REFUSED = /refused: the embedded chain takes transactions only from the Trustpoint service/;

interface Reply {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

describe('Local chain access', function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let dataDir: string;
  let deployment: TrustpointDeployment;
  let signedTransfer: string;

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(chain.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Reply | Reply[];
  };
  const call = async (method: string, params: unknown[], headers?: Record<string, string>) =>
    (await post({ jsonrpc: '2.0', id: 1, method, params }, headers)) as Reply;
  /** What a refused write must leave as it was. */
  const state = async () => ({
    block: (await call('eth_blockNumber', [])).result,
    nonce: (await call('eth_getTransactionCount', [ACCOUNT_0, 'latest'])).result,
    balance: (await call('eth_getBalance', [STRANGER, 'latest'])).result,
    slot: (await call('eth_getStorageAt', [deployment.trustPointRegistry, '0x0', 'latest'])).result,
  });

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-access-'));
    chain = await startLocalChain({ dataDir, port: await freePort() });
    const provider = chainWriterProvider(chain.url, chain.writeHeaders);
    try {
      deployment = await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider));
      const wallet = new Wallet(HARDHAT_DEV_KEY);
      const nonce = await provider.getTransactionCount(wallet.address);
      signedTransfer = await wallet.signTransaction({
        to: STRANGER,
        value: 1n,
        nonce,
        gasLimit: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
        chainId: 31337n,
        type: 2,
      });
    } finally {
      provider.destroy();
    }
  });
  after(async () => {
    await chain.stop();
  });

  const writes: [string, () => unknown[]][] = [
    [
      'eth_sendTransaction from account #0',
      () => [{ from: ACCOUNT_0, to: STRANGER, value: '0x1' }],
    ],
    ['eth_sendRawTransaction signed with the public key of account #0', () => [signedTransfer]],
    [
      'hardhat_setStorageAt on the registry',
      () => [deployment.trustPointRegistry, '0x0', `0x${'11'.repeat(32)}`],
    ],
    ['evm_mine', () => []],
  ];

  describe('when a request does not carry the write key', () => {
    it('should answer reads', async () => {
      // Act
      const chainId = await call('eth_chainId', []);
      const code = await call('eth_getCode', [deployment.trustPointRegistry, 'latest']);

      // Assert
      expect(chainId.result).to.equal('0x7a69');
      expect(code.result).to.match(/^0x[0-9a-f]{10,}$/);
    });

    for (const [label, params] of writes) {
      it(`should refuse ${label} and change nothing`, async () => {
        // Arrange
        const method = label.split(' ')[0] ?? '';
        const before = await state();

        // Act
        const reply = await call(method, params());

        // Assert
        expect(reply.error?.code).to.equal(-32601);
        expect(reply.error?.message).to.match(REFUSED);
        expect(await state()).to.deep.equal(before);
      });
    }

    it('should refuse a batch that mixes a read and a write, answering each call', async () => {
      // Arrange
      const before = await state();

      // Act
      const replies = (await post([
        { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_sendTransaction', params: writes[0]?.[1]() },
      ])) as Reply[];

      // Assert
      expect(replies.map((reply) => reply.id)).to.deep.equal([1, 2]);
      for (const reply of replies) expect(reply.error?.message).to.match(REFUSED);
      expect(await state()).to.deep.equal(before);
    });

    it('should refuse a batch of more reads than a verifier sends, and a body over 1 MiB, and still answer a batch of 100', async () => {
      // Arrange: one anonymous batch of 200,000 calls kept the node busy for minutes.
      const batch = (size: number) =>
        Array.from({ length: size }, (_unused, id) => ({
          jsonrpc: '2.0',
          id,
          method: 'eth_chainId',
          params: [],
        }));

      // Act
      const tooMany = (await post(batch(101))) as Reply;
      const tooLarge = (await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ to: STRANGER, data: `0x${'00'.repeat(600_000)}` }, 'latest'],
      })) as Reply;
      const hundred = (await post(batch(100))) as Reply[];

      // Assert
      expect(tooMany.error?.code).to.equal(-32600);
      expect(tooMany.error?.message).to.contain('at most 100 calls');
      expect(tooLarge.error?.message).to.contain('too large');
      expect(hundred).to.have.length(100);
      expect(hundred.every((reply) => reply.result === '0x7a69')).to.equal(true);
    });

    it('should refuse a forged registerTrustPoint from the registries admin account', async () => {
      // Arrange
      const provider = new JsonRpcProvider(chain.url, undefined, {
        staticNetwork: true,
        cacheTimeout: -1,
      });
      const registry = TrustPointBatchRegistry__factory.connect(
        deployment.trustPointRegistry,
        new JsonRpcSigner(provider, ACCOUNT_0),
      );
      const key = recordKey('did:trustpoint:certid:forged', 1);
      const before = await state();

      // Act
      let refusal: unknown;
      try {
        await registry.registerTrustPoint(key, digest('forged').word, 0, 1, { gasLimit: 500_000 });
      } catch (error) {
        refusal = error;
      } finally {
        provider.destroy();
      }

      // Assert
      expect(String(refusal)).to.match(REFUSED);
      expect(await state()).to.deep.equal(before);
    });

    it('should refuse a write with a wrong key', async () => {
      // Act
      const reply = await call('evm_mine', [], chainWriteHeaders('ab'.repeat(32)));

      // Assert
      expect(reply.error?.message).to.match(REFUSED);
    });

    it('should refuse a call whose method is named twice, by the name the node would read', async () => {
      // Arrange: JSON.parse, the node's reader, keeps the last of two members of one name.
      const body = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","method":"evm_mine"}';

      // Act
      const response = await fetch(chain.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });

      // Assert
      expect(((await response.json()) as Reply).error?.message).to.match(REFUSED);
    });
  });

  describe('when a web page sends the write key', () => {
    it('should still only let it read', async () => {
      // Act
      const reply = await call('evm_mine', [], {
        ...chain.writeHeaders,
        origin: 'http://page.example',
      });

      // Assert
      expect(reply.error?.code).to.equal(-32601);
      expect(reply.error?.message).to.match(/not available to web pages/);
    });
  });

  describe('when a request carries the write key', () => {
    it('should relay every write', async () => {
      // Arrange
      const before = await state();

      // Act
      const raw = await call('eth_sendRawTransaction', [signedTransfer], chain.writeHeaders);
      const sent = await call('eth_sendTransaction', writes[0]?.[1]() ?? [], chain.writeHeaders);
      const storage = await call(
        'hardhat_setStorageAt',
        writes[2]?.[1]() ?? [],
        chain.writeHeaders,
      );
      const mined = await call('evm_mine', [], chain.writeHeaders);
      const batch = (await post(
        [
          { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
          { jsonrpc: '2.0', id: 2, method: 'evm_mine', params: [] },
        ],
        chain.writeHeaders,
      )) as Reply[];

      // Assert
      for (const reply of [sent, raw, storage, mined, ...batch])
        expect(reply.error).to.equal(undefined);
      const after = await state();
      expect(Number(after.block)).to.equal(Number(before.block) + 4);
      expect(Number(after.nonce)).to.equal(Number(before.nonce) + 2);
      expect(BigInt(after.balance as string)).to.equal(BigInt(before.balance as string) + 2n);
      expect(after.slot).to.equal(`0x${'11'.repeat(32)}`);
    });
  });

  describe('when an operator deploys a next generation with the deploy script', () => {
    const deployScript = join(__dirname, '..', 'dist', 'scripts', 'deploy.js');
    const deploy = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [deployScript, '--force', '--out', join(dataDir, 'next-deployments.json')],
          { env: { ...process.env, RPC_URL: chain.url, ...env } },
          (error, stdout, stderr) => {
            resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr });
          },
        );
      });

    it('should deploy with RPC_AUTHORIZATION holding the write key, and without it say the chain refused, in its own words', async () => {
      // Act
      const refused = await deploy({});
      const deployed = await deploy({ RPC_AUTHORIZATION: chain.writeHeaders.authorization ?? '' });

      // Assert
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(REFUSED);
      expect(deployed.code, deployed.stderr).to.equal(0);
      expect(deployed.stdout).to.contain('registries deployed');
      const next = JSON.parse(
        await readFile(join(dataDir, 'next-deployments.json'), 'utf8'),
      ) as Record<string, TrustpointDeployment>;
      const nextRegistry = next['31337']?.trustPointRegistry;
      expect(nextRegistry).to.match(/^0x[0-9a-fA-F]{40}$/);
      expect(nextRegistry).to.not.equal(deployment.trustPointRegistry);
    });
  });

  describe('when a local process goes around the relay to the node behind it', () => {
    /** A request straight to the node, as any local user could send it once `ss -ltn` shows the port. */
    const callNode = async (method: string, params: unknown[], headers = {}) =>
      fetch(chain.nodeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });

    for (const [label, params] of writes) {
      it(`should refuse ${label} with 401 and change nothing`, async () => {
        // Arrange
        const method = label.split(' ')[0] ?? '';
        const before = await state();

        // Act
        const response = await callNode(method, params());

        // Assert
        expect(response.status).to.equal(401);
        expect(await response.text()).to.equal('');
        expect(await state()).to.deep.equal(before);
      });
    }

    it('should refuse reads too, and the chain write key, which is the relay’s and not the node’s', async () => {
      // Act
      const read = await callNode('eth_blockNumber', []);
      const withWriteKey = await callNode('evm_mine', [], chain.writeHeaders);

      // Assert
      expect(new URL(chain.nodeUrl).hostname).to.equal('127.0.0.1');
      expect(read.status).to.equal(401);
      expect(withWriteKey.status).to.equal(401);
    });

    it('should leave the journal whole: the chain starts again with every relayed write', async () => {
      // Arrange: a transaction from account #0 sent straight to the node would take a nonce the
      // journal never saw; the service's next one, signed with the nonce after, could then never
      // be replayed ("Nonce too high").
      const around = await callNode('eth_sendTransaction', writes[0]?.[1]() ?? []);
      const wallet = new Wallet(HARDHAT_DEV_KEY);
      const nonce = (await call('eth_getTransactionCount', [ACCOUNT_0, 'latest'])).result;
      const signed = await wallet.signTransaction({
        to: STRANGER,
        value: 1n,
        nonce: Number(nonce),
        gasLimit: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
        chainId: 31337n,
        type: 2,
      });
      const relayed = await call('eth_sendRawTransaction', [signed], chain.writeHeaders);
      // What the journal keeps: transactions (not `evm_mine`, `hardhat_setStorageAt`).
      const transacted = async () => {
        const { nonce: sent, balance } = await state();
        return { sent, balance };
      };
      const before = await transacted();
      await chain.stop();

      // Act
      chain = await startLocalChain({ dataDir, port: 0 });

      // Assert
      expect(around.status).to.equal(401);
      expect(relayed.error).to.equal(undefined);
      expect(await transacted()).to.deep.equal(before);
    });
  });

  describe('when the chain starts again on its data directory', () => {
    it('should keep the same write key, readable by its owner alone', async () => {
      // Arrange
      const first = chain.writeHeaders;
      await chain.stop();

      // Act
      chain = await startLocalChain({ dataDir, port: 0 });
      const mode = (await stat(join(dataDir, 'write-key'))).mode & 0o777;

      // Assert
      expect(chain.writeHeaders).to.deep.equal(first);
      expect(first.authorization).to.match(/^Bearer [0-9a-f]{64}$/);
      expect(mode).to.equal(0o600);
    });
  });
});
