import { createErrorCatalogue } from '@trustpoint/domain';
import { describe, expect, it } from 'vitest';

import { openApiErrorResponses } from '../src/openapi-error-responses.js';

describe('openApiErrorResponses', () => {
  const catalogue = createErrorCatalogue();

  it('when an operation names no error of its own, then 400, 413, 429 and 500 are documented all the same', () => {
    // Act: a route any request reaches through the shared parsers (the body, the request target).
    const responses = openApiErrorResponses(catalogue, [], []);

    // Assert
    expect(Object.keys(responses)).toEqual(['400', '413', '429', '500']);
  });

  it('when an operation names its errors, then each status lists the catalogue message as an example', () => {
    // Act
    const responses = openApiErrorResponses(catalogue, ['notFound', 'invalidToken'], []);

    // Assert
    expect(Object.keys(responses)).toEqual(['400', '401', '404', '413', '429', '500']);
    expect(JSON.stringify(responses['413'])).toContain(catalogue.payloadTooLarge.message);
  });

  it('when an operation can answer networkBusy, then its 503 documents Retry-After; one that cannot, none', () => {
    // Act
    const busy = openApiErrorResponses(catalogue, ['networkUnavailable', 'networkBusy'], []);
    const unavailable = openApiErrorResponses(catalogue, ['networkUnavailable'], []);

    // Assert
    expect(busy['503']).toMatchObject({
      headers: { 'Retry-After': { required: false, schema: { type: 'integer', minimum: 1 } } },
    });
    expect(JSON.stringify(busy['503'])).toContain(catalogue.networkBusy.message);
    expect(unavailable['503']).not.toHaveProperty('headers');
  });
});
