import { writeFile } from 'node:fs/promises';
import {
  SelectiveDisclosureError,
  unwrapEnvelope,
  withholdCertificateFields,
  type DisclosurePath,
} from '@trustpoint/verifier';
import type { Command } from 'commander';
import { usageError } from '../cli-error.js';
import type { Io } from '../output.js';
import { readJsonFile } from '../verify/record-source.js';
import { collect } from '../verify/rpc-option.js';
import { parseFieldPath } from './field-path.js';

interface WithholdOptions {
  field?: string[];
  out?: string;
}

/**
 * `trustpoint withhold`: a holder's copy of a version 2 certificate without some content fields.
 * The copy verifies as the certificate does (same hash, same chain record), and its verification
 * lists what was withheld; the values and their salts are not in it.
 */
export function withholdCommand(program: Command, io: Io): void {
  program
    .command('withhold')
    .description(
      'make a copy of a certificate (hash version 2) that withholds content fields: the copy still verifies, and says what was withheld',
    )
    .argument('<certificate>', 'a certificate JSON file, as the service or a holder gave it')
    .option(
      '--field <path>',
      'a content field to withhold, repeatable: dotted (content.student.dateOfBirth, content.grades.1) or a JSON array of segments (\'["content","a.b",0]\') for names with dots or made of digits',
      collect,
    )
    .option('--out <file>', 'write the copy here instead of to stdout')
    .addHelpText(
      'after',
      `
Only members and elements of the content can be withheld; certID, type, name, description,
issuer, issuerOrigin, issuedOn, expires, fileHash, hashVersion, and content fields the issuer
kept in clear (a file's name and type, what a URL answered, an asset's id) cannot (exit 2).
Indices are positions as issued. Withholding a field withholds what is under it.

Examples:
  trustpoint withhold diploma.json --field content.student.dateOfBirth --out for-employer.json
  trustpoint withhold diploma.json --field '["content","grades",1]' --field content.remarks`,
    )
    .action(async (file: string, options: WithholdOptions) => {
      const paths: DisclosurePath[] = (options.field ?? []).map(parseFieldPath);
      if (paths.length === 0) throw usageError('name at least one --field to withhold');
      const json = await readJsonFile(file);
      const certificate = unwrapEnvelope(json);
      if (typeof certificate !== 'object' || certificate === null) {
        throw usageError(`${file} is not a certificate`);
      }
      let copy: object;
      try {
        copy = withholdCertificateFields(certificate, paths);
      } catch (error) {
        if (!(error instanceof SelectiveDisclosureError)) throw error;
        throw usageError(`cannot withhold: ${error.message}`);
      }
      // A saved answer keeps its envelope.
      const output = json === certificate ? copy : { ...(json as object), data: copy };
      const text = `${JSON.stringify(output, null, 2)}\n`;
      if (options.out === undefined) io.stdout(text);
      else await writeFile(options.out, text);
    });
}
