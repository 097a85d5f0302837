import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex } from '@noble/hashes/utils';

import type { JsonRpcOptions } from '../rpc/json-rpc-nodes.js';
import { jsonRpcCall } from '../rpc/json-rpc-call.js';

/**
 * The twenty accounts of the development mnemonic `test test ... junk` that Hardhat funds by
 * default (Anvil and Ganache the first ten), and that the embedded chain of `trustpoint start` deploys and anchors
 * with. Anybody holds their keys: a registry one of them administers or writes to proves nothing,
 * except on the machine whose own `trustpoint start` pinned it.
 */
export const DEVELOPMENT_ACCOUNTS: readonly string[] = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
  '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955',
  '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
  '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
  '0xBcd4042DE499D14e55001CcbB24a551F3b954096',
  '0x71bE63f3384f5fb98995898A86B02Fb2426c5788',
  '0xFABB0ac9d68B0B445fB7357272Ff202C5651694a',
  '0x1CBd3b2770909D4e10f157cABC84C7264073C9Ec',
  '0xdF3e18d64BC6A983f673Ab319CCaE4f1a57C7097',
  '0xcd3B766CCDd6AE721141F452C550Ca635964ce71',
  '0x2546BcD3c84621e976D8185a91A922aE77ECEc30',
  '0xbDA5747bFD65F08deb54cb465eB87D40e51B197E',
  '0xdD2FD4581271e230360230F9337D5c0430Bf44C0',
  '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199',
];

/** `RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)`. */
const ROLE_GRANTED_TOPIC = `0x${bytesToHex(keccak_256(new TextEncoder().encode('RoleGranted(bytes32,address,address)')))}`;

const DEVELOPMENT = new Set(DEVELOPMENT_ACCOUNTS.map((account) => account.toLowerCase()));

/** `hasRole(bytes32,address)` of OpenZeppelin's AccessControl. */
const HAS_ROLE_SELECTOR = '91d14854';
const DEFAULT_ADMIN_ROLE = '00'.repeat(32);
const REGISTRAR_ROLE = bytesToHex(keccak_256(new TextEncoder().encode('REGISTRAR_ROLE')));

const hasRoleCall = (role: string, account: string): string =>
  `0x${HAS_ROLE_SELECTOR}${role}${account.slice(2).toLowerCase().padStart(64, '0')}`;

/**
 * Why a registry cannot be trusted as far as its roles go, checked through the node that answered
 * for it: a development account administers or writes to it, or it does not answer `hasRole` as
 * every Trustpoint registry does (a forger's few bytes answer what they like, and a check that
 * cannot be made counts as failed). `undefined` when no development account holds a role. Cached
 * per node and registry within one verification.
 */
export class DevelopmentAccountCheck {
  readonly #options: JsonRpcOptions;
  readonly #checked = new Map<string, Promise<string | undefined>>();

  constructor(options: JsonRpcOptions) {
    this.#options = options;
  }

  problem(url: string, registry: string): Promise<string | undefined> {
    const key = `${url}\n${registry.toLowerCase()}`;
    let checking = this.#checked.get(key);
    if (checking === undefined) {
      checking = this.#find(url, registry);
      this.#checked.set(key, checking);
    }
    return checking;
  }

  async #find(url: string, registry: string): Promise<string | undefined> {
    // Its history first: a development account that ever granted or received one of its roles
    // could have handed them to anybody before giving them up, so the registry proves nothing.
    const history = await this.#roleHistory(url, registry);
    if (history !== undefined) return history;
    for (const account of DEVELOPMENT_ACCOUNTS) {
      for (const role of [DEFAULT_ADMIN_ROLE, REGISTRAR_ROLE]) {
        let result: unknown;
        try {
          result = await jsonRpcCall(
            url,
            'eth_call',
            [{ to: registry, data: hasRoleCall(role, account) }, 'latest'],
            this.#options,
          );
        } catch (error) {
          return `it could not be asked who holds its roles (hasRole: ${error instanceof Error ? error.message : String(error)}), as a Trustpoint registry can be`;
        }
        if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(result)) {
          return `it does not answer hasRole as a Trustpoint registry does (it answered ${JSON.stringify(result).slice(0, 80)})`;
        }
        if (/^0x0{63}1$/.test(result)) {
          return `it is held by the well-known development account ${account} (${role === DEFAULT_ADMIN_ROLE ? 'admin' : 'registrar'}), whose key anybody has`;
        }
        if (!/^0x0{64}$/.test(result)) {
          return `it does not answer hasRole as a Trustpoint registry does (it answered ${result})`;
        }
      }
    }
    return undefined;
  }

  /**
   * Why the registry's role grants rule it out (a development account granted or received a
   * role, in any block), or undefined: none did, or the node would not tell (a range too long
   * for a public endpoint), when its roles of now are still asked.
   */
  async #roleHistory(url: string, registry: string): Promise<string | undefined> {
    let logs: unknown;
    try {
      logs = await jsonRpcCall(
        url,
        'eth_getLogs',
        [{ address: registry, topics: [ROLE_GRANTED_TOPIC], fromBlock: '0x0', toBlock: 'latest' }],
        this.#options,
      );
    } catch {
      return undefined;
    }
    if (!Array.isArray(logs)) return undefined;
    for (const log of logs as { topics?: unknown; blockNumber?: unknown }[]) {
      const topics = Array.isArray(log.topics) ? (log.topics as unknown[]) : [];
      const [, role, account, sender] = topics.map((topic) =>
        typeof topic === 'string' ? topic : '',
      );
      const named = [account, sender].map((topic) => `0x${(topic ?? '').slice(-40)}`.toLowerCase());
      const held = named.find((address) => DEVELOPMENT.has(address));
      if (held !== undefined) {
        const which = role === `0x${DEFAULT_ADMIN_ROLE}` ? 'admin' : 'a';
        const block =
          typeof log.blockNumber === 'string' ? ` in block ${String(Number(log.blockNumber))}` : '';
        return `it was in the hands of the well-known development account ${held} (${which} role granted or received${block}), whose key anybody has: it could have handed its roles to anyone`;
      }
    }
    return undefined;
  }
}
