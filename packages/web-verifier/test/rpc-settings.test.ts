import { describe, expect, it } from 'vitest';
import { apiBaseOf } from '../src/page/certificate-source.js';
import { readPageLink } from '../src/page/page-link.js';
import { newNodeLines, parseRpcText, rpcLinesOf } from '../src/page/rpc-settings.js';

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

describe('the nodes a link or the instance proposes', () => {
  it('when a proposed node is already in the list, then it is not proposed again', () => {
    const fresh = newNodeLines('31337=http://127.0.0.1:18545', [
      '31337=http://127.0.0.1:18545',
      '31337 = http://attacker.example:8545',
    ]);

    expect(fresh).toEqual(['31337 = http://attacker.example:8545']);
  });

  it('when a proposed line is not a node, then it is dropped, never offered', () => {
    expect(newNodeLines('', ['31337=javascript:alert(1)', 'nonsense'])).toEqual([]);
  });

  it("when the instance names its nodes per network, then they become the list's lines", () => {
    expect(
      rpcLinesOf({ '31337': ['http://127.0.0.1:18545'], '*': ['https://any.example'] }),
    ).toEqual(['31337=http://127.0.0.1:18545', 'https://any.example']);
  });
});

describe('a link that opens the page', () => {
  it('when it names a certID, a service and nodes, then each is read, repeated nodes kept in order', () => {
    const link = readPageLink(
      '#certID=did%3Atrustpoint%3Acertid%3A1&service=http%3A%2F%2Fx.example&rpc=31337%3Dhttp%3A%2F%2Fa&rpc=1%3Dhttp%3A%2F%2Fb',
    );

    expect(link).toEqual({
      certID: 'did:trustpoint:certid:1',
      service: 'http://x.example',
      rpc: ['31337=http://a', '1=http://b'],
    });
  });
});
