import { describe, expect, it } from 'vitest';
import { apiBaseOf } from '../src/page/certificate-source.js';
import { parseRpcText } from '../src/page/rpc-settings.js';

describe('the nodes a user lists', () => {
  it('when lines name networks, then each network keeps its URLs in order, and a bare URL is for any network', () => {
    const rpc = parseRpcText(
      '31337=http://127.0.0.1:8545\n\n# backup\n31337 = http://backup:8545\nhttps://any.example/rpc',
    );

    expect(rpc).toEqual({
      '31337': ['http://127.0.0.1:8545', 'http://backup:8545'],
      '*': ['https://any.example/rpc'],
    });
  });

  it('when a line is not a URL, then it is refused with the line quoted', () => {
    expect(() => parseRpcText('31337=localhost:8545')).toThrow('"31337=localhost:8545"');
  });
});

describe('the service URL a user types', () => {
  it('when it is a bare origin, then the default mount /cert/v2/ is added', () => {
    expect(apiBaseOf('http://127.0.0.1:8080').toString()).toBe('http://127.0.0.1:8080/cert/v2/');
  });

  it('when it is an API base without a slash, then it gets one and loses query and fragment', () => {
    expect(apiBaseOf('https://x.example/trust/cert/v2?a=1#b').toString()).toBe(
      'https://x.example/trust/cert/v2/',
    );
  });
});
