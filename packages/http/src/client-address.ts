import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

/**
 * Who sent a request, for counting it against a per-address limit: `req.ip`, the socket's address
 * unless `trust proxy` (TRUST_PROXY) names the load balancers in front, whose X-Forwarded-For then
 * names the client; an IPv4-mapped IPv6 address as its IPv4 form, and any other IPv6 address as its
 * /56, so that one host cannot dodge a limit by rotating through the addresses it is given.
 */
export function clientAddress(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}
