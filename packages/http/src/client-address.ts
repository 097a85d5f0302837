import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

/**
 * Who sent a request, for counting it against a per-address limit: the socket's address (`trust
 * proxy` is off), an IPv4-mapped IPv6 address as its IPv4 form, and any other IPv6 address as its
 * /56, so that one host cannot dodge a limit by rotating through the addresses it is given.
 */
export function clientAddress(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}
