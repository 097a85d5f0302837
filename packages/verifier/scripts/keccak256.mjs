// Prints keccak256 of each hex argument, one per line (0x-prefixed).
// The vector generator (generate-test-vectors.py) calls this because Python's standard library
// has SHA3-256 but not Keccak-256, which differs in padding. Only the hash primitive of ethers is
// used here: ABI encoding and key packing are done by hand in the Python script.
import { keccak256 } from 'ethers';

for (const hex of process.argv.slice(2)) {
  process.stdout.write(`${keccak256(hex.startsWith('0x') ? hex : `0x${hex}`)}\n`);
}
