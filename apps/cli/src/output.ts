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

/** A cell as a person reads it: no `null`, lists joined, times as given (ISO 8601). */
function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cell).join(', ');
  if (typeof value === 'string') return value;
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
