// Summarises a V8 CPU profile (`node --cpu-prof`, e.g. the API under `bench:create`): where the
// sampled time went by package and by function, and which stacks call a given function.
// Run: node bench/dist/profile-summary.js <file.cpuprofile> [--callers <function name>] [--top N]
//      [--last <seconds>]   (only the profile's last seconds: the load, without the start-up)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A package name (`express`, `tp:cert-api` for this repository's), `node:…` or the VM's own. */
function placeOf(url: string, functionName: string): string {
  if (url === '') return functionName === '' ? '(vm)' : functionName;
  const dependency = /node_modules\/\.pnpm\/([^/]+)\//.exec(url);
  if (dependency?.[1] !== undefined) return dependency[1].replace(/@[0-9][^+]*$/, '');
  const own = /\/(packages|apps|bench)\/([^/]+)\//.exec(url);
  if (own?.[1] !== undefined) return own[1] === 'bench' ? 'tp:bench' : `tp:${own[2] ?? ''}`;
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
  return url;
}

function percent(part: number, total: number): string {
  return `${((100 * part) / total).toFixed(1).padStart(5)}%`;
}

function top(counts: Map<string, number>, total: number, n: number): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, time]) => `${percent(time, total)}  ${key}`)
    .join('\n');
}

function add(counts: Map<string, number>, key: string, time: number): void {
  counts.set(key, (counts.get(key) ?? 0) + time);
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      callers: { type: 'string' },
      top: { type: 'string', default: '30' },
      last: { type: 'string' },
    },
  });
  const file = positionals[0];
  if (file === undefined) {
    console.error(
      'usage: profile-summary <file.cpuprofile> [--callers <function>] [--top N] [--last <seconds>]',
    );
    process.exit(2);
  }
  const n = Number(values.top);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parents.set(child, node.id);
  const self = new Map<number, number>();
  const span = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
  const from = values.last === undefined ? 0 : span - Number(values.last) * 1e6;
  let at = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at >= from) self.set(id, (self.get(id) ?? 0) + delta);
  });
  const total = [...self.values()].reduce((sum, time) => sum + time, 0);
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const callers = new Map<string, number>();
  for (const [id, time] of self) {
    const frame = (nodes.get(id) as ProfileNode).callFrame;
    const place = placeOf(frame.url, frame.functionName);
    add(byPlace, place, time);
    add(
      byFunction,
      `${frame.functionName || '(anonymous)'} ${place}:${String(frame.lineNumber)}`,
      time,
    );
    if (values.callers !== undefined && frame.functionName === values.callers) {
      const stack: string[] = [];
      for (let at = parents.get(id); at !== undefined && stack.length < 8; at = parents.get(at)) {
        const caller = (nodes.get(at) as ProfileNode).callFrame;
        stack.push(
          `${caller.functionName || '(anonymous)'}@${caller.url.split('/').slice(-2).join('/')}:${String(caller.lineNumber)}`,
        );
      }
      add(callers, stack.join(' < '), time);
    }
  }
  console.log(`${(total / 1e6).toFixed(1)} s sampled in ${file}`);
  console.log(`\nBy package (self time)\n${top(byPlace, total, n)}`);
  console.log(`\nBy function (self time)\n${top(byFunction, total, n)}`);
  if (values.callers !== undefined) {
    console.log(`\nWhat calls ${values.callers}\n${top(callers, total, n)}`);
  }
}

main();
