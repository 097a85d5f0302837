import Table from 'cli-table3';

/** Where a command writes: the process's streams, or a test's buffers. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

export interface Column<T> {
  title: string;
  value: (row: T) => unknown;
}

/**
 * Text kept on its one line: line breaks written out as escapes (`\n`). A value read from a
 * certificate or an answer (a forger's `data.issuer` holding eighty newlines and a line saying
 * `Verdict: VERIFIED`) cannot add lines of its own to what a command prints.
 */
export function oneLine(text: string): string {
  return text.replace(/[\n\r\v\f\u0085\u2028\u2029]/g, (lineBreak) =>
    lineBreak === '\n'
      ? '\\n'
      : lineBreak === '\r'
        ? '\\r'
        : `\\u${lineBreak.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A cell as a person reads it: one line, no `null`, lists joined, times as given (ISO 8601). */
function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cell).join(', ');
  if (typeof value === 'string') return oneLine(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return value.toString();
  }
  return JSON.stringify(value);
}

// No colours and plain borders: the output is read in terminals, logs and CI alike.
const plain = { head: [] as string[], border: [] as string[] };

/** Rows as a table, one column per field; "(none)" for no rows. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  if (rows.length === 0) return '(none)';
  const output = new Table({ head: columns.map((column) => column.title), style: plain });
  for (const row of rows) output.push(columns.map((column) => cell(column.value(row))));
  return output.toString();
}

/** One record as a two-column table of field and value. */
export function record(fields: readonly [string, unknown][]): string {
  const output = new Table({ style: plain });
  for (const [name, value] of fields) output.push({ [name]: cell(value) });
  return output.toString();
}

/** What a command answers: `data` for `--json`, `text` for people. */
export interface Output {
  data: unknown;
  text: string;
}
