import { createReadStream } from 'node:fs';
import { createHash } from 'node:crypto';
import {
  combineTrust,
  compareTrustDocuments,
  hashFileStream,
  isHashHex,
  readCertificate,
  trustOfContracts,
  trustOfDocument,
  trustedIssuingOrigin,
  verifyCertificate,
  verifyEvidence,
  VerifierInputError,
  type FileHashes,
  type JSONWebKeySet,
  type PublicChain,
  type Trust,
} from '@trustpoint/verifier';
import type { Command } from 'commander';
import { resolveConnection } from '../admin/connection.js';
import { CliError, usageError } from '../cli-error.js';
import type { Io } from '../output.js';
import { cliErrorOf, serviceClient } from '../service-client.js';
import { SERVICE_TIMEOUT_HELP, serviceTimeoutMs } from '../service-timeout.js';
import {
  collect,
  LOCAL_CHAIN_ID,
  readNetworksFile,
  rpcUrlsOf,
  genesisHashesOf,
  trustedContractsOf,
} from './rpc-option.js';
import {
  fetchJson,
  isFile,
  readJsonFile,
  serviceOrigin,
  type ServiceOptions,
} from './record-source.js';
import { certifiedFields } from './certified-fields.js';
import { dnsResolverOf, dnsServersOf } from './dns-option.js';
import { verifierFetchOf } from './verifier-fetch.js';
import { publicEndpointsOf } from './public-endpoints-option.js';
import { certificateText, evidencesText, exitCodeOfVerdict } from './verification-output.js';
import {
  fetchTrustDocument,
  originOf,
  readTrustFile,
  trustFilePath,
  trustOfFile,
} from '../trust/trust-store.js';

interface VerifyOptions extends ServiceOptions {
  file?: string;
  rpc?: string[];
  networks?: string;
  contract?: string[];
  genesis?: string[];
  statusContract?: string[];
  issuer?: string[];
  issuerDocument: boolean;
  dnsServer?: string[];
  publicEndpoints?: string | boolean;
  jwks?: string;
  json: boolean;
}

interface VerifyEvidenceOptions {
  rpc?: string[];
  networks?: string;
  contract?: string[];
  genesis?: string[];
  issuer?: string[];
  publicEndpoints?: string | boolean;
  trackUrl?: string;
  token?: string;
  json: boolean;
}

