// A JSON-RPC relay on loopback, run as a process of its own (`node rpc-relay.js <port> <node URL>`):
// the services talk to it instead of the chain node, so that killing it shows them what a dead
// node shows (refused connections, requests cut in the middle) while the node, which keeps its
// chain in memory only, lives on. Bodies are passed through unread.
import { Agent, createServer, request } from 'node:http';

const [portText, target] = process.argv.slice(2);
if (portText === undefined || target === undefined) {
  console.error('usage: node rpc-relay.js <port> <node URL>');
  process.exit(2);
}
const agent = new Agent({ keepAlive: true });

const server = createServer((incoming, outgoing) => {
  const forwarded = request(
    target,
    { method: incoming.method, agent, headers: { 'content-type': 'application/json' } },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', () => {
    outgoing.destroy();
  });
  incoming.pipe(forwarded);
});
server.listen(Number(portText), '127.0.0.1', () => {
  console.log(`relay listening on 127.0.0.1:${portText}`);
});
