import type { AnchorEngine, NetworkRegistry } from '@trustpoint/chain';
import type { TxtResolver } from '@trustpoint/verifier';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { FilesSettings } from '../files/files-settings.js';
import type { UrlFetchSettings } from '../url-fetch/url-fetch-settings.js';
import type { CertificateSigner } from './certificate-signer.js';
import type { PinAttemptLimits } from './pin-attempt-limits.js';
import type { PinCipher } from './pin-cipher.js';

/** What the certificate use cases work with; built once at start-up and shared by requests. */
export interface CertificateServices {
  knex: Knex;
  engine: AnchorEngine;
  networks: NetworkRegistry;
  pins: PinCipher;
  /** The `<ns>` of certIDs this deployment mints. */
  namespace: string;
  /** Milliseconds since the epoch; a parameter so tests can pin time. */
  now: () => number;
  logger: Logger;
  /** The service key that makes qualified signatures (JWS), published at /.well-known/jwks.json. */
  signer: CertificateSigner;
  /** Upload limit and the store of published files. */
  files: FilesSettings;
  /** URL certificates' fetching; each setting left out takes `DEFAULT_URL_FETCH_SETTINGS`. */
  urlFetch?: Partial<UrlFetchSettings>;
  /** Failed PIN attempts allowed; each limit left out takes `DEFAULT_PIN_ATTEMPT_LIMITS`. */
  pinAttempts?: Partial<PinAttemptLimits>;
  /**
   * The origin version 2 certificates name as `data.issuerOrigin` (covered by their hash): the
   * service's configured public URL. `createCertApp` sets it from its `publicUrl` option when the
   * services do not say; none when neither does.
   */
  issuerOrigin?: () => string | undefined;
  /**
   * The service's own DNS lookups (`_trustpoint.<domain>` TXT records): a claimed domain's check,
   * and the identity its verification shows. Node's resolver on `dnsServers` by default.
   */
  resolveTxt?: TxtResolver;
  /**
   * The `fetch` the service's verifications use: its own nodes as configured, any other URL only
   * at a public address (`publicAddressFetch` on `dnsServers`), so no certificate can make the
   * service call into its own network. `createCertApp` sets it when the services do not say.
   */
  verifierFetch?: typeof fetch;
}