const CERT_API_PATH = '/cert/v2';
const CERT_ID = /^did:[a-z0-9]+:certid:[^/?#\s]+$/;
const TRACK_ID = /^did:[a-z0-9]+:trackid:[^/?#\s]+$/;

const RPC_HELP = `JSON-RPC node to ask: URL (any network) or <networkId>=URL; repeat it to name several, all asked, whose answers must agree (env TRUSTPOINT_RPC, comma-separated); the nodes pinned with the origins you trust are asked too (trustpoint start pins its own chain's, on whatever port it runs); when nothing names a node for ${LOCAL_CHAIN_ID}, the local chain's is asked, http://$CHAIN_HOST:$CHAIN_PORT (127.0.0.1:8545), as trustpoint start runs it`;

const PUBLIC_ENDPOINTS_HELP =
  'for a network you give no node for, ask public endpoints of well-known chains (Ethereum, Sepolia, Polygon PoS, Arbitrum One, Base, OP Mainnet): a record counts only when endpoints of two operators, each proven on the pinned chain, agree; a file replaces the built-in list ({"chains": [{"name", "chainId", "genesisHash", "endpoints": [{"url", "operator"}]}]})';

const NETWORKS_HELP =
  'a networks file you keep (the service\'s format: {"networks": [{"networkId", "rpcUrl", "trustPointRegistry", "evidenceRepository", "statusRegistry", "genesisHash"}]}); its nodes are asked after those of --rpc, its registries are the only contracts accepted';

const CONTRACT_HELP =
  "a registry you trust, <networkId>=<0x address>, repeatable (a networks file's count too)";

const GENESIS_HELP =
  "the hash of block 0 of the chain your --contract pins of a network are on, <networkId>=<0x hash>, repeatable (a networks file's genesisHash too): a node of another chain with the same id is refused. Well-known chains' are built in; without it, any node answering the chain id is believed for a dev chain id such as 31337";

const STATUS_CONTRACT_HELP =
  'a status registry you trust, <networkId>=<0x address>, repeatable: where a revocation is read from the certID alone (an origin you trust publishes its own)';

const DNS_SERVER_HELP =
  "a DNS server to ask for the record proving the domain a certificate names as its issuer (_trustpoint.<domain> TXT) and for the address of an issuing origin whose document is read (connected to only when public), repeatable (env TRUSTPOINT_DNS_SERVERS, comma-separated; default the system's resolver)";

const ISSUER_DOCUMENT_HELP =
  "do not read the trust document of an issuing origin you do not trust (read by default, only for https origins with public names, to say whether it publishes the certificate's registry; it never makes the origin trusted)";

const ISSUER_HELP =
  'a service origin you trust for this run (https://...): its published trust document pins its registries; `trustpoint trust add <origin>` keeps it';

/**
 * The nodes to ask (--rpc first, then a networks file's, then the trust file's) and what is
 * trusted: the registries of --contract and a networks file, the origins of the trust file and of
 * --issuer. Never a contract because a record names it.
 */
async function trustedNetworks(
  options: {
    rpc?: string[];
    networks?: string;
    contract?: string[];
    statusContract?: string[];
    genesis?: string[];
    issuer?: string[];
    publicEndpoints?: string | boolean;
  },
  io: Io,
  registry: 'trustPointRegistry' | 'evidenceRepository',
): Promise<{
  rpc: ReturnType<typeof rpcUrlsOf>;
  trust: Trust;
  publicEndpoints?: readonly PublicChain[];
}> {
  const fromFile = options.networks === undefined ? [] : await readNetworksFile(options.networks);
  const trustFile = await readTrustFile(trustFilePath(io.env));
  const pinned = trustOfFile(trustFile);
  const publicEndpoints = await publicEndpointsOf(options.publicEndpoints);
  const rpc = rpcUrlsOf(
    options.rpc ?? [],
    io.env,
    [
      ...fromFile.flatMap(({ networkId, urls }) => urls.map((url) => ({ networkId, url }))),
      ...pinned.nodes,
    ],
    // Public endpoints given for the local chain's id are asked instead of guessing its port.
    !(publicEndpoints ?? []).some((chain) => String(chain.chainId) === LOCAL_CHAIN_ID),
  );
  const contracts = trustedContractsOf(
    options.contract ?? [],
    fromFile.map((network) => ({ networkId: network.networkId, address: network[registry] })),
  );
  const statusContracts =
    registry === 'trustPointRegistry'
      ? trustedContractsOf(
          options.statusContract ?? [],
          fromFile.map((network) => ({
            networkId: network.networkId,
            address: network.statusRegistry,
          })),
          '--status-contract',
        )
      : undefined;
  const genesis = {
    ...genesisOfPins(pinned.trust),
    ...genesisHashesOf(options.genesis ?? [], fromFile),
  };
  const issuers: Trust[] = [];
  for (const given of options.issuer ?? []) {
    const origin = originOf(given);
    const document = await fetchTrustDocument(origin);
    const pin = trustFile.origins.find((entry) => entry.document.origin === origin);
    const changes = pin === undefined ? [] : compareTrustDocuments(pin.document, document);
    const serious = changes.filter((change) => change.kind !== 'registryAdded');
    if (serious.length > 0) {
      io.stderr(
        `WARNING: the trust document of ${origin} CHANGED since you pinned it; the pinned one is used:\n${serious.map((change) => `  - ${change.detail}`).join('\n')}\n`,
      );
      continue;
    }
    issuers.push(trustOfDocument(document));
  }
  return {
    rpc,
    ...(publicEndpoints === undefined ? {} : { publicEndpoints }),
    trust: combineTrust(
      pinned.trust,
      ...issuers,
      contracts === undefined ? undefined : trustOfContracts(contracts, registry, 'you', genesis),
      statusContracts === undefined
        ? undefined
        : trustOfContracts(statusContracts, 'statusRegistry', 'you', genesis),
    ),
  };
}

const TRUST_NOTE = `
Only the nodes given with --rpc (or --networks, or pinned with an origin) are asked, with a raw eth_call,
and each must prove it is on the pinned chain (chain id and genesis block). With --public-endpoints, a
network you give no node for is read from public endpoints of its chain instead, and an answer counts
only when endpoints of two operators agree (PUBLIC ENDPOINTS DISAGREE otherwise). A registry is trusted only
when you pinned it (--contract, --networks) or an origin you trust publishes it (trustpoint trust add,
--issuer): never because the certificate names it. Times are the chain's (the block that wrote the record).
A certificate that names its issuing origin is VERIFIED only when you trust that origin (trustpoint trust
add, --issuer) and it publishes the registry; otherwise ISSUER NOT TRUSTED (exit 15), with the origin.
An http, loopback or private origin named in a certificate is never fetched, nor one whose name resolves
to a loopback, private, link-local or otherwise non-public address.
Whether a certificate was revoked is read from its certID alone in the status registry of each network
holding it (pinned with --status-contract or --networks, or published by an origin you trust), so a copy
saved before its revocation is found revoked; without one the verdict is REVOCATION NOT CHECKED.
Hashes are recomputed by the published rules (@trustpoint/verifier).`;

/** Hashes a file as it streams, with Node's native SHA-256 under the published rule. */
async function hashFile(path: string): Promise<FileHashes> {
  try {
    return await hashFileStream(createReadStream(path), {
      createSha256: () => createHash('sha256'),
    });
  } catch (error) {
    // A file that is not there, a folder, one not readable: the argument, not the service.
    if (typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
    throw usageError(`--file ${path}: ${(error as Error).message}`);
  }
}

/** The key set of qualified signatures: `--jwks` (URL or file), else the service's. */
async function loadJwks(
  given: string | undefined,
  origin: string,
  timeoutMs: number,
): Promise<{ jwks: JSONWebKeySet | undefined; source: string }> {
  const source = given ?? `${origin}${CERT_API_PATH}/.well-known/jwks.json`;
  try {
    const json = (await isFile(source))
      ? await readJsonFile(source)
      : await fetchJson(new URL(source), timeoutMs);
    return { jwks: json as JSONWebKeySet, source };
  } catch (error) {
    return {
      jwks: undefined,
      source: `${source} (not loaded: ${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

/**
 * Block 0 of each network your trust file pins with one genesis hash: a --contract pin of that
 * network without --genesis means that chain, not any chain answering its id.
 */
function genesisOfPins(trust: Trust): Record<string, string> {
  const hashes = new Map<string, Set<string>>();
  for (const network of trust.networks) {
    if (network.genesisHash === undefined) continue;
    const seen = hashes.get(network.networkId) ?? new Set<string>();
    seen.add(network.genesisHash.toLowerCase());
    hashes.set(network.networkId, seen);
  }
  return Object.fromEntries(
    [...hashes].flatMap(([networkId, seen]) =>
      seen.size === 1 ? [[networkId, [...seen][0] ?? '']] : [],
    ),
  );
}

function asUsageError(error: unknown): never {
  if (error instanceof VerifierInputError) throw usageError(error.message);
  throw error;
}

/** `trustpoint verify` and `trustpoint verify-evidence`: method 3 of the spec, by anyone. */
export function verifyCommands(program: Command, io: Io): void {
  program
    .command('verify')
    .description(
      "verify a certificate without trusting the service: recompute its hashes (and the file's), read every trustpoint with eth_call from the nodes you name, check a qualified signature",
    )
    .argument(
      '<certificate>',
      'a certificate JSON file (as GET /certificates/certID/{certID} answers it), or a certID to read a public certificate from the service (--url)',
    )
    .option(
      '--file <path>',
      'the certified file (file certificates; the bytes fetched, for URL ones)',
    )
    .option('--rpc <url>', RPC_HELP, collect)
    .option('--networks <file>', NETWORKS_HELP)
    .option('--contract <networkId=address>', CONTRACT_HELP, collect)
    .option('--status-contract <networkId=address>', STATUS_CONTRACT_HELP, collect)
    .option('--genesis <networkId=hash>', GENESIS_HELP, collect)
    .option('--issuer <origin>', ISSUER_HELP, collect)
    .option('--no-issuer-document', ISSUER_DOCUMENT_HELP)
    .option('--dns-server <host[:port]>', DNS_SERVER_HELP, collect)
    .option('--public-endpoints [file]', PUBLIC_ENDPOINTS_HELP)
    .option(
      '--url <url>',
      "the service's origin, only to read the certificate by its certID and the signature keys (env TRUSTPOINT_URL; default http://127.0.0.1:$CERT_API_PORT or :8080)",
    )
    .option('--pin <pin>', 'the PIN of a certificate that has one, when reading it by certID')
    .option('--token <jwt>', 'an access token, to read a private certificate of yours by certID')
    .option(
      '--jwks <url|file>',
      "the key set of qualified signatures (default the service's /cert/v2/.well-known/jwks.json)",
    )
    .option('--json', 'print the verification as JSON, for scripts', false)
    .addHelpText(
      'after',
      `${TRUST_NOTE}
${SERVICE_TIMEOUT_HELP}

Examples:
  trustpoint verify certificate.json --file contract.pdf --rpc 31337=http://127.0.0.1:8545
  trustpoint verify did:trustpoint:certid:0194... --url http://127.0.0.1:8080 --json`,
    )
    .action(async (argument: string, options: VerifyOptions) => {
      const origin = serviceOrigin(options, io.env);
      const timeoutMs = serviceTimeoutMs(io.env);
      const trusted = await trustedNetworks(options, io, 'trustPointRegistry');
      let certificate: unknown;
      if (await isFile(argument)) certificate = await readJsonFile(argument);
      else if (CERT_ID.test(argument)) {
        const service = serviceClient({
          certUrl: `${origin}${CERT_API_PATH}`,
          token: options.token ?? io.env.TRUSTPOINT_TOKEN,
          timeoutMs,
        });
        certificate = await service.cert
          .getCertificate(argument, options.pin === undefined ? {} : { pin: options.pin })
          .catch((error: unknown) =>
            cliErrorOf(error, `certificate ${argument}`, {
              404: 'the service knows no such certificate, or it is not public: its issuer reads it with --token (or TRUSTPOINT_TOKEN), a holder verifies the JSON they were given (trustpoint verify certificate.json)',
              403: 'the certificate has a PIN: give it with --pin',
            }),
          );
      } else throw usageError(`${argument} is neither a file nor a certID`);
      // A JSON the verifier cannot take (a copy listing more than MAX_CERTIFICATE_TRUSTPOINTS
      // trustpoints above all) is a usage error before a file is hashed or anything is fetched.
      let read: ReturnType<typeof readCertificate>;
      try {
        read = readCertificate(certificate);
      } catch (error) {
        asUsageError(error);
      }
      // Read by its certID, the SDK refused an answer naming another certID (a look-alike of a
      // forger's own, genuine and on chain) and one naming a member twice, as a file's is.
      const signed = read.metadata.some(
        (item) => item.type === 'Signature' && item.signature !== undefined,
      );
      const dnsServers = dnsServersOf(options.dnsServer ?? [], io.env);
      const file = options.file === undefined ? undefined : await hashFile(options.file);
      // The signature keys: yours (--jwks), else the issuing origin's when you trust it, else the
      // service's (--url), which cannot prove a signature wrong for another issuing origin.
      const keyOrigin = trustedIssuingOrigin(read, trusted.trust) ?? origin;
      const keys = signed ? await loadJwks(options.jwks, keyOrigin, timeoutMs) : undefined;

      const result = await verifyCertificate({
        certificate,
        ...(file === undefined ? {} : { file }),
        ...trusted,
        ...(keys?.jwks === undefined ? {} : { jwks: keys.jwks }),
        ...(keys?.jwks === undefined || options.jwks !== undefined
          ? {}
          : { jwksOrigin: keyOrigin }),
        readIssuerDocument: options.issuerDocument,
        resolveTxt: dnsResolverOf(dnsServers),
        // The nodes you named as they are; an issuing origin's document at a public address only.
        fetch: verifierFetchOf(trusted.rpc, trusted.publicEndpoints, dnsServers),
      }).catch(asUsageError);

      // `certified`: only what the hash covers; `claims`: what it shows without covering.
      io.stdout(
        `${options.json ? JSON.stringify({ ...result, ...certifiedFields(certificate, result.hash) }, null, 2) : certificateText(result, keys?.source, certificate)}\n`,
      );
      const code = exitCodeOfVerdict(result.verdict);
      if (code !== 0) throw new CliError(`certificate ${result.verdict}`, code);
    });

  program
    .command('verify-evidence')
    .description(
      'verify asset evidences without trusting the service: recompute the assetHash and each evidence hash, read each with eth_call (getEvidence) from the nodes you name',
    )
    .argument(
      '<evidence>',
      'an asset JSON file (GET /assets/{trackID}: every evidence is checked), one evidence with its assetHash and networkId, or a GET /evidences/{hash} answer; or a trackID or evidence hash to read from the tracking API (--track-url, with a token)',
    )
    .option('--rpc <url>', RPC_HELP, collect)
    .option('--networks <file>', NETWORKS_HELP)
    .option('--contract <networkId=address>', CONTRACT_HELP, collect)
    .option('--genesis <networkId=hash>', GENESIS_HELP, collect)
    .option('--issuer <origin>', ISSUER_HELP, collect)
    .option('--public-endpoints [file]', PUBLIC_ENDPOINTS_HELP)
    .option(
      '--track-url <url>',
      "the tracking API's origin, only to read the record (env TRUSTPOINT_TRACK_URL; default http://127.0.0.1:$TRACK_API_PORT or :8081)",
    )
    .option(
      '--token <jwt>',
      "an access token to read the asset (env TRUSTPOINT_TOKEN; default the local user's, left by a service started here)",
    )
    .option('--json', 'print the verification as JSON, for scripts', false)
    .addHelpText(
      'after',
      `${TRUST_NOTE}
${SERVICE_TIMEOUT_HELP}

Examples:
  trustpoint verify-evidence asset.json --rpc 31337=http://127.0.0.1:8545
  trustpoint verify-evidence did:trustpoint:trackid:0194... --json`,
    )
    .action(async (argument: string, options: VerifyEvidenceOptions) => {
      const trusted = await trustedNetworks(options, io, 'evidenceRepository');
      let evidence: unknown;
      if (await isFile(argument)) evidence = await readJsonFile(argument);
      else if (TRACK_ID.test(argument) || isHashHex(argument)) {
        const origin = serviceOrigin(
          {
            url:
              options.trackUrl ??
              io.env.TRUSTPOINT_TRACK_URL ??
              `http://127.0.0.1:${io.env.TRACK_API_PORT ?? '8081'}`,
          },
          io.env,
        );
        const { token, timeoutMs } = await resolveConnection(
          { url: origin, token: options.token },
          io.env,
        );
        const { track } = serviceClient({ trackUrl: `${origin}/track/v2`, token, timeoutMs });
        // The SDK refuses another asset or evidence than the one asked for (a look-alike of a
        // forger's own) and an answer naming a member twice, as a file's is.
        evidence = await (
          TRACK_ID.test(argument) ? track.getAsset(argument) : track.getEvidence(argument)
        ).catch((error: unknown) => cliErrorOf(error, argument));
      } else throw usageError(`${argument} is neither a file, a trackID nor an evidence hash`);

      const result = await verifyEvidence({ evidence, ...trusted }).catch(asUsageError);

      io.stdout(`${options.json ? JSON.stringify(result, null, 2) : evidencesText(result)}\n`);
      const code = exitCodeOfVerdict(result.verdict);
      if (code !== 0) throw new CliError(`evidence ${result.verdict}`, code);
    });
}
