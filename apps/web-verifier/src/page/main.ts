import { verifyCertificate, type FileHashes } from '@trustpoint/verifier';
import {
  apiBaseOf,
  fetchCertificate,
  fetchJwks,
  fetchNetworks,
  readJsonFile,
  servingApiBase,
  type NetworkInfo,
} from './certificate-source.js';
import { hashFile } from './hash-file.js';
import { renderResult } from './render-result.js';
import { initialRpcText, parseRpcText, rememberRpcText } from './rpc-settings.js';

type KeySet = NonNullable<Parameters<typeof verifyCertificate>[0]['jwks']>;

function byId<T extends HTMLElement>(id: string, kind: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof kind)) throw new Error(`the page has no #${id} of the expected kind`);
  return found;
}

const form = byId('verify-form', HTMLFormElement);
const certificateInput = byId('certificate-file', HTMLInputElement);
const fileInput = byId('certified-file', HTMLInputElement);
const certIdInput = byId('cert-id', HTMLInputElement);
const serviceInput = byId('service-url', HTMLInputElement);
const rpcInput = byId('rpc-urls', HTMLTextAreaElement);
const button = byId('verify', HTMLButtonElement);
const progressLine = byId('progress-line', HTMLElement);
const progress = byId('hash-progress', HTMLProgressElement);
const result = byId('result', HTMLElement);
const errorLine = byId('error', HTMLElement);
const dropZone = byId('drop-zone', HTMLElement);

// A link such as the certificate's QR code: #certID=…&service=…&rpc=31337=https://…
const link = new URLSearchParams(location.hash.slice(1));
certIdInput.value = link.get('certID') ?? '';
serviceInput.value = link.get('service') ?? servingApiBase(location);
rpcInput.value = initialRpcText(link.getAll('rpc'));

function showError(message: string): void {
  errorLine.textContent = message;
  errorLine.hidden = false;
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

async function verify(): Promise<void> {
  const rpc = parseRpcText(rpcInput.value);
  rememberRpcText(rpcInput.value);
  const certificateFile = certificateInput.files?.[0];
  const certID = certIdInput.value.trim();
  if (certificateFile === undefined && certID === '') {
    throw new Error('Give a certificate: its JSON file, or its certID and the service URL');
  }
  let apiBase: URL | undefined;
  if (serviceInput.value.trim() !== '') apiBase = apiBaseOf(serviceInput.value);
  let certificate: unknown;
  if (certificateFile !== undefined) {
    certificate = await readJsonFile(certificateFile);
  } else {
    if (apiBase === undefined)
      throw new Error('Give the service URL to read a certificate by certID');
    certificate = await fetchCertificate(apiBase, certID);
  }
  const file = await hashChosenFile();
  // Explorer links and signature keys come from the service only when it is already involved:
  // the page it served, or the certificate it was asked for.
  const service =
    apiBase !== undefined &&
    (certificateFile === undefined || apiBase.toString() === servingApiBase(location))
      ? apiBase
      : undefined;
  const needsKeys = JSON.stringify(certificate).includes('"Signature"');
  const [networks, jwks] = await Promise.all([
    service === undefined ? Promise.resolve<NetworkInfo[]>([]) : fetchNetworks(service),
    service === undefined || !needsKeys ? Promise.resolve(undefined) : fetchJwks(service),
  ]);
  const verification = await verifyCertificate({
    certificate,
    rpc,
    timeoutMs: 10_000,
    ...(file === undefined ? {} : { file }),
    ...(jwks === undefined ? {} : { jwks: jwks as KeySet }),
  });
  renderResult(result, verification, networks);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  errorLine.hidden = true;
  result.hidden = true;
  button.disabled = true;
  form.setAttribute('aria-busy', 'true');
  verify()
    .catch((error: unknown) => {
      showError(error instanceof Error ? error.message : String(error));
    })
    .finally(() => {
      button.disabled = false;
      form.removeAttribute('aria-busy');
      document.body.dataset.state = 'done';
    });
});

document.body.dataset.state = 'ready';
// Opened from a link naming a certificate (the QR code of its PDF): verify it at once.
if (certIdInput.value !== '' && serviceInput.value !== '') form.requestSubmit();
