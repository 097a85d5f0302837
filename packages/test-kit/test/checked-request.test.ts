import { DomainError } from '@trustpoint/domain';
import { apiDocs, errorHandler, notFoundHandler, sendSuccess } from '@trustpoint/http';
import express, { type Express } from 'express';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

import { checkedRequest, checkServedResponse, OpenApiMismatchError } from '../src/openapi/index.js';

/** An app wired as the APIs are: the routes under test, then the 404 and error handlers. */
function testApp(defineRoutes: (app: Express) => void): Express {
  const app = express();
  defineRoutes(app);
  app.use(notFoundHandler);
  app.use(errorHandler({ logger: pino({ level: 'silent' }) }));
  return app;
}

const BASE = '/tiny/v1';
const request = checkedRequest(BASE);

const errorBody = {
  type: 'object',
  properties: {
    statusCode: { type: 'integer', minimum: 400, maximum: 599 },
    type: { type: 'string' },
    message: { type: 'string' },
  },
  required: ['statusCode', 'type', 'message'],
  additionalProperties: false,
};
const errors = {
  '404': {
    description: 'Not found',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
  },
};

/** A tiny API whose document says a thing has a name and a size in whole units. */
const document = {
  openapi: '3.1.0',
  info: { title: 'Tiny API', version: '1.0.0' },
  servers: [{ url: BASE }],
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'The thing',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    statusCode: { type: 'integer' },
                    message: { type: 'string' },
                    data: { $ref: '#/components/schemas/Thing' },
                  },
                  required: ['statusCode', 'message', 'data'],
                },
              },
            },
          },
          '304': { description: 'Not modified' },
          ...errors,
        },
      },
    },
    '/files/{id}': {
      get: {
        operationId: 'getFile',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'A file', content: { 'image/*': {} } }, ...errors },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          // 2020-12 keywords: a draft-07 validator would ignore prefixItems and pass anything.
          size: {
            type: 'array',
            prefixItems: [{ type: 'integer' }, { const: 'cm' }],
            items: false,
          },
        },
        required: ['name', 'size'],
        additionalProperties: false,
      },
      ErrorBody: errorBody,
    },
  },
};

/** Each `/things/:id` answers as its id says; `/files/:id` answers an image or text. */
function tinyApp(): Express {
  return testApp((app) => {
    app.use(BASE, apiDocs({ document }));
    app.get(`${BASE}/things/:id`, (req, res) => {
      const answers: Record<string, () => void> = {
        good: () => {
          sendSuccess(res, 200, 'The thing', { name: 'box', size: [3, 'cm'] });
        },
        'missing-member': () => {
          sendSuccess(res, 200, 'The thing', { size: [3, 'cm'] });
        },
        'wrong-unit': () => {
          sendSuccess(res, 200, 'The thing', { name: 'box', size: [3, 'inch'] });
        },
        'undocumented-status': () => {
          sendSuccess(res, 201, 'Created', { name: 'box', size: [3, 'cm'] });
        },
        'status-in-body': () => {
          res.status(200).json({
            statusCode: 202,
            message: 'The thing',
            data: { name: 'box', size: [3, 'cm'] },
          });
        },
        html: () => {
          res.status(200).type('html').send('<p>box</p>');
        },
        'not-modified': () => {
          res.status(304).end();
        },
      };
      const answer = answers[req.params.id];
      if (!answer) throw new DomainError('notFound');
      answer();
    });
    app.get(`${BASE}/files/:id`, (req, res) => {
      if (req.params.id === 'png') res.type('png').send(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      else res.type('text').send('not an image');
    });
    app.get(`${BASE}/undocumented`, (_req, res) => {
      res.json({ hello: 'world' });
    });
  });
}

describe('checkedRequest', () => {
  it('when an answer matches the document, then it reaches the test unchanged', async () => {
    // Arrange
    const app = tinyApp();

    // Act
    const good = await request(app).get(`${BASE}/things/good`);
    const notModified = await request(app).get(`${BASE}/things/not-modified`);
    const png = await request(app).get(`${BASE}/files/png`);
    const unknown = await request(app).get(`${BASE}/things/none`);
    const unknownPath = await request(app).get(`${BASE}/elsewhere`);

    // Assert
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ data: { name: 'box', size: [3, 'cm'] } });
    expect(notModified.status).toBe(304);
    expect(png.status).toBe(200);
    expect(unknown.status).toBe(404);
    expect(unknownPath.status).toBe(404);
  });

  it('when the documentation itself is read, then its page and document pass', async () => {
    // Act
    const json = await request(tinyApp()).get(`${BASE}/openapi.json`);
    const page = await request(tinyApp()).get(`${BASE}/docs/`);

    // Assert
    expect(json.status).toBe(200);
    expect(page.status).toBe(200);
  });

  it.each([
    [
      'missing-member',
      /getThing: GET \/things\/\{id\}\) answered 200 application\/json[\s\S]*body\/data must have required property 'name'/,
    ],
    ['wrong-unit', /getThing[\s\S]*body\/data\/size\/1 must be equal to constant \("cm"\)/],
    [
      'undocumented-status',
      /getThing: GET \/things\/\{id\}\) answered 201[\s\S]*status 201 is not documented; documented: 200, 304, 404/,
    ],
    ['status-in-body', /body\.statusCode is 202, not the HTTP status 200/],
    ['html', /content type text\/html is not documented for 200; documented: application\/json/],
  ])(
    'when /things/%s breaks the document, then awaiting the request fails and says why',
    async (id, message) => {
      // Act
      const answer = request(tinyApp()).get(`${BASE}/things/${id}`);

      // Assert
      await expect(answer).rejects.toThrow(OpenApiMismatchError);
      await expect(request(tinyApp()).get(`${BASE}/things/${id}`)).rejects.toThrow(message);
    },
  );

  it('when a file answers a media type outside its documented range, then the request fails', async () => {
    await expect(request(tinyApp()).get(`${BASE}/files/text`)).rejects.toThrow(
      /getFile[\s\S]*content type text\/plain is not documented for 200; documented: image\/\*/,
    );
  });

  it('when a path the document does not describe answers anything but an error body, then the request fails', async () => {
    await expect(request(tinyApp()).get(`${BASE}/undocumented`)).rejects.toThrow(
      /GET \/tiny\/v1\/undocumented, which the document does not describe[\s\S]*only an error may answer here/,
    );
  });

  it('when an answer came over a raw socket, then checkServedResponse checks it the same way', async () => {
    // Arrange
    const app = tinyApp();
    const text = JSON.stringify({ statusCode: 200, message: 'The thing', data: { name: 'box' } });

    // Act
    const checked = checkServedResponse(app, BASE, {
      method: 'GET',
      url: `${BASE}/things/raw?x=1`,
      status: 200,
      contentType: 'application/json; charset=utf-8',
      body: Buffer.from(text),
    });

    // Assert
    await expect(checked).rejects.toThrow(/body\/data must have required property 'size'/);
  });

  it('when the document names another server than where it is served, then the first request fails', async () => {
    // Arrange
    const app = testApp((served) => {
      served.use(BASE, apiDocs({ document: { ...document, servers: [{ url: '/other' }] } }));
    });

    // Act, Assert
    await expect(request(app).get(`${BASE}/things/good`)).rejects.toThrow(
      'the OpenAPI document names server /other, but is served under /tiny/v1',
    );
  });
});
