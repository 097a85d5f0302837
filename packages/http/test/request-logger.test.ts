import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { redactSecrets, requestLogger } from '../src/request-logger.js';
import { capturedLogger } from './support/captured-logger.js';

describe('requestLogger', () => {
  it('when a request carries credentials, then its log line has them redacted', async () => {
    // Arrange
    const { logger, lines, entries } = capturedLogger();
    const app = express();
    app.use(requestLogger(logger));
    app.get('/certificates/:id', (_req, res) => res.sendStatus(204));

    // Act
    await request(app)
      .get('/certificates/c1?pin=s3cr3t-pin&fields=data&access_token=s3cr3t-jwt&pin[]=s3cr3t-pin2')
      .set('Authorization', 'Bearer secret-token-value')
      .set('Cookie', 'session=secret-cookie');

    // Assert
    expect(entries()).toHaveLength(1);
    expect(entries()[0]).toMatchObject({
      msg: 'request completed',
      req: {
        method: 'GET',
        url: '/certificates/c1?pin=[Redacted]&fields=data&access_token=[Redacted]&pin[]=[Redacted]',
        query: { pin: '[Redacted]', fields: 'data', access_token: '[Redacted]' },
        headers: { authorization: '[Redacted]', cookie: '[Redacted]' },
      },
      res: { statusCode: 204 },
    });
    expect(lines[0]).not.toMatch(/s3cr3t|secret-token-value|secret-cookie/);
  });
});

describe('redactSecrets', () => {
  it.each([
    ['/c?pin=1', '/c?pin=[Redacted]'],
    ['/c?a=1&PIN=2#x', '/c?a=1&PIN=[Redacted]#x'],
    ['/c?pin=1&pin=2', '/c?pin=[Redacted]&pin=[Redacted]'],
    ['/c?spin=1', '/c?spin=1'],
    ['/c?p%69n=1&a=%ZZ', '/c?p%69n=[Redacted]&a=%ZZ'],
    ['/c?%70%49%6E=1', '/c?%70%49%6E=[Redacted]'],
    ['/c/pin=1?x=pin=2', '/c/pin=1?x=pin=2'],
    ['/c', '/c'],
    ['/c?pin[]=4321&limit=1', '/c?pin[]=[Redacted]&limit=1'],
    ['/c?pin%5B%5D=4321', '/c?pin%5B%5D=[Redacted]'],
    [
      '/o?client_secret=tp_live_x&grant_type=client_credentials',
      '/o?client_secret=[Redacted]&grant_type=client_credentials',
    ],
    ['/c?limit=1&access_token=eyJ.x.y', '/c?limit=1&access_token=[Redacted]'],
    [
      '/c?api_key=k&apiKey=k&token=t&password=p',
      '/c?api_key=[Redacted]&apiKey=[Redacted]&token=[Redacted]&password=[Redacted]',
    ],
    ['/c?networkId=31337&type=content&fields=data', '/c?networkId=31337&type=content&fields=data'],
  ])('when the URL is %s, then it becomes %s', (url, expected) => {
    // Act
    const redacted = redactSecrets(url);

    // Assert
    expect(redacted).toBe(expected);
  });
});
