import { element } from './dom.js';

/** What a certificate shows its reader: name, description, issuer, dates and its content. */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isoDate = (value: unknown): string | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? new Date(value).toISOString() : undefined;

/** The certificate's own description of itself, as term and value pairs (claims of its issuer). */
export function certificateDetails(certificate: unknown, now = Date.now()): [string, string][] {
  const root =
    isObject(certificate) && typeof certificate.statusCode === 'number'
      ? certificate.data
      : certificate;
  const data = isObject(root) && isObject(root.data) ? root.data : {};
  const rows: [string, string][] = [];
  const text = (term: string, value: unknown) => {
    if (typeof value === 'string' && value !== '') rows.push([term, value]);
  };
  text('Name', data.name);
  text('Description', data.description);
  text('Type', data.type);
  text('File name', data.fileName);
  text('Issuer (the service account that certified it)', data.issuer);
  const issued = isoDate(data.issuedOn);
  if (issued !== undefined) rows.push(['Issued on (as the service states)', issued]);
  const expires = isoDate(data.expires);
  if (expires !== undefined && typeof data.expires === 'number') {
    rows.push(['Expires', `${expires}${data.expires <= now ? ' (passed)' : ''}`]);
  }
  return rows;
}

/** The content as path and value rows: `order.lines[0].sku` → `A-1`. */
export function contentRows(content: unknown, prefix = ''): [string, string][] {
  if (Array.isArray(content)) {
    if (content.length === 0) return [[prefix, '(empty list)']];
    return content.flatMap((item, index) => contentRows(item, `${prefix}[${String(index)}]`));
  }
  if (isObject(content)) {
    const entries = Object.entries(content);
    if (entries.length === 0) return prefix === '' ? [] : [[prefix, '(empty)']];
    return entries.flatMap(([key, value]) =>
      contentRows(value, prefix === '' ? key : `${prefix}.${key}`),
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

/** Fills the content table, hidden when there is nothing to show. */
export function renderContent(table: HTMLTableElement, content: unknown): void {
  const rows = contentRows(content);
  const body = table.tBodies[0] ?? table.createTBody();
  body.replaceChildren(
    ...rows.map(([path, value]) => {
      const row = element('tr');
      const head = element('th', path);
      head.scope = 'row';
      row.append(head, element('td', value));
      return row;
    }),
  );
  table.hidden = rows.length === 0;
}
