import { PDFDocument, StandardFonts } from 'pdf-lib';
import QRCode from 'qrcode';
import { shownTime } from '@trustpoint/verifier';
import type { ServiceVerdict } from './verify-certificate.js';
import type { CertificateView } from './certificate-view.js';
import { MARGIN, PAGE_SIZE, Writer, type Fonts } from './certificate-pdf-writer.js';
import {
  CONTENT_CUT_NOTE,
  PRINTED_CONTENT_MAX_LENGTH,
  PRINTED_CONTENT_MAX_LINES,
} from './printed-text.js';

export interface CertificatePdfInput {
  certificate: CertificateView;
  /** The web verifier opened on this certificate: what the QR code holds. */
  verifyUrl: string;
  /** What the service's verifier found when the PDF was made, and when. */
  verification?: { verdict: ServiceVerdict; checkedAt: number };
}

/** The verdicts in words, as the CLI and the pages say them. */
const VERDICT_TEXT: Record<ServiceVerdict['verdict'], string> = {
  verified: "VERIFIED: every trustpoint is on chain, in the service's registries, and matches",
  revoked: 'REVOKED: it matches the chain, and its issuer revoked it',
  expired: 'EXPIRED: it matches the chain, but its expiry date has passed',
  revocationUnchecked: 'REVOCATION NOT CHECKED: whether it was revoked could not be read',
  untrusted: 'NOT TRUSTED: on chain, but not in a registry the service publishes',
  issuerUntrusted:
    'ISSUER NOT TRUSTED: valid on chain, but issued at another origin than this service',
  unchecked: 'NOT CHECKED: a node did not answer, or the chain could not date a record',
  notFound: 'NOT ON CHAIN: a trustpoint is not on chain (or not anchored yet)',
  mismatch: 'MISMATCH: the certificate does not match the chain',
};

/**
 * What the anchored hash covers, as `trustpoint verify` and the pages say it: version 2 every field
 * this document shows; version 1 (no `data.hashVersion`) only the content or the file, the name,
 * description, issuer and dates being claims the chain does not check.
 */
export function hashCoverageText(data: CertificateView['data']): { label: string; text: string } {
  if (data.hashVersion === 2) {
    const file = data.fileHash === undefined ? '' : ', the file SHA-256 (data.fileHash)';
    return {
      label: 'Hash version 2: what the anchored hash covers',
      text:
        `Every field shown here: certID, type, name, description, issuer, issuing origin, ` +
        `issue and expiry dates${file} and the content. A copy with any of them changed does ` +
        'not verify. A holder may hand on a copy withholding content fields; the rest still ' +
        'verifies, and its verification lists what was withheld.',
    };
  }
  const covered =
    data.type === 'content' || data.type === 'asset'
      ? 'only the certified content'
      : `only the ${data.type === 'file' ? "file's" : "URL's"} bytes (data.fileHash)`;
  const content = data.type === 'content' || data.type === 'asset' ? '' : ', the content';
  return {
    label: 'Hash version 1 (an earlier rule): what the anchored hash covers',
    text:
      `The anchored hash covers ${covered}. The name, description, issuer and dates${content} ` +
      'shown here are not covered by the anchored hash: they are claims, not verified by the ' +
      'chain. The issuer can re-anchor it under version 2, which covers every shown field.',
  };
}

/** Who issued it, as the service's verifier found it (the CLI's "Issued by" line). */
function issuerText(issuer: ServiceVerdict['issuer']): string {
  const { identity } = issuer;
  const proof =
    identity === undefined
      ? ''
      : identity.outcome === 'proven'
        ? `; proven identity ${identity.domain} (its DNS record names this service and account)`
        : `; claims to be ${identity.domain}, not proven by its DNS (a claim)`;
  return `${originText(issuer)}${proof}`;
}

function originText(issuer: ServiceVerdict['issuer']): string {
  if (issuer.origin === undefined) {
    return `the account ${issuer.account}; the certificate names no issuing origin`;
  }
  if (issuer.outcome === 'trusted') {
    return `${issuer.origin} (this service), account ${issuer.account}`;
  }
  return issuer.originTrusted === true
    ? `${issuer.origin} (this service), account ${issuer.account}: NOT in a registry it publishes`
    : `${issuer.origin}, account ${issuer.account}: NOT this service's origin, which alone it trusts`;
}

/**
 * The certified content as `path: value` lines, paths as the JSON nests them, made as they are
 * read: the lines past what is printed are never made.
 */
function* contentLines(value: unknown, path: string[] = []): Generator<string> {
  if (Array.isArray(value)) {
    if (value.length === 0) yield `${path.join(' / ') || '(content)'}: []`;
    for (const [index, item] of value.entries()) {
      yield* contentLines(item, [...path, `[${String(index)}]`]);
    }
    return;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) yield `${path.join(' / ') || '(content)'}: {}`;
    for (const [key, item] of entries) yield* contentLines(item, [...path, key]);
    return;
  }
  yield `${path.join(' / ')}: ${JSON.stringify(value)}`;
}

/** The content's lines up to `PRINTED_CONTENT_MAX_LINES` and `_LENGTH`, then the note if cut. */
function writeContent(writer: Writer, fonts: Fonts, content: unknown): void {
  let lines = 0;
  let room = PRINTED_CONTENT_MAX_LENGTH;
  let cut = false;
  for (const line of contentLines(content)) {
    if (lines === PRINTED_CONTENT_MAX_LINES || room === 0) {
      cut = true;
      break;
    }
    const printed = writer.text(line, {
      font: fonts.mono,
      size: 9,
      gap: 1,
      maxLength: room,
      cutNote: false,
    });
    lines += 1;
    room -= printed.length;
    if (printed.cut) {
      cut = true;
      break;
    }
  }
  if (cut) writer.text(CONTENT_CUT_NOTE, { font: fonts.bold, size: 9, gap: 1 });
}

