import type { EvidencesVerification, FieldCoverage } from '@trustpoint/verifier';

/**
 * What an evidence verdict proves of what the asset and evidence JSON show, as term and value
 * pairs: the fields the asset hash covers, those the chain read checks, and the rest as claims.
 */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const listed = (names: readonly string[]) => (names.length === 0 ? 'none' : names.join(', '));

const shown = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

/** The asset as given (a saved answer or its `data`), when the JSON is one. */
function assetOf(json: unknown): Record<string, unknown> {
  const root = isObject(json) && typeof json.statusCode === 'number' ? json.data : json;
  return isObject(root) ? root : {};
}

function coverageRows(coverage: FieldCoverage, suffix: string): [string, string][] {
  const rows: [string, string][] = [
    [`Evidence fields covered by each hash or its key${suffix}`, listed(coverage.covered)],
  ];
  if (coverage.fromChain.length > 0) {
    rows.push([`Evidence fields checked against the chain${suffix}`, listed(coverage.fromChain)]);
  }
  rows.push([
    `Evidence fields NOT covered: claims of whoever gave the JSON${suffix}`,
    listed(coverage.unverified),
  ]);
  return rows;
}

export function evidenceSummaryRows(
  result: EvidencesVerification,
  json: unknown,
): [string, string][] {
  const rows: [string, string][] = [];
  const { asset } = result;
  if (asset !== undefined) {
    const given = assetOf(json);
    const rule = `{${asset.coverage.covered.join(', ')}}`;
    rows.push(['Asset', asset.assetId]);
    rows.push([
      'Asset hash check',
      asset.matches
        ? `version ${String(asset.hashVersion)}: assetHash recomputed from ${rule}: matches`
        : `version ${String(asset.hashVersion)}: assetHash recomputed from ${rule} is ${asset.recomputed}, not ${asset.assetHash}`,
    ]);
    for (const name of asset.coverage.covered) {
      if (name === 'assetId' || given[name] === undefined) continue;
      // Proven only when it matches: a mismatched asset proves nothing.
      const term = asset.matches ? 'covered by the asset hash' : 'would be covered, but mismatches';
      rows.push([`${name} (${term})`, shown(given[name])]);
    }
    for (const name of asset.coverage.unverified) {
      rows.push([`${name} (NOT covered: a claim of whoever gave the JSON)`, shown(given[name])]);
    }
  }
  const distinct = new Map<string, { coverage: FieldCoverage; count: number }>();
  for (const { coverage } of result.evidences) {
    const key = JSON.stringify(coverage);
    const seen = distinct.get(key);
    distinct.set(key, { coverage, count: (seen?.count ?? 0) + 1 });
  }
  for (const { coverage, count } of distinct.values()) {
    const suffix =
      distinct.size === 1 ? '' : ` (${String(count)} of ${String(result.evidences.length)})`;
    rows.push(...coverageRows(coverage, suffix));
  }
  rows.push([
    'Evidences',
    `${String(result.evidences.length)}: each one listed is checked; the chain cannot say whether this JSON left others out`,
  ]);
  return rows;
}
