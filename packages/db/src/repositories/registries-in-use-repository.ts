import type { Queryable } from '../queryable.js';

/** A contract the service has anchored records in, as its records name it. */
export interface RegistryInUse {
  networkId: string;
  kind: 'trustPointRegistry' | 'evidenceRepository';
  address: string;
}

/**
 * Every registry and repository a stored record names, per network: what the service's trust
 * document must keep publishing after an upgrade, so that certificates anchored in an earlier
 * registry generation keep verifying.
 */
export async function listRegistriesInUse(db: Queryable): Promise<RegistryInUse[]> {
  const [trustpoints, evidences] = await Promise.all([
    db('trustpoints')
      .whereNotNull('smart_contract')
      .distinct<{ network_id: string; smart_contract: string }[]>('network_id', 'smart_contract'),
    db('evidences')
      .whereNotNull('smart_contract')
      .distinct<{ network_id: string; smart_contract: string }[]>('network_id', 'smart_contract'),
  ]);
  return [
    ...trustpoints.map((row) => ({
      networkId: row.network_id,
      kind: 'trustPointRegistry' as const,
      address: row.smart_contract,
    })),
    ...evidences.map((row) => ({
      networkId: row.network_id,
      kind: 'evidenceRepository' as const,
      address: row.smart_contract,
    })),
  ];
}
