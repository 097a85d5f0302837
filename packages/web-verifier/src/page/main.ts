import {
  dnsOverHttpsTxt,
  isLoopbackOrigin,
  readCertificate,
  trustedIssuingOrigin,
  unwrapEnvelope,
  verifyCertificate,
  verifyEvidence,
  type FileHashes,
  type Trust,
} from '@trustpoint/verifier';
import {
  apiBaseOf,
  fetchCertificate,
  fetchJwks,
  fetchNetworks,
  readJsonFile,
  servingApiBase,
  type NetworkInfo,
} from './certificate-source.js';
import { byId, visibleText } from './dom.js';
import { dnsResolverOf, savedDnsResolver } from './dns-resolver-setting.js';
import { hashFile } from './hash-file.js';
import { fetchInstanceNodes } from './instance-nodes.js';
import { showNodeProposals, type NodeProposal } from './node-proposals.js';
import { readPageLink } from './page-link.js';
import type { TrustHelp } from './how-to-trust.js';
import { renderCertificateResult, renderEvidenceResult } from './render-result.js';
import {
  loadPublicChains,
  rememberPublicChoice,
  savedPublicChoice,
  showPublicChains,
} from './public-endpoints.js';
import { parseRpcText, rememberRpcText, rpcLinesOf, savedRpcText } from './rpc-settings.js';
import { fetchTrustDocument } from './trusted-origins.js';
import { pageStorage } from './page-storage.js';
import { TrustedServices } from './trusted-services.js';

type KeySet = NonNullable<Parameters<typeof verifyCertificate>[0]['jwks']>;
type PublicChains = NonNullable<Parameters<typeof verifyCertificate>[0]['publicEndpoints']>;

const form = byId('verify-form', HTMLFormElement);
const certificateInput = byId('certificate-file', HTMLInputElement);
const fileInput = byId('certified-file', HTMLInputElement);
const certIdInput = byId('cert-id', HTMLInputElement);
const serviceInput = byId('service-url', HTMLInputElement);
const rpcInput = byId('rpc-urls', HTMLTextAreaElement);
const proposalList = byId('node-proposals', HTMLUListElement);
const publicToggle = byId('use-public-endpoints', HTMLInputElement);
const publicChainsLine = byId('public-chains', HTMLElement);
const button = byId('verify', HTMLButtonElement);
byId('not-remembered', HTMLElement).hidden = pageStorage().remembers;
const progressLine = byId('progress-line', HTMLElement);
const progress = byId('hash-progress', HTMLProgressElement);
const result = byId('result', HTMLElement);
const verdictBox = byId('verdict', HTMLElement);
const errorLine = byId('error', HTMLElement);
const dropZone = byId('drop-zone', HTMLElement);
const trustForm = byId('trust-form', HTMLFormElement);
const trustOriginInput = byId('trust-origin', HTMLInputElement);
const trustError = byId('trust-error', HTMLElement);
const dnsResolverInput = byId('dns-resolver', HTMLInputElement);
dnsResolverInput.value = savedDnsResolver();
const services = new TrustedServices(byId('trusted-list', HTMLUListElement));

/** The origin that served this page (none when it is opened from disk). */
const servedOrigin =
  location.protocol === 'http:' || location.protocol === 'https:' ? location.origin : undefined;

// A link prefills the certificate to read; it never replaces the user's nodes or trust.
const link = readPageLink(location.hash);
certIdInput.value = link.certID ?? '';
serviceInput.value = link.service ?? servingApiBase(location);
const savedNodes = savedRpcText();
rpcInput.value = savedNodes ?? '';
publicToggle.checked = savedPublicChoice();
publicToggle.addEventListener('change', () => {
  rememberPublicChoice(publicToggle.checked);
});
/** Public endpoints of well-known chains: the served page's setting, else the built-in list. */
let publicChains: PublicChains = [];

function showError(message: string): void {
  errorLine.textContent = visibleText(message);
  errorLine.hidden = false;
}

/**
 * What the page trusts and proposes before any verification: its own service's trust document
 * (the page trusts the service that served its script), and the nodes a link or this instance
 * proposes. The nodes of a loopback instance are the default of a browser that has none saved.
 */
