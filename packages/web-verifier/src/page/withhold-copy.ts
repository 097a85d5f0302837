import {
  decodeDisclosure,
  formatDisclosurePath,
  readDisclosableCertificate,
  SelectiveDisclosureError,
  unwrapEnvelope,
  withholdCertificateFields,
  type CertificateHashCheck,
  type DisclosedField,
  type DisclosurePath,
} from '@trustpoint/verifier';
import { element } from './dom.js';

/**
 * A holder's copy of a version 2 certificate without some content fields, made in this browser
 * (what `trustpoint withhold` does): one checkbox per content field the copy discloses, and a
 * download of the copy without the ticked ones. The copy keeps the hash and still verifies; its
 * verification lists what was withheld. Fields that cannot be withheld (certID, type, name,
 * description, issuer, issuerOrigin, issuedOn, expires, fileHash, hashVersion, and content the
 * issuer kept in clear) get no checkbox.
 */
export interface WithholdParts {
  section: HTMLElement;
  list: HTMLUListElement;
  none: HTMLElement;
  button: HTMLButtonElement;
  error: HTMLElement;
}

/** A scalar value, shown next to its field's path; an object or a list is named only. */
function preview(field: DisclosedField): string {
  let value: unknown;
  try {
    value = decodeDisclosure(field.disclosure).value;
  } catch {
    return '';
  }
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? '(a list)' : '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The paths ticked, as arrays of segments (never joined into strings). */
function tickedPaths(list: HTMLUListElement): DisclosurePath[] {
  return Array.from(list.querySelectorAll<HTMLInputElement>('input[type="checkbox"]:checked')).map(
    (box) => JSON.parse(box.dataset.path ?? '[]') as DisclosurePath,
  );
}

function download(text: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const anchor = element('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.hidden = true;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 60_000);
}

/** The copy as the JSON was given: a saved answer keeps its envelope. */
export function withheldCopy(json: unknown, paths: readonly DisclosurePath[]): unknown {
  const certificate = unwrapEnvelope(json);
  if (typeof certificate !== 'object' || certificate === null) {
    throw new Error('this JSON is not a certificate');
  }
  const copy = withholdCertificateFields(certificate, paths);
  return json === certificate ? copy : { ...(json as object), data: copy };
}

/** Shown for a version 2 copy that reads under the rule and matches its hash; hidden otherwise. */
export function renderWithhold(parts: WithholdParts, json: unknown, hash: CertificateHashCheck) {
  parts.error.hidden = true;
  parts.section.hidden = true;
  parts.list.replaceChildren();
  parts.button.onclick = null;
  if (hash.version !== 2 || hash.refusal !== undefined || hash.recomputed !== hash.given) return;
  let disclosed: DisclosedField[];
  try {
    disclosed = readDisclosableCertificate(unwrapEnvelope(json)).disclosed;
  } catch {
    return;
  }
  parts.list.append(
    ...disclosed.map((field, index) => {
      const item = element('li');
      const box = element('input');
      box.type = 'checkbox';
      box.id = `withhold-field-${String(index)}`;
      box.dataset.path = JSON.stringify(field.path);
      const label = element('label');
      label.htmlFor = box.id;
      label.append(element('span', formatDisclosurePath(field.path), 'mono'));
      const value = preview(field);
      if (value !== '') label.append(' ', element('span', value, 'help'));
      item.append(box, label);
      return item;
    }),
  );
  parts.none.hidden = disclosed.length > 0;
  parts.button.hidden = disclosed.length === 0;
  parts.button.onclick = () => {
    parts.error.hidden = true;
    const paths = tickedPaths(parts.list);
    try {
      if (paths.length === 0) throw new Error('Tick at least one field to withhold.');
      const copy = withheldCopy(json, paths);
      download(`${JSON.stringify(copy, null, 2)}\n`, 'certificate-withheld.json');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      parts.error.textContent =
        error instanceof SelectiveDisclosureError ? `Cannot withhold: ${message}` : message;
      parts.error.hidden = false;
    }
  };
  parts.section.hidden = false;
}
