/**
 * A node's URL as logs, errors and readiness may name it: its scheme and host only. Its path
 * and query often carry a provider's API key (`/v3/<key>`), and userinfo is refused anyway.
 */
export function nodeLabel(rpcUrl: string): string {
  try {
    const url = new URL(rpcUrl);
    const rest = url.pathname !== '/' || url.search !== '' ? '/…' : '';
    return `${url.protocol}//${url.host}${rest}`;
  } catch {
    return 'the configured node';
  }
}

/** `text` with every http(s) URL in it replaced by its `nodeLabel`: for messages that quote one. */
export function withoutNodeUrls(text: string): string {
  return text.replace(/https?:\/\/[^\s'",)]+/gi, (url) => nodeLabel(url));
}
