import { describe, expect, it } from 'vitest';
import { certificateDetails, contentRows } from '../src/page/certificate-details.js';

describe('what a certificate shows', () => {
  it('when the content nests objects and lists, then each value is one row named by its path', () => {
    const rows = contentRows({
      order: { id: 4711, lines: [{ sku: 'A-1' }] },
      paid: true,
      note: null,
    });

    expect(rows).toEqual([
      ['order.id', '4711'],
      ['order.lines[0].sku', 'A-1'],
      ['paid', 'true'],
      ['note', 'null'],
    ]);
  });

  it('when the holder withheld array elements, then every element keeps the position it was issued at and each withheld one is a row at its place', () => {
    // As issued: grades ["A", "F"], ranking ["Bob", "Alice"], marks [[1, 2]]; the holder withheld
    // grades[0], ranking[0] and marks[0][1], and the shown arrays closed the gaps.
    const rows = contentRows({ grades: ['F'], ranking: ['Alice'], marks: [[1]], empty: [] }, '', [
      ['content', 'grades', 0],
      ['content', 'ranking', 0],
      ['content', 'marks', 0, 1],
      ['content', 'empty', 0],
    ]);

    expect(rows).toEqual([
      ['grades[0]', '', 'content.grades[0]'],
      ['grades[1]', 'F'],
      ['ranking[0]', '', 'content.ranking[0]'],
      ['ranking[1]', 'Alice'],
      ['marks[0][0]', '1'],
      ['marks[0][1]', '', 'content.marks[0][1]'],
      ['empty[0]', '', 'content.empty[0]'],
    ]);
  });

  it('when the certificate has a name, an issuer and dates, then they are shown, an expiry passed said so', () => {
    const details = certificateDetails(
      {
        statusCode: 200,
        data: {
          certID: 'x',
          data: {
            name: 'Diploma',
            description: '',
            issuer: 'did:user:1',
            issuedOn: 0,
            expires: 1_000,
          },
        },
      },
      2_000,
    );

    expect(details).toEqual([
      ['Name', 'Diploma'],
      ['Issuer (the service account that certified it)', 'did:user:1'],
      ['Issued on (as the service states)', '1970-01-01T00:00:00.000Z'],
      ['Expires', '1970-01-01T00:00:01.000Z (passed)'],
    ]);
  });
});