/** The document's Title: one line, whatever line breaks or controls the name holds. */
function titleOf(name: string): string {
  return `Certificate ${name.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim()}`;
}

/**
 * The certificate as a document a person can hold: its fields, every trustpoint, the hash, and a
 * QR code opening the web verifier on it. The PDF proves nothing by itself: the verifier (or
 * `trustpoint verify`) checks the chain.
 */
export async function certificatePdf(input: CertificatePdfInput): Promise<Uint8Array> {
  const { certificate, verifyUrl } = input;
  const document = await PDFDocument.create();
  document.setTitle(titleOf(certificate.data.name));
  document.setSubject(certificate.certID);
  document.setProducer('Trustpoint');
  document.setCreator('Trustpoint certificate API');
  const fonts: Fonts = {
    regular: await document.embedFont(StandardFonts.Helvetica),
    bold: await document.embedFont(StandardFonts.HelveticaBold),
    mono: await document.embedFont(StandardFonts.Courier),
  };
  const qr = await document.embedPng(
    await QRCode.toBuffer(verifyUrl, {
      type: 'png',
      errorCorrectionLevel: 'M',
      margin: 4,
      scale: 6,
    }),
  );

  const writer = new Writer(document, fonts);
  const qrSize = 150;
  const qrTop = writer.top;
  writer.currentPage.drawImage(qr, {
    x: PAGE_SIZE[0] - MARGIN - qrSize,
    y: qrTop - qrSize,
    width: qrSize,
    height: qrSize,
  });
  const beside = PAGE_SIZE[0] - 2 * MARGIN - qrSize - 15;
  writer.text('Trustpoint certificate', { font: fonts.bold, size: 20, width: beside, gap: 4 });
  writer.text(certificate.data.name, { font: fonts.bold, size: 14, width: beside, gap: 2 });
  if (certificate.data.description !== '') {
    writer.text(certificate.data.description, { size: 10.5, width: beside, gap: 4 });
  }
  writer.text(
    'Scan the code to verify this certificate in your browser: the page hashes the file itself ' +
      'and reads every trustpoint from a blockchain node you choose.',
    { size: 8.5, width: beside },
  );
  writer.skip(Math.max(0, writer.top - (qrTop - qrSize - 10)));
  writer.rule();

  const data = certificate.data;
  writer.field('certID', certificate.certID, true);
  writer.field('Type', data.type);
  writer.field('Issuer (account)', data.issuer, true);
  if (data.issuerOrigin !== undefined) writer.field('Issued at (origin)', data.issuerOrigin, true);
  writer.field('Issued on', shownTime(data.issuedOn));
  writer.field('Certificate hash (data.hash)', data.hash, true);
  const coverage = hashCoverageText(data);
  writer.field(coverage.label, coverage.text);
  if (data.fileHash !== undefined)
    writer.field('File SHA-256 (data.fileHash)', data.fileHash, true);
  writer.field('Status', certificate.status);
  if (input.verification !== undefined) {
    const { verdict, checkedAt } = input.verification;
    writer.field(
      `Verified by the service at ${shownTime(checkedAt)}`,
      VERDICT_TEXT[verdict.verdict],
    );
    writer.field('Issued by', issuerText(verdict.issuer));
    if (verdict.revocation !== undefined) {
      writer.field(
        'Revoked',
        `${shownTime(verdict.revocation.recordedAt)} (chain time, network ${String(verdict.revocation.networkId)})`,
      );
    }
  }
  if (data.expires !== undefined) writer.field('Expires', shownTime(data.expires));

  writer.rule();
  writer.text('Certified content', { font: fonts.bold, size: 12, gap: 4 });
  writeContent(writer, fonts, data.content);

  writer.rule();
  writer.text('Trustpoints', { font: fonts.bold, size: 12, gap: 4 });
  for (const [index, trustpoint] of certificate.metadata.entries()) {
    writer.text(
      `${String(index + 1)}. ${trustpoint.type} on network ${String(trustpoint.networkId)}, ` +
        `${shownTime(trustpoint.timestamp)} (${trustpoint.status})`,
      { font: fonts.bold, size: 10, gap: 2 },
    );
    writer.field('Trustpoint hash', trustpoint.trustPointHash, true);
    writer.field('Timestamp (ms, the on-chain key)', String(trustpoint.timestamp), true);
    if (trustpoint.smartContract !== undefined) {
      writer.field('Registry contract', trustpoint.smartContract, true);
    }
    if (trustpoint.transactionHash !== undefined) {
      writer.field('Transaction', trustpoint.transactionHash, true);
    }
  }

  writer.rule();
  writer.field('Verify', verifyUrl, true);
  writer.text(
    'Or with the command line: trustpoint verify <certID> --url <service> --rpc <networkId>=<node URL>. ' +
      'Each trustpoint is getTrustPoint(certID, timestamp) on the registry contract; a revocation ' +
      "is revocationOf(certID) on the network's status registry. The verdict above is the " +
      "service's at the time shown: verify again for today's.",
    { size: 8.5 },
  );
  return document.save();
}
