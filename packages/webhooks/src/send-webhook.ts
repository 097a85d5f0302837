import http from 'node:http';
import https from 'node:https';
import {
  isNonPublicAddressRefusal,
  publicAddressAgent,
  type AddressPolicy,
} from '@trustpoint/http';

/** What one POST to an endpoint gave: its status, or why there was none. */
export type SendOutcome =
  { ok: boolean; statusCode: number; error: null } | { ok: false; statusCode: null; error: string };

/** At most this much of an answer is read (and dropped): only the status matters. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one signed event. The target is checked against the address policy on the address
 * actually connected to (`publicAddressAgent`), so a name that resolves elsewhere than when it
 * was registered (DNS rebinding) cannot reach a private address; redirects are not followed
 * (a 3xx is a failed attempt); the whole exchange is bounded by `timeoutMs`.
 */
export function sendWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { addressPolicy: AddressPolicy; timeoutMs: number },
): Promise<SendOutcome> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.resolve({ ok: false, statusCode: null, error: 'The URL is not valid' });
  }
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(url, {
      method: 'POST',
      agent: publicAddressAgent(url, options.addressPolicy),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Trustpoint-Webhooks',
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({
        ok: false,
        statusCode: null,
        error: `No answer within ${String(options.timeoutMs)} ms`,
      });
    }, options.timeoutMs);
    req.once('response', (response) => {
      const statusCode = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.byteLength;
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      const done = () => {
        finish({ ok: statusCode >= 200 && statusCode <= 299, statusCode, error: null });
      };
      response.once('end', done);
      response.once('close', done);
    });
    req.once('error', (error: NodeJS.ErrnoException) => {
      finish({
        ok: false,
        statusCode: null,
        error: isNonPublicAddressRefusal(error)
          ? 'The endpoint resolves to a non-public address, which is not allowed'
          : `The request failed (${error.code ?? error.message})`,
      });
    });
    req.end(body);
  });
}
