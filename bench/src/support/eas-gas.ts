// The Ethereum Attestation Service, deployed from the bytecode its npm package ships (compiled
// with EAS's own settings), measured on the same node as our registries.
import { createRequire } from 'node:module';
import {
  AbiCoder,
  Contract,
  ContractFactory,
  type ContractTransactionResponse,
  NonceManager,
  ZeroAddress,
  ZeroHash,
  sha256,
  toUtf8Bytes,
  type InterfaceAbi,
  type Signer,
} from 'ethers';

interface Artifact {
  abi: InterfaceAbi;
  bytecode: string;
}

const load = createRequire(__filename);
const artifact = (name: string) =>
  load(
    `@ethereum-attestation-service/eas-contracts/artifacts/contracts/${name}.sol/${name}.json`,
  ) as Artifact;

/** Gas of EAS's writes as mined: one record, and per record in a batch of `batchSize`. */
export interface EasGas {
  attest: number;
  multiAttestPerRecord: number;
  timestamp: number;
  multiTimestampPerRecord: number;
  /** Revoking one attestation of a revocable schema (the attestations written beforehand). */
  revoke: number;
  multiRevokePerRecord: number;
}

async function gasOf(sent: Promise<unknown>) {
  const receipt = await ((await sent) as ContractTransactionResponse).wait();
  if (!receipt) throw new Error('Transaction was not mined');
  return Number(receipt.gasUsed);
}

export async function measureEasGas(sender: Signer, batchSize: number): Promise<EasGas> {
  const signer = new NonceManager(sender);
  const registryArtifact = artifact('SchemaRegistry');
  const easArtifact = artifact('EAS');
  const schemas = await new ContractFactory(
    registryArtifact.abi,
    registryArtifact.bytecode,
    signer,
  ).deploy();
  await schemas.waitForDeployment();
  const eas = await new ContractFactory(easArtifact.abi, easArtifact.bytecode, signer).deploy(
    await schemas.getAddress(),
  );
  await eas.waitForDeployment();
  const registry = new Contract(await schemas.getAddress(), registryArtifact.abi, signer);
  const attester = new Contract(await eas.getAddress(), easArtifact.abi, signer);

  // The same record as ours: key, hash and type, irrevocable, no recipient, no expiry.
  const schema = 'bytes32 recordKey,bytes32 hash,uint8 trustPointType';
  const register = registry.getFunction('register');
  const uid = (await register.staticCall(schema, ZeroAddress, false)) as string;
  await gasOf(register(schema, ZeroAddress, false));
  const coder = AbiCoder.defaultAbiCoder();
  const request = (i: number) => ({
    recipient: ZeroAddress,
    expirationTime: 0,
    revocable: false,
    refUID: ZeroHash,
    data: coder.encode(
      ['bytes32', 'bytes32', 'uint8'],
      [sha256(toUtf8Bytes(`key ${String(i)}`)), sha256(toUtf8Bytes(`hash ${String(i)}`)), 0],
    ),
    value: 0,
  });
  const hashes = (from: number) =>
    Array.from({ length: batchSize }, (_, i) => sha256(toUtf8Bytes(`stamp ${String(from + i)}`)));

  const attest = await gasOf(attester.getFunction('attest')({ schema: uid, data: request(0) }));
  const multiAttest = await gasOf(
    attester.getFunction('multiAttest')([
      { schema: uid, data: Array.from({ length: batchSize }, (_, i) => request(i + 1)) },
    ]),
  );
  const timestamp = await gasOf(attester.getFunction('timestamp')(sha256(toUtf8Bytes('stamp'))));
  const multiTimestamp = await gasOf(attester.getFunction('multiTimestamp')(hashes(1)));

  // Revocations, as TrustPointStatusRegistry records them: attestations of a revocable schema,
  // each revoked once; only the revocations are measured.
  const revocable = 'bytes32 certKey';
  const revocableUid = (await register.staticCall(revocable, ZeroAddress, true)) as string;
  await gasOf(register(revocable, ZeroAddress, true));
  const revocableRequest = (i: number) => ({
    ...request(i),
    revocable: true,
    data: coder.encode(['bytes32'], [sha256(toUtf8Bytes(`cert ${String(i)}`))]),
  });
  // The UIDs as mined (they include the block's time), from the Attested events.
  const attested = async (from: number, count: number) => {
    const requests = Array.from({ length: count }, (_, i) => revocableRequest(from + i));
    const sent = (await attester.getFunction('multiAttest')([
      { schema: revocableUid, data: requests },
    ])) as ContractTransactionResponse;
    const receipt = await sent.wait();
    if (!receipt) throw new Error('Transaction was not mined');
    return receipt.logs
      .map((log) => attester.interface.parseLog(log))
      .filter((event) => event?.name === 'Attested')
      .map((event) => String(event?.args.getValue('uid')));
  };
  const [single] = await attested(0, 1);
  const revoke = await gasOf(
    attester.getFunction('revoke')({ schema: revocableUid, data: { uid: single, value: 0 } }),
  );
  const many = await attested(1, batchSize);
  const multiRevoke = await gasOf(
    attester.getFunction('multiRevoke')([
      { schema: revocableUid, data: many.map((uid) => ({ uid, value: 0 })) },
    ]),
  );
  return {
    attest,
    multiAttestPerRecord: Math.ceil(multiAttest / batchSize),
    timestamp,
    multiTimestampPerRecord: Math.ceil(multiTimestamp / batchSize),
    revoke,
    multiRevokePerRecord: Math.ceil(multiRevoke / batchSize),
  };
}