async function prepare(): Promise<void> {
  const proposals: NodeProposal[] = [];
  publicChains = await loadPublicChains(servedOrigin === undefined ? undefined : location.href);
  showPublicChains(publicChainsLine, publicChains);
  if (servedOrigin !== undefined) {
    const local = isLoopbackOrigin(servedOrigin);
    const [own, instanceNodes] = await Promise.all([
      fetchTrustDocument(servedOrigin, { sameOrigin: false }).then(
        (document) => ({ document }),
        (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
      ),
      local ? fetchInstanceNodes(location.href) : Promise.resolve({}),
    ]);
    if ('document' in own) services.setOwn(own.document, local, servedOrigin);
    else {
      services.setOwnProblem(
        `This page's service publishes no trust document (${own.error}): only the services you add are trusted.`,
      );
    }
    const lines = rpcLinesOf(instanceNodes);
    if (savedNodes === undefined && rpcInput.value.trim() === '') rpcInput.value = lines.join('\n');
    else proposals.push({ source: 'This instance (its local chain)', lines });
  }
  if (link.rpc.length > 0) proposals.push({ source: 'This link', lines: link.rpc });
  showNodeProposals(proposalList, rpcInput, proposals);
  // Reported when it comes; the pinned documents are used meanwhile.
  void services.checkForChanges();
}

/** Drop anything: a JSON file is the certificate, any other file the certified one. */
function acceptDroppedFiles(files: FileList): void {
  for (const file of Array.from(files)) {
    const isJson = file.type === 'application/json' || file.name.toLowerCase().endsWith('.json');
    const target = isJson && certificateInput.files?.length !== 1 ? certificateInput : fileInput;
    const transfer = new DataTransfer();
    transfer.items.add(file);
    target.files = transfer.files;
  }
}

dropZone.addEventListener('dragover', (event) => {
  event.preventDefault();
  dropZone.classList.add('dragging');
});
dropZone.addEventListener('dragleave', () => {
  dropZone.classList.remove('dragging');
});
dropZone.addEventListener('drop', (event) => {
  event.preventDefault();
  dropZone.classList.remove('dragging');
  if (event.dataTransfer !== null) acceptDroppedFiles(event.dataTransfer.files);
});

async function hashChosenFile(): Promise<FileHashes | undefined> {
  const file = fileInput.files?.[0];
  if (file === undefined) return undefined;
  progress.max = Math.max(file.size, 1);
  progress.value = 0;
  progressLine.hidden = false;
  try {
    return await hashFile(file, (hashed) => {
      progress.value = hashed;
    });
  } finally {
    progressLine.hidden = true;
  }
}

const isCertificate = (json: unknown): boolean => {
  const value = unwrapEnvelope(json);
  return typeof value === 'object' && value !== null && 'certID' in value;
};

async function verify(): Promise<void> {
  const rpc = parseRpcText(rpcInput.value);
  // Your nodes come first and are never replaced: public endpoints only for a network you list none for.
  const publicEndpoints =
    publicToggle.checked && publicChains.length > 0 ? publicChains : undefined;
  if (Object.keys(rpc).length === 0 && publicEndpoints === undefined) {
    throw new Error(
      'List at least one node you trust (networkId=URL), or let the page ask public endpoints of well-known chains',
    );
  }
  rememberRpcText(rpcInput.value);
  const certificateFile = certificateInput.files?.[0];
  const certID = certIdInput.value.trim();
  if (certificateFile === undefined && certID === '') {
    throw new Error('Give a certificate: its JSON file, or its certID and the service URL');
  }
  let apiBase: URL | undefined;
  if (serviceInput.value.trim() !== '') apiBase = apiBaseOf(serviceInput.value);
  let json: unknown;
  if (certificateFile !== undefined) {
    json = await readJsonFile(certificateFile);
  } else {
    if (apiBase === undefined)
      throw new Error('Give the service URL to read a certificate by certID');
    json = await fetchCertificate(apiBase, certID);
  }
  // Explorer links and signature keys come from the service only when it is already involved:
  // the page it served, or the certificate it was asked for. Neither makes it trusted.
  const service =
    apiBase !== undefined &&
    (certificateFile === undefined || apiBase.toString() === servingApiBase(location))
      ? apiBase
      : undefined;
  const source =
    certificateFile === undefined && apiBase !== undefined && /^https?:$/.test(apiBase.protocol)
      ? apiBase.origin
      : undefined;
  const help: TrustHelp = {
    untrustedSource: source !== undefined && !services.isTrusted(source) ? source : undefined,
    trustSource: (origin) => {
      services
        .add(origin)
        .then(() => {
          form.requestSubmit();
        })
        .catch((error: unknown) => {
          showError(error instanceof Error ? error.message : String(error));
        });
    },
  };
  const trust = services.trust();
  // Network names and explorer links: from the page's own service, or one you trust; a link's
  // service of its own could label a dev chain "Ethereum Mainnet" and link its own explorer.
  const namesFrom =
    service !== undefined &&
    (service.toString() === servingApiBase(location) || services.isTrusted(service.origin))
      ? service
      : undefined;
  if (!isCertificate(json)) {
    const networks = namesFrom === undefined ? [] : await fetchNetworks(namesFrom);
    const verification = await verifyEvidence({
      evidence: json,
      rpc,
      trust,
      timeoutMs: 10_000,
      ...(publicEndpoints === undefined ? {} : { publicEndpoints }),
    });
    renderEvidenceResult(result, verification, networks, help, json);
    return;
  }
  const file = await hashChosenFile();
  const needsKeys = JSON.stringify(json).includes('"Signature"');
  // Signature keys from the issuing origin when you trust it; else from the service involved,
  // whose keys can then only leave a signature unchecked, never prove it wrong.
  const keysFrom = trustedIssuerApi(json, trust) ?? service;
  const [networks, jwks] = await Promise.all([
    namesFrom === undefined ? Promise.resolve<NetworkInfo[]>([]) : fetchNetworks(namesFrom),
    keysFrom === undefined || !needsKeys ? Promise.resolve(undefined) : fetchJwks(keysFrom),
  ]);
  const verification = await verifyCertificate({
    certificate: json,
    rpc,
    trust,
    timeoutMs: 10_000,
    ...(publicEndpoints === undefined ? {} : { publicEndpoints }),
    // Says whether an https issuing origin you do not trust publishes the registry (shown, never
    // trusted); an http, loopback or private one is never contacted.
    readIssuerDocument: true,
    // The domain it names as its issuer's identity: its DNS record, asked over HTTPS.
    resolveTxt: dnsOverHttpsTxt(dnsResolverOf(dnsResolverInput.value), { timeoutMs: 10_000 }),
    ...(file === undefined ? {} : { file }),
    // Keys read from the service the link or the form names: they cannot prove a signature of
    // another issuing origin wrong.
    ...(jwks === undefined || keysFrom === undefined
      ? {}
      : { jwks: jwks as KeySet, jwksOrigin: keysFrom.origin }),
  });
  renderCertificateResult(result, verification, json, networks, help);
}

/** The certificate API of the issuing origin a version 2 certificate names, when you trust it. */
function trustedIssuerApi(json: unknown, trust: Trust): URL | undefined {
  try {
    const origin = trustedIssuingOrigin(readCertificate(json), trust);
    return origin === undefined ? undefined : new URL('/cert/v2/', origin);
  } catch {
    return undefined;
  }
}

/** On a phone-sized screen the verdict is below the form: bring it into view. */
function showVerdict(): void {
  if (result.hidden) return;
  if (window.matchMedia('(max-width: 40rem)').matches) {
    verdictBox.scrollIntoView({ block: 'start' });
  }
  verdictBox.focus({ preventScroll: true });
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  errorLine.hidden = true;
  result.hidden = true;
  button.disabled = true;
  form.setAttribute('aria-busy', 'true');
  document.body.dataset.state = 'verifying';
  verify()
    .then(showVerdict)
    .catch((error: unknown) => {
      showError(error instanceof Error ? error.message : String(error));
    })
    .finally(() => {
      button.disabled = false;
      form.removeAttribute('aria-busy');
      document.body.dataset.state = 'done';
    });
});

trustForm.addEventListener('submit', (event) => {
  event.preventDefault();
  trustError.hidden = true;
  services
    .add(trustOriginInput.value)
    .then(() => {
      trustOriginInput.value = '';
    })
    .catch((error: unknown) => {
      trustError.textContent = error instanceof Error ? error.message : String(error);
      trustError.hidden = false;
    });
});

void prepare().then(() => {
  document.body.dataset.state = 'ready';
  // Opened from a link naming a certificate (the QR code of its PDF): verify it at once.
  // Without a node of the user's, it waits for them to choose one (a link's is only proposed).
  if (certIdInput.value !== '' && serviceInput.value !== '' && rpcInput.value.trim() !== '') {
    form.requestSubmit();
  }
});
