// Reads the report `hardhat coverage` writes (coverage.json, Istanbul's format) and fails unless
// every contract under contracts/ is in it with 100% of its lines and branches covered. Interfaces
// have neither and pass. Run by `npm test` after the suite, on instrumented contracts.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const PACKAGE_ROOT = join(__dirname, '..');
const SOURCES = join(PACKAGE_ROOT, 'contracts');
const REPORT = join(PACKAGE_ROOT, 'coverage.json');
const REQUIRED_PERCENT = 100;

interface FileCoverage {
  /** Hits per line. */
  l: Record<string, number>;
  /** Hits per path of each branch. */
  b: Record<string, number[]>;
}

function solidityFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return solidityFiles(path);
    return entry.name.endsWith('.sol') ? [path] : [];
  });
}

const percent = (covered: number, total: number) => (total === 0 ? 100 : (100 * covered) / total);

const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Record<string, FileCoverage>;
const failures: string[] = [];
let lines = { covered: 0, total: 0 };
let branches = { covered: 0, total: 0 };

for (const file of solidityFiles(SOURCES).sort()) {
  const name = relative(PACKAGE_ROOT, file);
  const coverage = report[name] ?? report[file];
  if (!coverage) {
    failures.push(`${name}: not in the coverage report`);
    continue;
  }
  const lineHits = Object.values(coverage.l);
  const pathHits = Object.values(coverage.b).flat();
  const fileLines = { covered: lineHits.filter((n) => n > 0).length, total: lineHits.length };
  const fileBranches = { covered: pathHits.filter((n) => n > 0).length, total: pathHits.length };
  lines = { covered: lines.covered + fileLines.covered, total: lines.total + fileLines.total };
  branches = {
    covered: branches.covered + fileBranches.covered,
    total: branches.total + fileBranches.total,
  };
  const linePercent = percent(fileLines.covered, fileLines.total);
  const branchPercent = percent(fileBranches.covered, fileBranches.total);
  console.log(
    `${name.padEnd(52)} lines ${String(fileLines.covered).padStart(3)}/${String(fileLines.total).padEnd(3)}` +
      ` branches ${String(fileBranches.covered).padStart(3)}/${String(fileBranches.total)}`,
  );
  if (linePercent < REQUIRED_PERCENT || branchPercent < REQUIRED_PERCENT) {
    const uncoveredLines = Object.entries(coverage.l)
      .filter(([, n]) => n === 0)
      .map(([line]) => line);
    failures.push(
      `${name}: lines ${linePercent.toFixed(1)}%, branches ${branchPercent.toFixed(1)}%` +
        (uncoveredLines.length > 0 ? ` (uncovered lines ${uncoveredLines.join(', ')})` : ''),
    );
  }
}

console.log(
  `All contracts: lines ${String(lines.covered)}/${String(lines.total)} ` +
    `(${percent(lines.covered, lines.total).toFixed(1)}%), branches ` +
    `${String(branches.covered)}/${String(branches.total)} ` +
    `(${percent(branches.covered, branches.total).toFixed(1)}%)`,
);
if (failures.length > 0) {
  console.error(
    `Coverage below ${String(REQUIRED_PERCENT)}% (see coverage/index.html):\n${failures.join('\n')}`,
  );
  process.exit(1);
}
