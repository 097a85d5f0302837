// The embedded chain's node (startKeyedHardhatNode): Hardhat Network with the chain's settings
// (hardhat-node.config.js, as `hardhat node` runs it), served over JSON-RPC on loopback to the
// holder of a key alone. `hardhat node` answers any local process: its accounts are unlocked and
// one of them administers the registries, so another user of the host could forge records or
// spend nonces outside the relay's journal. Here a request without `Authorization: Bearer <key>`
// gets 401 and reaches nothing. The key comes in the environment (TRUSTPOINT_NODE_KEY), never in
// the arguments, which every local user can read. Requests that pass are answered by Hardhat's own
// JSON-RPC handler, so replies and errors (code, message, revert data) are those of `hardhat node`.
// Prints `JSON-RPC server at http://<host>:<port>/` once it listens.
'use strict';

/* eslint-disable @typescript-eslint/no-require-imports -- a script run by node, CommonJS */
const { createHash, timingSafeEqual } = require('node:crypto');
const { createServer } = require('node:http');
const { join } = require('node:path');

const key = process.env.TRUSTPOINT_NODE_KEY;
delete process.env.TRUSTPOINT_NODE_KEY;
if (key === undefined || key.length < 32) {
  console.error('TRUSTPOINT_NODE_KEY (at least 32 characters) is required');
  process.exit(2);
}
const host = '127.0.0.1';

// Read by `require('hardhat')`: the chain's settings alone, on Hardhat's in-process network.
process.env.HARDHAT_CONFIG = join(__dirname, 'hardhat-node.config.js');
process.env.HARDHAT_NETWORK = 'hardhat';
const hre = require('hardhat');
const { JsonRpcHandler } = require('hardhat/internal/hardhat-network/jsonrpc/handler');

// Digests: equal lengths whatever was sent, so the comparison says nothing about the key's.
const digest = (text) => createHash('sha256').update(text).digest();
const expected = digest(`Bearer ${key}`);
const holdsKey = (authorization) =>
  authorization !== undefined && timingSafeEqual(digest(authorization), expected);

const handler = new JsonRpcHandler(hre.network.provider);
const server = createServer((request, response) => {
  if (!holdsKey(request.headers.authorization)) {
    // Nothing of the request is read or relayed; the connection closes with the answer.
    response.writeHead(401, { connection: 'close' }).end();
    return;
  }
  void handler.handleHttp(request, response);
});
// HTTP alone: no WebSocket server (`hardhat node` has one), nothing else to guard.
server.listen(0, host, () => {
  const { port } = server.address();
  console.log(`JSON-RPC server at http://${host}:${String(port)}/`);
});
