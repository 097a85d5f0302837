import { formatDisclosurePath, shownTime, type DisclosurePath } from '@trustpoint/verifier';
import { element } from './dom.js';

/** What a certificate shows its reader: name, description, issuer, dates and its content. */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isoDate = (value: unknown): string | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? shownTime(value) : undefined;

/** A shown field of `data` besides the content: its name (as the hash check names it), term and value. */
export interface CertificateDetail {
  field: string;
  term: string;
  value: string;
}

/** The certificate's own description of itself, each row with the `data` field it shows. */
export function certificateDetailFields(
  certificate: unknown,
  now = Date.now(),
): CertificateDetail[] {
  const root =
    isObject(certificate) && typeof certificate.statusCode === 'number'
      ? certificate.data
      : certificate;
  const data = isObject(root) && isObject(root.data) ? root.data : {};
  const rows: CertificateDetail[] = [];
  const text = (field: string, term: string) => {
    const value = data[field];
    if (typeof value === 'string' && value !== '') rows.push({ field, term, value });
  };
  text('name', 'Name');
  text('description', 'Description');
  text('type', 'Type');
  text('fileName', 'File name');
  text('issuer', 'Issuer (the service account that certified it)');
  const issued = isoDate(data.issuedOn);
  if (issued !== undefined) {
    rows.push({ field: 'issuedOn', term: 'Issued on (as the service states)', value: issued });
  }
  const expires = isoDate(data.expires);
  if (expires !== undefined && typeof data.expires === 'number') {
    rows.push({
      field: 'expires',
      term: 'Expires',
      value: `${expires}${data.expires <= now ? ' (passed)' : ''}`,
    });
  }
  return rows;
}

/** The certificate's own description of itself, as term and value pairs (claims of its issuer). */
export function certificateDetails(certificate: unknown, now = Date.now()): [string, string][] {
  return certificateDetailFields(certificate, now).map(({ term, value }) => [term, value]);
}

/**
 * A row of the content table: its path, its value, and for an array element the holder withheld,
 * the path as the verifier names it (`content.grades[0]`).
 */
export type ContentRow = [path: string, value: string, withheld?: string];

/**
 * The content as rows, one per value. An array's elements are numbered as issued: where the holder
 * withheld one (`withheldElements`, the verifier's paths from `content`), the shown array closed
 * the gap, so each shown element takes the next position not withheld and each withheld one is a
 * row of its own at its place.
 */
export function contentRows(
  content: unknown,
  prefix = '',
  withheldElements: readonly DisclosurePath[] = [],
  path: DisclosurePath = ['content'],
): ContentRow[] {
  if (Array.isArray(content)) {
    const withheldHere = new Set(
      withheldElements
        .filter(
          (element) =>
            element.length === path.length + 1 &&
            typeof element[path.length] === 'number' &&
            path.every((segment, index) => element[index] === segment),
        )
        .map((element) => element[path.length] as number),
    );
    if (content.length === 0 && withheldHere.size === 0) return [[prefix, '(empty list)']];
    const rows: ContentRow[] = [];
    let shown = 0;
    for (
      let issued = 0;
      shown < content.length || issued <= Math.max(-1, ...withheldHere);
      issued += 1
    ) {
      const label = `${prefix}[${String(issued)}]`;
      if (withheldHere.has(issued)) {
        rows.push([label, '', formatDisclosurePath([...path, issued])]);
      } else if (shown < content.length) {
        rows.push(...contentRows(content[shown], label, withheldElements, [...path, issued]));
        shown += 1;
      }
    }
    return rows;
  }
  if (isObject(content)) {
    const entries = Object.entries(content);
    if (entries.length === 0) return prefix === '' ? [] : [[prefix, '(empty)']];
    return entries.flatMap(([key, value]) =>
      contentRows(value, prefix === '' ? key : `${prefix}.${key}`, withheldElements, [
        ...path,
        key,
      ]),
    );
  }
  return [[prefix, typeof content === 'string' ? content : JSON.stringify(content)]];
}

/** The certificate's `data.content`, whatever the envelope. */
export function contentOf(certificate: unknown): unknown {
  const root =
    isObject(certificate) && typeof certificate.statusCode === 'number'
      ? certificate.data
      : certificate;
  return isObject(root) && isObject(root.data) ? root.data.content : undefined;
}

/** How the content table marks its rows. */
export interface ContentMarks {
  /** The hash does not cover the content (version 1 file and URL certificates): each row a claim. */
  claims?: boolean;
  /**
   * What the holder withheld (version 2), each as a person reads it: a row each, after the content.
   * An array element the content's rows place at its position (`withheldElements`) is not repeated.
   */
  withheld?: readonly string[];
  /** The array elements the holder withheld, by their paths as issued (from `content`). */
  withheldElements?: readonly DisclosurePath[];
}

/** An "unverified claim" badge, next to a value the anchored hash does not cover. */
export function claimBadge(): HTMLElement {
  const badge = element('span', 'unverified claim', 'badge claim');
  badge.title = 'Not covered by the anchored hash: a claim of whoever gave you this JSON';
  return badge;
}

/** Fills the content table, hidden when there is nothing to show. */
export function renderContent(
  table: HTMLTableElement,
  content: unknown,
  marks: ContentMarks = {},
): void {
  const rows = contentRows(content, '', marks.withheldElements);
  const placed = new Set(
    rows.flatMap(([, , withheld]) => (withheld === undefined ? [] : [withheld])),
  );
  const body = table.tBodies[0] ?? table.createTBody();
  body.replaceChildren(
    ...rows.map(([path, value, withheld]) => {
      const row = element('tr');
      const head = element('th', path);
      head.scope = 'row';
      const cell = element('td', value);
      if (withheld !== undefined) {
        row.dataset.coverage = 'withheld';
        cell.append(element('span', 'withheld by the holder', 'badge withheld'));
      } else if (marks.claims === true) {
        row.dataset.coverage = 'claim';
        cell.append(' ', claimBadge());
      }
      row.append(head, cell);
      return row;
    }),
    ...(marks.withheld ?? [])
      .filter((field) => !placed.has(field))
      .map((field) => {
        const row = element('tr');
        row.dataset.coverage = 'withheld';
        const head = element('th', field);
        head.scope = 'row';
        const cell = element('td');
        cell.append(element('span', 'withheld by the holder', 'badge withheld'));
        row.append(head, cell);
        return row;
      }),
  );
  table.hidden = body.rows.length === 0;
}
