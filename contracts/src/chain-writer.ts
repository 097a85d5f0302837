import { FetchRequest, JsonRpcProvider } from 'ethers';

/**
 * An ethers provider that sends with `headers` on every request: the embedded chain's
 * `writeHeaders`, for the service's own deployment and for tests and benches that drive the chain.
 * The headers stay out of the URL (node URLs are published and logged).
 */
export function chainWriterProvider(
  url: string,
  headers: Readonly<Record<string, string>>,
): JsonRpcProvider {
  const request = new FetchRequest(url);
  for (const [name, value] of Object.entries(headers)) request.setHeader(name, value);
  return new JsonRpcProvider(request, undefined, { staticNetwork: true, cacheTimeout: -1 });
}
